// Ground truth: a commit pushed during the test moves the GitRepository's
// revision and every Kustomization follows it (lastAppliedRevision), including
// the dependent tier behind the revision gate (FLUX.md §1).
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect } from '../testbed/harness.js';
import { repoRoot } from '../testbed/paths.js';
import { ensureNamespace, exists } from '../testbed/kube.js';
import { pollUntil } from '../testbed/wait.js';
import {
  GIT_REPOSITORY,
  KUSTOMIZATION,
  applyFlux,
  condition,
  deleteAllFlux,
  gitRepository,
  isReady,
  kustomization,
  requestReconcile,
  waitFlux,
} from '../testbed/flux-client.js';

const tb = connect(inject('testbed'));
const kc = tb.kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const fixture = path.join(repoRoot, 'test/fixtures/testbed/revision');
const TIERS = ['revision', 'rev-infrastructure', 'rev-apps'];
const NS = 'flux-revision';
const opts = { namespace: NS };

beforeAll(() => ensureNamespace(kc, NS));
afterAll(() => deleteAllFlux(kc, NS));

async function waitAllApplied(revision: string) {
  const repo = await waitFlux(kc, GIT_REPOSITORY, 'revision', (o) => isReady(o) && o.status?.artifact?.revision === revision, opts);
  expect(condition(repo)?.message).toBe(`stored artifact for revision '${revision}'`);
  for (const name of TIERS) {
    const ks = await waitFlux(kc, KUSTOMIZATION, name, (o) => isReady(o) && o.status?.lastAppliedRevision === revision, opts);
    expect(condition(ks)?.message).toBe(`Applied revision: ${revision}`);
  }
}

describe('testbed: a pushed commit moves the revision and the Kustomizations follow', () => {
  it('follows two commits: a change plus an addition, then a deletion (pruned)', async () => {
    const sha1 = await tb.git.createRepo('revision', fixture);
    await applyFlux(kc, gitRepository('revision', tb.git.url('revision'), { interval: '1m', ...opts }));
    await applyFlux(kc, kustomization('revision', { path: './clusters/testbed', source: 'revision', ...opts }));
    await waitAllApplied(`main@sha1:${sha1}`);
    expect((await core.readNamespacedConfigMap({ name: 'app-config', namespace: 'tb-revision' })).data).toEqual({ greeting: 'hello' });

    const sha2 = await tb.git.commitAndPush(
      'revision',
      {
        'apps/configmap.yaml':
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\n  namespace: tb-revision\ndata:\n  greeting: bye\n',
        'apps/extra.yaml':
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: tb-revision\ndata:\n  n: "1"\n',
      },
      'change greeting, add extra',
    );
    expect(sha2).toMatch(/^[0-9a-f]{40}$/);
    expect(sha2).not.toBe(sha1);
    // interval is 1m: without this nudge the test would wait for the timer.
    await requestReconcile(kc, GIT_REPOSITORY, 'revision', NS);
    await waitAllApplied(`main@sha1:${sha2}`);
    expect((await core.readNamespacedConfigMap({ name: 'app-config', namespace: 'tb-revision' })).data).toEqual({ greeting: 'bye' });
    const extra = await core.readNamespacedConfigMap({ name: 'extra', namespace: 'tb-revision' });
    expect(extra.metadata?.labels?.['kustomize.toolkit.fluxcd.io/name']).toBe('rev-apps');

    const sha3 = await tb.git.commitAndPush('revision', { 'apps/extra.yaml': null }, 'remove extra');
    await requestReconcile(kc, GIT_REPOSITORY, 'revision', NS);
    await waitAllApplied(`main@sha1:${sha3}`);
    // prune: true deletes what left the inventory.
    await pollUntil(
      'ConfigMap tb-revision/extra to be pruned',
      async () => ((await exists(() => core.readNamespacedConfigMap({ name: 'extra', namespace: 'tb-revision' }))) ? undefined : true),
      { timeoutMs: 30_000 },
    );
    const apps = await waitFlux(kc, KUSTOMIZATION, 'rev-apps', () => true, opts);
    expect(apps.status?.inventory?.entries).toEqual([{ id: 'tb-revision_app-config__ConfigMap', v: 'v1' }]);
  });
});
