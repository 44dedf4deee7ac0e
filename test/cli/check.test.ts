import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, PROJECT } from './run.js';

const lint = (c: string) => path.join(PROJECT, 'test/fixtures/lint', c);
type P = { code: string; severity: string; object: string | null; file: string | null; line: number | null };
const problems = async (...args: string[]) => {
  const r = await cli('check', '-o', 'json', ...args);
  return { code: r.code, problems: (JSON.parse(r.stdout) as { problems: P[] }).problems };
};

// Each fixture is a small repository that should produce exactly these problems (test/fixtures/lint/README.md).
describe('check on the lint fixtures', () => {
  it.each([
    ['cycle', 2, [['cycle', 'error', 'Kustomization/flux-system/a', 'clusters/dev/a.yaml', 15]]],
    ['missing-dependency', 2, [['missing-dependency', 'error', 'Kustomization/flux-system/apps', 'clusters/dev/apps.yaml', 16]]],
    ['duplicate', 2, [['duplicate', 'error', 'Kustomization/flux-system/infra', 'apps/infra.yaml', 6]]],
    ['unresolved-substitution', 2, [['unresolved-substitution', 'error', 'ConfigMap/default/app-settings', 'apps/configmap.yaml', 6]]],
    ['wait-dependency', 0, [['wait-dependency', 'warning', 'Kustomization/flux-system/infra', 'clusters/dev/infra.yaml', 4]]],
    ['cluster-drift', 2, [['cluster-drift', 'error', null, null, null]]],
    ['unknown-origin', 0, [['runtime-crd', 'warning', 'ServiceMonitor/default/app', 'apps/servicemonitor.yaml', 6]]],
    ['runtime-crd-declared', 2, [['runtime-crd', 'error', 'Bucket/homelab-backups', 'crossplane/bucket.yaml', 6]]],
    ['clean', 0, []],
  ] as const)('%s', async (fixture, exit, expected) => {
    const r = await problems('--repo', lint(fixture));
    expect(r.problems.map((p) => [p.code, p.severity, p.object, p.file, p.line])).toEqual(expected);
    expect(r.code).toBe(exit);
  });

  it('--strict fails on warnings', async () => {
    expect((await problems('--repo', lint('wait-dependency'), '--strict')).code).toBe(2);
    expect((await problems('--repo', lint('clean'), '--strict')).code).toBe(0);
  });

  it('fails the example with its StorageProfiles back in platform-config, with runtime-crd naming StorageProfile and platform-config, no declaration needed', async () => {
    const r = await cli('check', '--repo', path.join(PROJECT, 'test/fixtures/prefix-cdi'));
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('error runtime-crd  StorageProfile/longhorn-vm');
    expect(r.stdout).toContain('is applied by flux-system/platform-config');
    expect(r.stdout).toContain('Move StorageProfile/longhorn-vm to a new tier with dependsOn: [{name: platform-config}]');
  });

  it('-o github and -o sarif name files from the checkout root when the Flux repository is a folder of it', async () => {
    const gh = await cli('check', '--repo', 'test/fixtures/prefix-cdi', '-o', 'github');
    expect(gh.stdout).toContain('::error file=test/fixtures/prefix-cdi/platform-config/cdi-storageprofiles.yaml,line=9,');
    const sarif = JSON.parse((await cli('check', '--repo', 'test/fixtures/prefix-cdi', '-o', 'sarif')).stdout);
    expect(sarif.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe('test/fixtures/prefix-cdi/platform-config/cdi-storageprofiles.yaml');
    // The JSON keeps paths relative to the repository, as documented.
    expect((await problems('--repo', 'test/fixtures/prefix-cdi')).problems[0]!.file).toBe('platform-config/cdi-storageprofiles.yaml');
  });

  it('passes the example, and reports what the legacy TIER_ORDER misses', async () => {
    expect((await cli('check', '--strict')).code).toBe(0);
    const r = await problems('--legacy-order', 'examples/homelab/bootstrap/standup.sh');
    expect(r.code).toBe(2);
    expect(r.problems.map((p) => p.code)).toEqual(['legacy-order', 'legacy-order']);
  });

  it('a missing --legacy-order file is a clear exit 2', async () => {
    const r = await cli('check', '--legacy-order', 'nope.sh');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot read --legacy-order nope.sh');
  });
});

describe('check with tiers.yaml ignore entries', () => {
  it('suppresses by an entry and names an entry that matches nothing at its line in tiers.yaml', async () => {
    const { mkdtempSync, cpSync, readFileSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(path.join(tmpdir(), 'standup-check-ignore-'));
    try {
      cpSync(lint('unknown-origin'), dir, { recursive: true });
      const tiers = readFileSync(path.join(dir, 'tiers.yaml'), 'utf8');
      writeFileSync(path.join(dir, 'tiers.yaml'), `${tiers.trimEnd()}\nignore:\n  - {code: runtime-crd, group: monitoring.coreos.com, reason: the monitoring stack installs it}\n\n  - code: runtime-crd\n    tier: flux-system/none\n    reason: stale\n`);
      const lines = tiers.trimEnd().split('\n').length;
      const r = await problems('--repo', dir);
      expect(r.problems.map((p) => [p.code, p.file, p.line])).toEqual([['ignore-unmatched', 'tiers.yaml', lines + 4]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
