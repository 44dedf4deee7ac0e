import { describe, expect, it } from 'vitest';
import type { K8sObject } from '../../src/cluster/client.js';
import type { RootSync } from '../../src/plan/plan.js';
import { mirrorSync } from '../../src/runner/root-sync.js';

const MIRROR = 'http://10.213.0.1:8080/mirror.git';
const source = { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' };
const repo: K8sObject = { apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'GitRepository', metadata: { name: 'flux-system', namespace: 'flux-system' }, spec: { url: 'https://git.example/home.git' } };
const ks = (name: string, spec: Record<string, unknown> = {}): K8sObject => ({
  apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
  kind: 'Kustomization',
  metadata: { name, namespace: 'flux-system' },
  spec: { path: `./clusters/${name}`, sourceRef: { kind: 'GitRepository', name: 'flux-system' }, ...spec },
});
const urlOf = (objs: K8sObject[]) => (objs.find((o) => o.kind === 'GitRepository')!.spec as { url: string }).url;
const patchedOf = (objs: K8sObject[]) => objs.filter((o) => Array.isArray((o.spec as { patches?: unknown }).patches)).map((o) => o.metadata.name);

describe('mirrorSync', () => {
  it('points the source at the mirror and patches the root Kustomization the plan names', () => {
    const root: RootSync = { key: 'flux-system/cluster', ks: { kind: 'Kustomization', namespace: 'flux-system', name: 'cluster' }, source };
    const out = mirrorSync([repo, ks('cluster'), ks('other', { sourceRef: { kind: 'GitRepository', name: 'elsewhere' } })], root, MIRROR, 'clusters/dev/flux-system');
    expect(urlOf(out)).toBe(MIRROR);
    expect(patchedOf(out)).toEqual(['cluster']);
  });

  it('with no root in the entry\'s build (a sync folder beside the entry), patches the one Kustomization of the sync that reads the root source', () => {
    // The up benchmark's joryirving graph: bootstrap/sync holds the root, the entry does not; this was refused.
    const root: RootSync = { key: null, ks: null, source };
    const out = mirrorSync([repo, ks('cluster-apps'), ks('unrelated', { sourceRef: { kind: 'OCIRepository', name: 'flux-system' } })], root, MIRROR, 'bootstrap/sync');
    expect(patchedOf(out)).toEqual(['cluster-apps']);
  });

  it.each([
    ['no root key and two Kustomizations read the source: which one is the root is not known', { key: null, source } as RootSync, [repo, ks('a'), ks('b')], 'MIRROR_NO_ROOT'],
    ['no root key and none reads the source', { key: null, source } as RootSync, [repo], 'MIRROR_NO_ROOT'],
    ['the sync holds no source', { key: 'flux-system/cluster', source } as RootSync, [ks('cluster')], 'MIRROR_NO_SOURCE'],
    ['the root declares spec.patches in git (kustomize-controller would drop the mirror\'s)', { key: 'flux-system/cluster', source } as RootSync, [repo, ks('cluster', { patches: [] })], 'MIRROR_WOULD_NOT_HOLD'],
    ['a source kind that has no URL to point elsewhere', { key: 'flux-system/cluster', source: { ...source, kind: 'Bucket' } } as RootSync, [repo, ks('cluster')], 'MIRROR_UNSUPPORTED'],
  ])('refuses when %s', (_name, root, sync, code) => {
    expect(() => mirrorSync(sync, root, MIRROR, 'bootstrap/sync')).toThrow(expect.objectContaining({ code }));
  });
});
