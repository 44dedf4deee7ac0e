import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { lastLoadStats, loadRepository } from '../../src/repo/load.js';
import { findKustomize } from '../../src/repo/kustomize.js';
import { cleanupRepos, cm, devTiers, ks, makeRepo } from './helpers.js';

afterAll(cleanupRepos);

function repoWithTiers(n: number, broken = 0): string {
  const files: Record<string, string> = { 'tiers.yaml': devTiers };
  // Broken tiers fail their build: one with a missing generator input (seen before building, built alone), one
  // with a YAML error (found only when its batch fails, then retried).
  for (let i = 0; i < broken; i++) {
    files[`clusters/dev/broken${i}.yaml`] = ks(`broken${i}`, { path: `./broken/b${i}` });
    files[`broken/b${i}/${i % 2 ? 'bad.yaml' : 'kustomization.yaml'}`] = i % 2 ? 'a: b: c\n' : 'configMapGenerator:\n  - name: x\n    files: [missing.sh]\n';
  }
  for (let i = 0; i < n; i++) {
    files[`clusters/dev/t${i}.yaml`] = ks(`t${i}`, { path: `./apps/t${i}` });
    files[`apps/t${i}/ns.yaml`] = cm(`cm-${i}`, { i: String(i) }, 'default');
    // Every tier has an object with the same id as the others': batching must keep them apart.
    files[`apps/t${i}/same.yaml`] = cm('same-name', { from: String(i) }, 'default');
  }
  return makeRepo(files);
}

/** A `kustomize` on PATH that records how many builds run at once, then runs the real one. */
function countingKustomize(): { dir: string; log: string } {
  const real = findKustomize();
  const dir = mkdtempSync(path.join(tmpdir(), 'standup-fake-kustomize-'));
  const log = path.join(dir, 'log');
  writeFileSync(log, '');
  const script = `#!/bin/sh
# usage: kustomize build DIR [flags]
mkdir -p "${dir}/running"; touch "${dir}/running/$$"
ls "${dir}/running" | wc -l >> "${log}"
sleep 0.3
shift
${real.command.map((c) => `'${c}'`).join(' ')} "$@"; rc=$?
rm -f "${dir}/running/$$"
exit $rc
`;
  writeFileSync(path.join(dir, 'kustomize'), script);
  chmodSync(path.join(dir, 'kustomize'), 0o755);
  return { dir, log };
}

describe('parallel loading', () => {
  it('renders independent paths in parallel, never more kustomize processes than the bound', async () => {
    const root = repoWithTiers(8, 2);
    const fake = countingKustomize();
    const saved = process.env.PATH;
    process.env.PATH = `${fake.dir}${path.delimiter}${saved}`;
    try {
      const r = await loadRepository({ repo: root, concurrency: 2 });
      const counts = readFileSync(fake.log, 'utf8').trim().split('\n').map(Number);
      expect(Math.max(...counts)).toBeLessThanOrEqual(2);
      expect(r.clusters[0]!.kustomizations).toHaveLength(10);
      expect(r.problems.filter((p) => p.code === 'build-failed').map((p) => p.object)).toEqual([
        'Kustomization/flux-system/broken0',
        'Kustomization/flux-system/broken1',
      ]);
      // The eight good tiers rendered all their objects, whatever failed beside them.
      expect(r.clusters[0]!.objects.filter((o) => o.name === 'same-name')).toHaveLength(8);
      // 1 entry + 10 tiers built in fewer processes than paths: independent paths share a kustomize run.
      expect(lastLoadStats.builds).toBe(11);
      expect(lastLoadStats.spawned).toBeLessThan(11);
    } finally {
      process.env.PATH = saved;
    }
  });

  it('gives the same model whatever the concurrency, objects with equal ids kept apart per tier', async () => {
    const root = repoWithTiers(5);
    const one = await loadRepository({ repo: root, concurrency: 1 });
    const four = await loadRepository({ repo: root, concurrency: 4 });
    const shape = (r: typeof one) =>
      r.clusters[0]!.objects.map((o) => `${o.owner} ${o.kind} ${o.name} ${JSON.stringify(o.raw)} ${o.origin.file}:${o.origin.line}`).sort();
    expect(shape(four)).toEqual(shape(one));
    const same = one.clusters[0]!.objects.filter((o) => o.name === 'same-name');
    expect(same.map((o) => `${o.owner}=${(o.raw.data as { from: string }).from}`).sort()).toEqual([
      'flux-system/t0=0',
      'flux-system/t1=1',
      'flux-system/t2=2',
      'flux-system/t3=3',
      'flux-system/t4=4',
    ]);
    expect(one.problems).toEqual([]);
  });
});

describe('--rev: reading a git revision, not the working tree', () => {
  it('loads the committed tree and leaves the working tree alone', async () => {
    const root = makeRepo({ 'tiers.yaml': devTiers, 'clusters/dev/a.yaml': ks('a', { path: './apps/a' }), 'apps/a/cm.yaml': cm('committed') });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
    git('init', '-q');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '.');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'one');
    writeFileSync(path.join(root, 'apps/a/cm.yaml'), cm('working-tree'));
    const atHead = await loadRepository({ repo: root, rev: 'HEAD' });
    expect(atHead.root).toBe(root);
    expect(atHead.clusters[0]!.objects.map((o) => o.name)).toContain('committed');
    expect(atHead.clusters[0]!.objects.find((o) => o.name === 'committed')?.origin.file).toBe('apps/a/cm.yaml');
    const work = await loadRepository({ repo: root });
    expect(work.clusters[0]!.objects.map((o) => o.name)).toContain('working-tree');
    await expect(loadRepository({ repo: root, rev: 'no-such-rev' })).rejects.toMatchObject({ code: 'REV_NOT_FOUND' });
  });
});

describe('batched builds give what solo builds give', () => {
  it("a name reference is resolved within its own tier, never to another tier's object", async () => {
    const rbac =
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\nrules: []\n---\n' +
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: read\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: reader\nsubjects:\n  - kind: ServiceAccount\n    name: app\n    namespace: default\n';
    // The same folder twice (two Kustomizations, two overlays), and a third tier that only refers to the role.
    const root = makeRepo({
      'tiers.yaml': devTiers,
      'clusters/dev/a.yaml': ks('a', { path: './rbac' }),
      'clusters/dev/b.yaml': ks('b', { path: './rbac', targetNamespace: 'other' }),
      'clusters/dev/c.yaml': ks('c', { path: './bindings' }),
      'rbac/kustomization.yaml': 'resources: [rbac.yaml]\n',
      'rbac/rbac.yaml': rbac,
      'bindings/kustomization.yaml': 'resources: [binding.yaml]\n',
      'bindings/binding.yaml': rbac.split('---\n')[1]!.replace('name: read', 'name: read-too'),
    });
    // One process slot: the three tiers go into one batch.
    const r = await loadRepository({ repo: root, concurrency: 1 });
    expect(lastLoadStats.spawned).toBe(2);
    const refs = r.clusters[0]!.objects.filter((o) => o.kind === 'ClusterRoleBinding').map((o) => `${o.owner} ${o.name} -> ${(o.raw as { roleRef: { name: string } }).roleRef.name}`);
    expect(refs.sort()).toEqual(['flux-system/a read -> reader', 'flux-system/b read -> reader', 'flux-system/c read-too -> reader']);
  });
});
