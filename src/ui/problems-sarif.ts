// SARIF 2.1.0 (OASIS), for code scanning: one rule per problem code with its help, one result per problem with its
// file:line, suppressed problems kept with their justification. Validated against the schema in test/ui.
import { CODE_HELP } from '../lint/codes.js';
import { PROBLEM_CODES, type Problem } from '../model/problem.js';
import type { Suppressed } from '../lint/suppress.js';

const LEVEL = { error: 'error', warning: 'warning', info: 'note' } as const;

export function renderProblemsSarif(problems: readonly Problem[], suppressed: readonly Suppressed[], version: string): string {
  const rules = PROBLEM_CODES.map((id) => ({
    id,
    name: id.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase()),
    shortDescription: { text: CODE_HELP[id].summary },
    fullDescription: { text: CODE_HELP[id].help },
    help: { text: CODE_HELP[id].help },
  }));
  const result = (p: Problem, s?: Suppressed) => ({
    ruleId: p.code,
    ruleIndex: PROBLEM_CODES.indexOf(p.code),
    level: LEVEL[p.severity],
    message: { text: p.message },
    ...(p.file
      ? { locations: [{ physicalLocation: { artifactLocation: { uri: encodeURI(p.file), uriBaseId: '%SRCROOT%' }, ...(p.line ? { region: { startLine: p.line } } : {}) } }] }
      : {}),
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
