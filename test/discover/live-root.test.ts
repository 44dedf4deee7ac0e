// Discovery picks the live root: a root sync whose own path does not apply its file is an old twin beside a live root
// of the same repository, and Flux's self-upgrade Kustomization (an OCIRepository of the Flux manifests at `path: ./`)
// is no cluster at the repository root.
import { afterAll, describe, expect, it } from 'vitest';
import { discoverRepository, loadRepository } from '../../src/load/load-repository.js';
import { cleanupRepos, cm, gotkSync, ks, makeRepo } from '../helpers/repo-fixtures.js';

afterAll(cleanupRepos);

const sync = (p: string, url = 'https://example.com/fleet.git') => gotkSync(p, url);

const fluxSystem = 'resources: [gotk-sync.yaml]\n';

/** Two roots of one repository over one apps tree: `live` applies its flux-system folder, `old` leaves it out. */
const twins = (oldKustomization: string, oldUrl?: string) => ({
  'clusters/live/flux-system/gotk-sync.yaml': sync('./clusters/live'),
  'clusters/live/flux-system/kustomization.yaml': fluxSystem,
  'clusters/live/kustomization.yaml': 'resources: [flux-system, apps.yaml]\n',
  'clusters/live/apps.yaml': ks('apps', { path: './apps' }),
  'clusters/old/flux-system/gotk-sync.yaml': sync('./clusters/old', oldUrl),
  'clusters/old/flux-system/kustomization.yaml': fluxSystem,
  'clusters/old/kustomization.yaml': oldKustomization,
  'clusters/old/apps.yaml': ks('apps', { path: './apps' }),
  'apps/cm.yaml': cm('a', {}, 'default'),
});

describe('discovery picks the live root', () => {
  it('leaves out a root its own path does not apply (flux-system commented out), with an info naming the live root', async () => {
    const root = makeRepo(twins('resources:\n  # - flux-system\n  - apps.yaml\n'));
    const d = await discoverRepository(root);
    expect(d.entries.map((e) => e.entry)).toEqual(['clusters/live']);
    expect(d.problems).toHaveLength(1);
    expect(d.problems[0]).toMatchObject({ code: 'discovery', severity: 'info', file: 'clusters/old/flux-system/gotk-sync.yaml', line: 13 });
    expect(d.problems[0]!.message).toContain('clusters/live/flux-system/gotk-sync.yaml');
    // check's findings are those of the live cluster only
    const r = await loadRepository({ repo: root });
    expect(r.clusters.map((c) => c.name)).toEqual(['live']);
    expect(r.problems.map((p) => p.code)).toEqual(['discovery']);
  });

  it('keeps both when the stale root reads another repository, or when both apply themselves', async () => {
    const other = await discoverRepository(makeRepo(twins('resources: [apps.yaml]\n', 'https://example.com/other.git')));
    expect(other.entries.map((e) => e.entry)).toEqual(['clusters/live', 'clusters/old']);
    expect(other.problems).toEqual([]);
    const both = await discoverRepository(makeRepo(twins('resources: [flux-system, apps.yaml]\n')));
    expect(both.entries.map((e) => e.entry)).toEqual(['clusters/live', 'clusters/old']);
  });

  it('keeps the only root even when its path does not apply it', async () => {
    const root = makeRepo({
      'clusters/old/flux-system/gotk-sync.yaml': sync('./clusters/old'),
      'clusters/old/flux-system/kustomization.yaml': fluxSystem,
      'clusters/old/kustomization.yaml': 'resources: [apps.yaml]\n',
      'clusters/old/apps.yaml': ks('apps', { path: './apps' }),
      'apps/cm.yaml': cm('a', {}, 'default'),
    });
    expect((await discoverRepository(root)).entries.map((e) => e.entry)).toEqual(['clusters/old']);
  });

  it('a stale root named by --path is loaded', async () => {
    const r = await loadRepository({ repo: makeRepo(twins('resources: [apps.yaml]\n')), path: 'clusters/old' });
    expect(r.clusters.map((c) => c.entry)).toEqual(['clusters/old']);
    expect(r.clusters[0]!.kustomizations.map((k) => k.key)).toContain('flux-system/apps');
  });

  it("Flux's self-upgrade Kustomization (OCIRepository of the Flux manifests, path ./) is not a cluster at the repository root", async () => {
    const upgrade = `---
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: flux-manifests
  namespace: flux-system
spec:
  url: oci://ghcr.io/fluxcd/flux-manifests
  ref:
    tag: v2.6.0
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux
  namespace: flux-system
spec:
  path: ./
  sourceRef:
    kind: OCIRepository
    name: flux-manifests
`;
    const root = makeRepo({
      'clusters/live/flux-system/gotk-sync.yaml': sync('./clusters/live'),
      'clusters/live/flux-system/flux-upgrade.yaml': upgrade,
      'clusters/live/flux-system/kustomization.yaml': 'resources: [gotk-sync.yaml, flux-upgrade.yaml]\n',
      'clusters/live/apps.yaml': ks('apps', { path: './apps' }),
      'apps/cm.yaml': cm('a', {}, 'default'),
    });
    expect((await discoverRepository(root)).entries.map((e) => e.entry)).toEqual(['clusters/live']);
  });
});
