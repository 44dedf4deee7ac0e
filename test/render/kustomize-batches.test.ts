import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/load/load-repository.js';
import { findKustomize } from '../../src/repo/find-kustomize.js';
import { boundByObjects, MAX_BATCH_OBJECTS } from '../../src/render/kustomize-batches.js';
import { cleanupRepos, cm, devTiers, ks, makeRepo } from '../helpers/repo-fixtures.js';

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
      // Sorted by file: the YAML error is blamed on its own file (broken/b1/bad.yaml), the missing input on the tier.
      expect(r.problems.filter((p) => p.code === 'build-failed').map((p) => `${p.object} ${p.file}`)).toEqual([
        'Kustomization/flux-system/broken1 broken/b1/bad.yaml',
        'Kustomization/flux-system/broken0 clusters/dev/broken0.yaml',
      ]);
      // The eight good tiers rendered all their objects, whatever failed beside them.
      expect(r.clusters[0]!.objects.filter((o) => o.name === 'same-name')).toHaveLength(8);
      // 1 entry + 10 tiers built in fewer processes than paths: independent paths share a kustomize run.
      expect(r.stats.builds).toBe(11);
      expect(r.stats.spawned).toBeLessThan(11);
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
    expect(r.stats.spawned).toBe(2);
    const refs = r.clusters[0]!.objects.filter((o) => o.kind === 'ClusterRoleBinding').map((o) => `${o.owner} ${o.name} -> ${(o.raw as { roleRef: { name: string } }).roleRef.name}`);
    expect(refs.sort()).toEqual(['flux-system/a read -> reader', 'flux-system/b read -> reader', 'flux-system/c read-too -> reader']);
  });
});

describe('kustomize runs bounded by objects, not only by requests', () => {
  const p = (objects?: number) => ({ req: { objects } });

  it('splits a batch in order at the cap, a request over the cap alone, one of unknown size counted as the mean', () => {
    const sizes = (b: { req: { objects?: number } }[][]) => b.map((c) => c.map((x) => x.req.objects ?? '?'));
    expect(sizes(boundByObjects([p(150), p(150), p(150), p(500), p(10), p(10)], 400))).toEqual([[150, 150], [150], [500], [10, 10]]);
    // Unknown: the mean of the known (200), so two fit under 400 but three do not.
    expect(sizes(boundByObjects([p(200), p(), p(200), p()], 400))).toEqual([[200, '?'], [200, '?']]);
    // Nothing known: the batch as it was.
    expect(sizes(boundByObjects([p(), p(), p()], 1))).toEqual([['?', '?', '?']]);
  });

  it('builds tiers whose files hold more than a run should in several kustomize runs, with the same model', async () => {
    const per = Math.ceil(MAX_BATCH_OBJECTS * 0.4);
    const files: Record<string, string> = { 'tiers.yaml': devTiers };
    for (let i = 0; i < 5; i++) {
      files[`clusters/dev/t${i}.yaml`] = ks(`t${i}`, { path: `./apps/t${i}` });
      files[`apps/t${i}/cms.yaml`] = Array.from({ length: per }, (_, j) => cm(`cm-${i}-${j}`, { j: String(j) }, 'default')).join('---\n');
    }
    const root = makeRepo(files);
    // One process slot: without the bound the five tiers are one batch (2 runs with the entry's).
    const r = await loadRepository({ repo: root, concurrency: 1 });
    expect(r.problems).toEqual([]);
    expect(r.clusters[0]!.objects.filter((o) => o.kind === 'ConfigMap')).toHaveLength(5 * per);
    // Two tiers per run (0.8 of the cap), so 3 runs for the five, plus the entry's.
    expect(r.stats.spawned).toBe(4);
  });
});
