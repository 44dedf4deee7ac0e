import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Options, ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../src/model/problem.js';
import { renderProblemsGithub } from '../../src/ui/problems-github.js';
import { renderProblemsMarkdown } from '../../src/ui/problems-markdown.js';
import { renderProblemsSarif } from '../../src/ui/problems-sarif.js';

// The SARIF 2.1.0 schema (rtm.5, JSON Schema draft-04) as Microsoft's SARIF test matchers ship it: an installed
// devDependency, so the test needs no network and the project commits no copy of it.
const require = createRequire(import.meta.url);
const sarifPackage = path.dirname(require.resolve('@microsoft/jest-sarif/package.json'));
const schema = JSON.parse(readFileSync(path.join(sarifPackage, 'lib/schemas/sarif-2.1.0-rtm.5.json'), 'utf8'));
// ajv-draft-04 is CommonJS (module.exports is the class); require gives it without ESM interop guesswork.
const Ajv = require('ajv-draft-04') as new (o: Options) => { compile(schema: object): ValidateFunction };
// unicodeRegExp: false, as one pattern of the schema is not valid with the u flag.
const validate = new Ajv({ strict: false, allErrors: true, validateFormats: false, unicodeRegExp: false }).compile(schema);

const problems: Problem[] = [
  { code: 'runtime-crd', severity: 'error', message: 'deadlock: a\nb', file: 'apps/x y.yaml', line: 6, object: 'Widget/ns/w', cluster: 'dev', tier: 'flux-system/apps', crdGroup: 'a.io', installer: 'HelmRelease/ns/a (chart a) in tier flux-system/apps' },
  { code: 'wait-dependency', severity: 'warning', message: 'no wait', file: 'clusters/dev/infra.yaml', line: null, object: null, cluster: 'dev' },
  { code: 'cluster-drift', severity: 'info', message: 'drift, 100%: yes', file: null, line: null, object: null, cluster: null },
];

describe('check -o sarif', () => {
  it('validates against the SARIF 2.1.0 schema, with one rule per code and suppressions kept', () => {
    const log = JSON.parse(renderProblemsSarif(problems, [{ ...problems[1]!, suppressedBy: 'tiers.yaml:3', reason: 'known' }], '0.1.0'));
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    const run = log.runs[0];
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toContain('helmrelease-order');
    expect(run.results[0]).toMatchObject({ ruleId: 'runtime-crd', level: 'error', locations: [{ physicalLocation: { artifactLocation: { uri: 'apps/x%20y.yaml' }, region: { startLine: 6 } } }] });
    expect(run.results[2].level).toBe('note');
    expect(run.results[3].suppressions).toEqual([{ kind: 'external', justification: 'known' }]);
    expect(run.results[0].partialFingerprints['standupFingerprint/v1']).toMatch(/^[0-9a-f]{16}:1$/);
  });

  it('the schema rejects what is not SARIF (the validation can fail)', () => {
    expect(validate({ version: '2.1.0', runs: [{ tool: {} }] })).toBe(false);
  });
});

describe('check -o github and -o markdown', () => {
  it('writes one workflow command per problem, escaped as GitHub requires', () => {
    const lines = renderProblemsGithub(problems).trimEnd().split('\n');
    expect(lines[0]).toBe('::error file=apps/x y.yaml,line=6,title=standup runtime-crd Widget/ns/w (dev)::deadlock: a%0Ab');
    expect(lines[1]).toBe('::warning file=clusters/dev/infra.yaml,title=standup wait-dependency (dev)::no wait');
    expect(lines[2]).toBe('::notice title=standup cluster-drift::drift, 100%25: yes');
  });

  const many = (severity: Problem['severity'], n: number, cluster = 'dev'): Problem[] => Array.from({ length: n }, (_, i) => ({
    code: 'missing-dependency', severity, message: `m${i}`, file: `f${String(i).padStart(2, '0')}.yaml`, line: i + 1, object: null, cluster,
  }));

  it("stays within GitHub's per-step limits: errors first, then warnings, then notes, and a last notice saying what was left out", () => {
    const lines = renderProblemsGithub([...many('info', 12), ...many('warning', 14), ...many('error', 13)]).trimEnd().split('\n');
    const kinds = lines.map((l) => /^::(\w+)/.exec(l)![1]);
    expect(kinds).toEqual([...Array(10).fill('error'), ...Array(10).fill('warning'), ...Array(10).fill('notice')]);
    expect(lines.at(-1)).toMatch(/^::notice title=standup%3A more problems than GitHub annotates::3 errors, 4 warnings, 3 notes not annotated: GitHub shows 10 errors/);
    expect(lines.at(-1)).toContain('job summary');
  });

  it('nothing left out: no closing notice, and the tenth note is shown', () => {
    const lines = renderProblemsGithub([...many('info', 10), ...many('error', 10)]).trimEnd().split('\n');
    expect(lines).toHaveLength(20);
    expect(lines.join('\n')).not.toContain('not annotated');
  });

  it('one finding in several clusters is one annotation naming them', () => {
    const lines = renderProblemsGithub([...many('error', 1, 'dev'), ...many('error', 1, 'prod')]).trimEnd().split('\n');
    expect(lines).toEqual(['::error file=f00.yaml,line=1,title=standup missing-dependency (dev%2C prod)::m0']);
  });

  it('with the files a change touches: only those are annotated, the rest are listed on the run with their place', () => {
    const lines = renderProblemsGithub(many('error', 2), { changedFiles: ['f01.yaml'] }).trimEnd().split('\n');
    expect(lines).toEqual([
      '::error title=standup missing-dependency (dev)::f00.yaml:1: m0',
      '::error file=f01.yaml,line=2,title=standup missing-dependency (dev)::m1',
    ]);
  });

  it('renders a table with the counts first', () => {
    const md = renderProblemsMarkdown(problems, 1, [{ name: 'cilium', groups: ['cilium.io'] }], 2);
    expect(md.split('\n')[0]).toBe('### standup check: 1 error(s), 1 warning(s), 1 note(s) in 1 cluster(s), 2 suppressed');
    expect(md).toContain('Bootstrap installs: cilium (cilium.io)');
    expect(md).toContain('| error | `runtime-crd` | `apps/x y.yaml:6` | deadlock: a<br>b |');
  });
});
