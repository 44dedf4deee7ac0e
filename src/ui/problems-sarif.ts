// SARIF 2.1.0 (OASIS), for code scanning: one rule per problem code with its help, one result per problem with its
// file:line, suppressed problems kept with their justification. Validated against the schema in test/ui.
import { CODE_HELP } from '../lint/codes.js';
import { CODE_FIXES } from '../lint/code-fixes.js';
import { PROBLEM_CODES, type Problem } from '../model/problem.js';
import type { Suppressed } from '../lint/suppress.js';
import { sarifFingerprints } from '../lint/fingerprint.js';

/** The partialFingerprints key: a name and version of standup's own scheme (src/lint/fingerprint.ts). */
const FINGERPRINT_KEY = 'standupFingerprint/v1';

const LEVEL = { error: 'error', warning: 'warning', info: 'note' } as const;

export function renderProblemsSarif(problems: readonly Problem[], suppressed: readonly Suppressed[], version: string): string {
  const rules = PROBLEM_CODES.map((id) => ({
    id,
    name: id.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase()),
    shortDescription: { text: CODE_HELP[id].summary },
    fullDescription: { text: CODE_HELP[id].help },
    help: { text: `${CODE_HELP[id].help} (standup explain ${id})`, markdown: `${CODE_HELP[id].help}\n\nExample of the fix (\`standup explain ${id}\`):\n\n\`\`\`\n${CODE_FIXES[id]}\n\`\`\`` },
    // The README's list of codes, at this version: what `standup explain CODE` prints, for code scanning's rule page.
    helpUri: `https://github.com/standup-cli/standup/blob/v${version}/README.md#problem-codes`,
  }));
  const all = [...problems, ...suppressed];
  const fingerprints = sarifFingerprints(all);
  const prints = new Map(all.map((p, i) => [p, fingerprints[i]!]));
  const result = (p: Problem, s?: Suppressed) => ({
    ruleId: p.code,
    ruleIndex: PROBLEM_CODES.indexOf(p.code),
    level: LEVEL[p.severity],
    message: { text: p.message },
    ...(p.file
      ? { locations: [{ physicalLocation: { artifactLocation: { uri: encodeURI(p.file), uriBaseId: '%SRCROOT%' }, ...(p.line ? { region: { startLine: p.line } } : {}) } }] }
      : {}),
    partialFingerprints: { [FINGERPRINT_KEY]: prints.get(p)! },
    ...(s ? { suppressions: [{ kind: s.suppressedBy.startsWith('tiers.yaml') ? 'external' : 'inSource', justification: s.reason }] } : {}),
    properties: Object.fromEntries(Object.entries({ object: p.object, cluster: p.cluster, tier: p.tier, crdGroup: p.crdGroup, installer: p.installer, externalCrd: p.externalCrd }).filter(([, v]) => v)),
  });
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'standup', version, rules } },
        columnKind: 'utf16CodeUnits',
        results: [...problems.map((p) => result(p)), ...suppressed.map((s) => result(s, s))],
      },
    ],
  };
  return JSON.stringify(log, null, 2) + '\n';
}
