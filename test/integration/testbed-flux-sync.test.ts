// Ground truth: Flux syncs a fixture repository served by the loopback git
// server, in dependsOn order, and labels what it applies.
import path from 'node:path';
import { CoreV1Api, CustomObjectsApi, type KubernetesListObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect } from '../testbed/harness.js';
import { repoRoot } from '../testbed/paths.js';
import { ensureNamespace } from '../testbed/kube.js';
import {
  GIT_REPOSITORY,
  KUSTOMIZATION,
  applyFlux,
  condition,
  deleteAllFlux,
  gitRepository,
  isReady,
  kustomization,
  waitFlux,
  type FluxObject,
} from '../testbed/flux-client.js';

const tb = connect(inject('testbed'));
const kc = tb.kubeConfig();
const fixture = path.join(repoRoot, 'test/fixtures/testbed/basic');
// Flux objects of this file live in their own namespace (other files share the cluster).
const NS = 'flux-basic';
const opts = { namespace: NS };

beforeAll(() => ensureNamespace(kc, NS));
afterAll(() => deleteAllFlux(kc, NS));

describe('testbed: Flux syncs a repo from the loopback git server', () => {
  it('GitRepository and every Kustomization become Ready at the pushed commit; objects carry owner labels', async () => {
    const sha = await tb.git.createRepo('basic', fixture);
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    const revision = `main@sha1:${sha}`;

    await applyFlux(kc, gitRepository('basic', tb.git.url('basic'), opts));
    await applyFlux(kc, kustomization('basic', { path: './clusters/testbed', source: 'basic', ...opts }));

    const repo = await waitFlux(kc, GIT_REPOSITORY, 'basic', isReady, opts);
    expect(repo.status?.artifact?.revision).toBe(revision);
    expect(condition(repo)?.reason).toBe('Succeeded');
    expect(condition(repo)?.message).toBe(`stored artifact for revision '${revision}'`);
    expect(repo.status?.artifact?.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${tb.ports.sourceStorage}/gitrepository/${NS}/basic/${sha}\\.tar\\.gz$`));

    for (const name of ['basic', 'basic-infrastructure', 'basic-apps']) {
      const ks = await waitFlux(kc, KUSTOMIZATION, name, (o) => isReady(o) && o.status?.lastAppliedRevision === revision, opts);
      expect(condition(ks)?.reason).toBe('ReconciliationSucceeded');
      expect(condition(ks)?.message).toBe(`Applied revision: ${revision}`);
      expect(ks.status?.lastAttemptedRevision).toBe(revision);
    }

    // Every Kustomization from this source is Ready, not just the ones named above.
    const all = (await kc.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
      group: KUSTOMIZATION.group,
      version: KUSTOMIZATION.version,
      plural: KUSTOMIZATION.plural,
      namespace: NS,
    })) as KubernetesListObject<FluxObject>;
    const fromBasic = all.items.filter((k) => (k.spec?.sourceRef as { name?: string } | undefined)?.name === 'basic');
    expect(fromBasic.map((k) => k.metadata?.name).sort()).toEqual(['basic', 'basic-apps', 'basic-infrastructure']);
    for (const k of fromBasic) expect(condition(k)?.status, k.metadata?.name).toBe('True');

    const core = kc.makeApiClient(CoreV1Api);
    const ns = await core.readNamespace({ name: 'tb-basic' });
    expect(ns.metadata?.labels).toMatchObject({
      'kustomize.toolkit.fluxcd.io/name': 'basic-infrastructure',
      'kustomize.toolkit.fluxcd.io/namespace': NS,
    });
    const cm = await core.readNamespacedConfigMap({ name: 'app-config', namespace: 'tb-basic' });
    expect(cm.data).toEqual({ greeting: 'hello' });
    expect(cm.metadata?.labels).toMatchObject({
      'kustomize.toolkit.fluxcd.io/name': 'basic-apps',
      'kustomize.toolkit.fluxcd.io/namespace': NS,
    });
    // The root applied the two tier objects, so they carry its labels.
    const apps = await waitFlux(kc, KUSTOMIZATION, 'basic-apps', () => true, opts);
    expect(apps.metadata?.labels).toMatchObject({ 'kustomize.toolkit.fluxcd.io/name': 'basic' });
    expect(apps.status?.inventory?.entries).toEqual([{ id: 'tb-basic_app-config__ConfigMap', v: 'v1' }]);
  });
});
