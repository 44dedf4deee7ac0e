import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/model/errors.js';
import { loadRepository } from '../../src/load/load-repository.js';
import { cleanupRepos, cm, devTiers, ks, makeRepo } from '../helpers/repo-fixtures.js';

afterAll(cleanupRepos);

async function configError(p: Promise<unknown>): Promise<ConfigError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('bad input', () => {
  it('malformed YAML: yaml-invalid with file:line:col, and the tier that failed to build', async () => {
    const root = makeRepo({
      'tiers.yaml': devTiers,
      'clusters/dev/apps.yaml': ks('apps', { path: './apps' }),
      'apps/good.yaml': cm('good'),
      'apps/bad.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  a: b\n  c: d: e\n',
    });
    const r = await loadRepository({ repo: root });
    const yaml = r.problems.filter((p) => p.code === 'yaml-invalid');
    expect(yaml).toHaveLength(1);
    expect(yaml[0]).toMatchObject({ severity: 'error', file: 'apps/bad.yaml', line: 7, cluster: 'dev', object: 'Kustomization/flux-system/apps' });
    expect(yaml[0]!.message).toMatch(/^apps\/bad\.yaml:7:6: /);
    expect(r.problems.find((p) => p.code === 'build-failed')?.message).toContain('tier flux-system/apps');
    // The graph still loads: the tier is a node.
    expect(r.clusters[0]!.kustomizations.map((k) => k.key)).toEqual(['flux-system/apps']);
  });

  it.each([
    ['the tier\'s own kustomization.yaml', 'apps/kustomization.yaml', { 'apps/kustomization.yaml': 'resources:\n  - good.yaml\n   - bad: [\n', 'apps/good.yaml': cm('good') }],
    ['a base its kustomization.yaml reads', 'base/kustomization.yml', {
      'apps/kustomization.yaml': 'resources:\n  - ../base\n', 'base/kustomization.yml': 'resources:\n  - good.yaml\nnamePrefix: [a\n', 'base/good.yaml': cm('good'),
    }],
  ])('malformed YAML in %s: blamed on that file:line, naming the Kustomization whose build reads it', async (_n, broken, files) => {
    const root = makeRepo({ 'tiers.yaml': devTiers, 'clusters/dev/apps.yaml': ks('apps', { path: './apps' }), ...files });
    const r = await loadRepository({ repo: root });
    const yaml = r.problems.filter((p) => p.code === 'yaml-invalid');
    expect(yaml.map((p) => p.file)).toEqual([broken]);
    expect(yaml[0]!.message).toMatch(/Fix the YAML there/);
    const failed = r.problems.find((p) => p.code === 'build-failed')!;
    expect(failed).toMatchObject({ file: broken, line: yaml[0]!.line, object: 'Kustomization/flux-system/apps' });
    expect(failed.message).toContain(`Cause: ${broken}:${yaml[0]!.line} is not valid YAML; fix it there (flux-system/apps, clusters/dev/apps.yaml:`);
  });

  it('missing path: path-missing naming the Kustomization and its file:line', async () => {
    const root = makeRepo({
      'tiers.yaml': devTiers,
      'clusters/dev/kustomization.yaml': 'resources:\n  - infra.yaml\n',
      'clusters/dev/infra.yaml': `# comment\n${ks('infra', { path: './does/not/exist' })}`,
    });
    const r = await loadRepository({ repo: root });
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatchObject({
      code: 'path-missing',
      severity: 'error',
      file: 'clusters/dev/infra.yaml',
      line: 5,
      object: 'Kustomization/flux-system/infra',
    });
    expect(r.problems[0]!.message).toContain('./does/not/exist');
  });

  it("kustomize failing: build-failed with kustomize's stderr, trimmed, and the tier it was rendering", async () => {
    const root = makeRepo({
      'tiers.yaml': devTiers,
      'clusters/dev/apps.yaml': ks('apps', { path: './apps' }),
      'clusters/dev/infra.yaml': ks('infra', { path: './infra' }),
      'infra/cm.yaml': cm('fine'),
      'apps/kustomization.yaml': 'configMapGenerator:\n  - name: scripts\n    files:\n      - run.sh\n',
    });
    const r = await loadRepository({ repo: root });
    const failed = r.problems.filter((p) => p.code === 'build-failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ file: 'clusters/dev/apps.yaml', line: 4, object: 'Kustomization/flux-system/apps', cluster: 'dev' });
    expect(failed[0]!.message).toContain('failed while rendering tier flux-system/apps');
    expect(failed[0]!.message).toContain('run.sh');
    expect(failed[0]!.message).not.toContain(root);
    expect(failed[0]!.message).not.toMatch(/E\d{4} |run\.go/);
    // The other tier still renders.
    expect(r.clusters[0]!.objects.some((o) => o.name === 'fine')).toBe(true);
  });

  it('unknown cluster name: ConfigError listing the known names', async () => {
    const root = makeRepo({ 'tiers.yaml': `${devTiers}  prod:\n    path: clusters/dev\n`, 'clusters/dev/a.yaml': cm('a') });
    const e = await configError(loadRepository({ repo: root, clusters: ['staging'] }));
    expect(e.code).toBe('UNKNOWN_CLUSTER');
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain('"staging"');
    expect(e.message).toContain('known clusters: dev, prod');
  });

  it('tiers.yaml with an unknown key: ConfigError with file:line:col', async () => {
    const root = makeRepo({ 'tiers.yaml': 'clusters:\n  dev:\n    path: clusters/dev\n    resetable: true\n', 'clusters/dev/a.yaml': cm('a') });
    const e = await configError(loadRepository({ repo: root }));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toContain('tiers.yaml:4:5: clusters.dev: unknown key "resetable"');
  });

  it('tiers.yaml with a wrong type: ConfigError with file:line:col and the expected type', async () => {
    const root = makeRepo({ 'tiers.yaml': 'clusters:\n  dev:\n    path: clusters/dev\n    identicalTo: prod\n', 'clusters/dev/a.yaml': cm('a') });
    const e = await configError(loadRepository({ repo: root }));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toMatch(/tiers\.yaml:4:18: clusters\.dev\.identicalTo: .*expected array/);
  });

  it('a missing repository or entry path is a ConfigError naming it', async () => {
    const missing = path.join(mkdtempSync(path.join(tmpdir(), 'standup-none-')), 'nope');
    expect((await configError(loadRepository({ repo: missing }))).code).toBe('REPO_NOT_FOUND');
    const root = makeRepo({ 'clusters/dev/a.yaml': cm('a') });
    const e = await configError(loadRepository({ repo: root, path: 'clusters/prod' }));
    expect(e.code).toBe('PATH_NOT_FOUND');
    expect(e.message).toContain('clusters/prod');
    const e2 = await configError(loadRepository({ repo: makeRepo({ 'tiers.yaml': devTiers }) }));
    expect(e2.code).toBe('PATH_NOT_FOUND');
    expect(e2.message).toContain('clusters/dev');
  });

  it('no kustomize on PATH: a clear ConfigError', async () => {
    const root = makeRepo({ 'tiers.yaml': devTiers, 'clusters/dev/a.yaml': cm('a') });
    const saved = process.env.PATH;
    process.env.PATH = mkdtempSync(path.join(tmpdir(), 'standup-empty-path-'));
    try {
      const e = await configError(loadRepository({ repo: root }));
      expect(e.code).toBe('KUSTOMIZE_NOT_FOUND');
      expect(e.message).toMatch(/kustomize.*kubectl/);
    } finally {
      process.env.PATH = saved;
    }
  });

  it('a repository with nothing to load says how to point at an entry', async () => {
    const e = await configError(loadRepository({ repo: makeRepo({ 'README.md': 'hi' }) }));
    expect(e.code).toBe('NO_CLUSTERS');
    expect(e.hint).toContain('--path');
  });
});
