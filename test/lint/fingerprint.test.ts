import { describe, expect, it } from 'vitest';
import { baselineText, parseBaseline } from '../../src/lint/baseline.js';
import { comparableMessage, fingerprintOf, matchProblems, sarifFingerprints } from '../../src/lint/fingerprint.js';
import type { Problem } from '../../src/model/problem.js';

const missing = (to: string, line: number, extra: Partial<Problem> = {}): Problem => ({
  code: 'missing-dependency', severity: 'error', message: `flux-system/apps depends on ${to}, which cluster dev does not define`,
  file: 'clusters/base/apps.yaml', line, object: 'Kustomization/flux-system/apps', cluster: 'dev', target: to, ...extra,
});
const yamlInvalid = (file: string, line: number): Problem => ({
  code: 'yaml-invalid', severity: 'error', message: `${file}:${line}:3: bad indentation`, file, line, object: null, cluster: 'dev',
});

describe('fingerprintOf', () => {
  it.each([
    ['the line moves', missing('flux-system/db', 12), missing('flux-system/db', 40)],
    ['the file of an object is renamed', missing('flux-system/db', 12), missing('flux-system/db', 12, { file: 'clusters/base/apps/ks.yaml' })],
    ['the wording changes', missing('flux-system/db', 12), missing('flux-system/db', 12, { message: 'reworded' })],
    ['a YAML error moves within its file', yamlInvalid('apps/a.yaml', 3), yamlInvalid('apps/a.yaml', 9)],
  ])('stays the same when %s', (_why, a, b) => {
    expect(fingerprintOf(a)).toBe(fingerprintOf(b));
  });

  it.each([
    ['the target differs', missing('flux-system/db', 12), missing('flux-system/cache', 12)],
    ['the cluster differs', missing('flux-system/db', 12), missing('flux-system/db', 12, { cluster: 'prod' })],
    ['the code differs', missing('flux-system/db', 12), missing('flux-system/db', 12, { code: 'cycle' })],
    ['an object-less problem is in another file', yamlInvalid('apps/a.yaml', 3), yamlInvalid('apps/b.yaml', 3)],
    ['the CRD group differs', missing('x', 1, { code: 'runtime-crd', crdGroup: 'a.io' }), missing('x', 1, { code: 'runtime-crd', crdGroup: 'b.io' })],
  ])('differs when %s', (_why, a, b) => {
    expect(fingerprintOf(a)).not.toBe(fingerprintOf(b));
  });
});

describe('comparableMessage', () => {
  it('drops line numbers and absolute directories, keeps the rest', () => {
    expect(comparableMessage('open /tmp/standup-rev-x1/kubernetes/a/backup.sh: no such file at a.yaml:12:3 (line 4)'))
      .toBe(comparableMessage('open /work/repo/kubernetes/a/backup.sh: no such file at a.yaml:40:1 (line 9)'));
    expect(comparableMessage('depends on flux-system/db')).toBe('depends on flux-system/db');
  });
});

describe('matchProblems', () => {
  it('splits into added, existing and fixed, one known entry per current problem', () => {
    const known = [missing('flux-system/db', 5), missing('flux-system/old', 6)].map((p) => ({ fingerprint: fingerprintOf(p), message: p.message }));
    const current = [missing('flux-system/db', 30), missing('flux-system/new', 31)];
    const m = matchProblems(current, known);
    expect(m.added.map((p) => p.target)).toEqual(['flux-system/new']);
    expect(m.existing.map((p) => p.target)).toEqual(['flux-system/db']);
    expect(m.fixed.map((k) => k.message)).toEqual([missing('flux-system/old', 6).message]);
  });

  it('two problems with one fingerprint and one known: the one whose message matches is the old one', () => {
    // Without a target (as an older rule might emit), two problems of one code on one object share a fingerprint.
    const a = missing('x', 1, { target: undefined, message: 'first finding' });
    const b = missing('x', 2, { target: undefined, message: 'second finding' });
    const m = matchProblems([b, a], [{ fingerprint: fingerprintOf(a), message: 'first finding' }]);
    expect(m.added).toEqual([b]);
    expect(m.existing).toEqual([a]);
  });

  it('SARIF fingerprints keep problems that share a fingerprint apart', () => {
    const a = missing('x', 1, { target: undefined, message: 'one' });
    const b = missing('x', 2, { target: undefined, message: 'two' });
    expect(sarifFingerprints([a, b])).toEqual([`${fingerprintOf(a)}:1`, `${fingerprintOf(a)}:2`]);
  });
});

describe('baseline file', () => {
  it('round-trips, sorted by fingerprint', () => {
    const ps = [missing('flux-system/db', 5), yamlInvalid('apps/a.yaml', 3)];
    const entries = parseBaseline(baselineText(ps), 'b.json');
    expect(entries.map((e) => e.fingerprint)).toEqual(ps.map(fingerprintOf).sort());
    expect(entries.find((e) => e.code === 'yaml-invalid')).toMatchObject({ file: 'apps/a.yaml', object: null, cluster: 'dev' });
  });

  it.each([
    ['not JSON', '{', /b\.json is not JSON/],
    ['another document', '{"problems": []}', /not a standup baseline/],
    ['another format version', '{"standupBaseline": 9, "fingerprints": 1, "problems": []}', /written by another standup/],
    ['an entry without a fingerprint', '{"standupBaseline": 1, "fingerprints": 1, "problems": [{"code": "cycle"}]}', /problems\[0\] has no valid "fingerprint"/],
  ])('rejects %s with exit 2 and the file named', (_why, text, message) => {
    expect(() => parseBaseline(text, 'b.json')).toThrow(message);
    try {
      parseBaseline(text, 'b.json');
    } catch (e) {
      expect((e as { exitCode: number }).exitCode).toBe(2);
    }
  });
});
