// Ground truth: the seeds' second-order deadlock, for real. A tier that applies
// a CDI and a StorageProfile together never converges, because the
// StorageProfile kind exists only after the CDI operator sees a CDI; the split
// layout (StorageProfile in its own tier, dependsOn the CDI tier) converges.
// The operator is a real pod on the testbed's node (go/apps/cdi-operator).
import path from 'node:path';
import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect } from '../testbed/harness.js';
import { repoRoot } from '../testbed/paths.js';
import { ensureNamespace, exists, httpStatus, namespaceExists } from '../testbed/kube.js';
import { deleteCrd } from '../testbed/operator.js';
import { pollUntil } from '../testbed/wait.js';
import { CDI_GROUP, CDI_VERSION, storageProfileCrd } from '../testbed/cdi.js';
import { applyAll, cdiOperatorManifests, waitDeploymentAvailable } from '../testbed/workloads.js';
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
  type FluxObject,
} from '../testbed/flux-client.js';

const tb = connect(inject('testbed'));
const kc = tb.kubeConfig();
const custom = kc.makeApiClient(CustomObjectsApi);
const fixture = path.join(repoRoot, 'test/fixtures/testbed/cdi');
const SP_CRD = `storageprofiles.${CDI_GROUP}`;
const DEADLOCK = 'dry-run failed: no matches for kind "StorageProfile"';
const OPERATOR_DELAY_MS = 2000;
const NS = 'flux-cdi';
const opts = { namespace: NS };

const crdExists = (name: string): Promise<boolean> => exists(() => kc.makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition({ name }));

async function listCluster(plural: string): Promise<KubernetesObject[]> {
  try {
    const l = (await custom.listClusterCustomObject({ group: CDI_GROUP, version: CDI_VERSION, plural })) as KubernetesListObject<KubernetesObject>;
    return l.items;
  } catch (e) {
    if (httpStatus(e) === 404) return [];
    throw e;
  }
}

let revision = '';
const OPERATOR_NS = 'flux-cdi-operator';
// Only this file's CDIs trigger it: other files (the runner's) leave their own
// CDI objects on the shared cluster.
const operatorManifests = cdiOperatorManifests({
  namespace: OPERATOR_NS,
  name: 'flux-cdi-operator',
  names: ['cdi-combined', 'cdi-split'],
  delay: `${OPERATOR_DELAY_MS}ms`,
  crds: { [`${SP_CRD}.yaml`]: JSON.stringify(storageProfileCrd()) },
});

/** The operator pod's log, through the API server and the node's kubelet. */
async function operatorLog(): Promise<string> {
  const core = kc.makeApiClient(CoreV1Api);
  const pods = await core.listNamespacedPod({ namespace: OPERATOR_NS, labelSelector: 'app=flux-cdi-operator' });
  const name = pods.items.find((p) => p.status?.phase === 'Running')?.metadata?.name;
  if (!name) throw new Error('no running operator pod');
  return core.readNamespacedPodLog({ namespace: OPERATOR_NS, name });
}

const created = (o: KubernetesObject | undefined) => new Date(o?.metadata?.creationTimestamp ?? 0).getTime();

beforeAll(async () => {
  // The operator's CRD must not exist yet, or there is no deadlock to see.
  await deleteCrd(kc, SP_CRD);
  await pollUntil(`${SP_CRD} gone`, async () => ((await crdExists(SP_CRD)) ? undefined : true), { timeoutMs: 30_000 });
  // kustomize-controller's RESTMapper remembers kinds whose CRD was deleted;
  // then the dry-run fails with NotFound, not "no matches for kind". A fresh
  // process sees the cluster as it is (matters when another file made the CRD).
  await tb.restart('kustomize-controller');
  await ensureNamespace(kc, NS);
  await applyAll(kc, operatorManifests);
  await waitDeploymentAvailable(kc, OPERATOR_NS, 'flux-cdi-operator');
  const sha = await tb.git.createRepo('cdi', fixture);
  revision = `main@sha1:${sha}`;
  await applyFlux(kc, gitRepository('cdi', tb.git.url('cdi'), opts));
  await waitFlux(kc, GIT_REPOSITORY, 'cdi', (o) => isReady(o) && o.status?.artifact?.revision === revision, opts);
});

afterAll(async () => {
  // The operator goes with its namespace (its ClusterRole and binding too).
  await kc.makeApiClient(CoreV1Api).deleteNamespace({ name: OPERATOR_NS }).catch(() => undefined);
  await kc.makeApiClient(RbacAuthorizationV1Api).deleteClusterRoleBinding({ name: 'flux-cdi-operator' }).catch(() => undefined);
  await kc.makeApiClient(RbacAuthorizationV1Api).deleteClusterRole({ name: 'flux-cdi-operator' }).catch(() => undefined);
  await pollUntil('the operator to be gone', async () => ((await namespaceExists(kc, OPERATOR_NS)) ? undefined : true), { timeoutMs: 60_000 });
  // Leave no CDI, no runtime CRD and no Flux objects behind: other files
  // (the runner's) start their own CDI operators on this cluster.
  await deleteAllFlux(kc, NS);
  for (const crd of [SP_CRD, `cdis.${CDI_GROUP}`]) await deleteCrd(kc, crd);
  await pollUntil('CDI CRDs gone', async () => ((await crdExists(SP_CRD)) || (await crdExists(`cdis.${CDI_GROUP}`)) ? undefined : true), { timeoutMs: 60_000 });
  // Forget the StorageProfile kind (see beforeAll), so a later file sees the
  // same "no matches for kind" deadlock on a cold controller.
  await tb.restart('kustomize-controller');
});

describe('testbed: the CDI / StorageProfile deadlock', () => {
  it('combined tier stays Ready=False with the dry-run error, and the operator never fires', async () => {
    await applyFlux(kc, kustomization('cdi-combined-root', { path: './clusters/combined', source: 'cdi', ...opts }));
    const failed = (o: FluxObject) =>
      condition(o)?.status === 'False' && (condition(o)?.message ?? '').includes(DEADLOCK) && o.status?.lastAttemptedRevision === revision;
    const first = await waitFlux(kc, KUSTOMIZATION, 'cdi-combined', failed, opts);
    expect(condition(first)?.reason).toBe('ReconciliationFailed');
    expect(condition(first)?.message).toContain(`StorageProfile/sp-combined ${DEADLOCK} in version "${CDI_GROUP}/${CDI_VERSION}"`);

    // Give it time to un-stick itself if it could: several retries (retryInterval
    // 5s) plus the operator delay, then one explicit reconcile.
    await sleep(12_000 + OPERATOR_DELAY_MS);
    const at = await requestReconcile(kc, KUSTOMIZATION, 'cdi-combined', NS);
    const again = await waitFlux(kc, KUSTOMIZATION, 'cdi-combined', (o) => o.status?.lastHandledReconcileAt === at && condition(o)?.status !== 'Unknown', opts);
    expect(failed(again), JSON.stringify(again.status)).toBe(true);
    expect(again.status?.lastAppliedRevision).toBeUndefined();

    // Nothing of the tier's second stage was applied: no CDI, so no operator, so no kind.
    expect((await listCluster('cdis')).map((o) => o.metadata?.name)).not.toContain('cdi-combined');
    expect(await operatorLog()).not.toContain('trigger seen');
    expect(await crdExists(SP_CRD)).toBe(false);
    // The CRD stage did go through (CRDs are applied before the dry-run of the rest).
    expect(await crdExists(`cdis.${CDI_GROUP}`)).toBe(true);
  });

  it('split layout converges: the CDI tier applies, the operator installs the kind, the dependent tier applies', async () => {
    await applyFlux(kc, kustomization('cdi-split-root', { path: './clusters/split', source: 'cdi', ...opts }));
    const op = await waitFlux(kc, KUSTOMIZATION, 'cdi-operator', (o) => isReady(o) && o.status?.lastAppliedRevision === revision, opts);
    expect(condition(op)?.message).toBe(`Applied revision: ${revision}`);

    await pollUntil(`the operator to create ${SP_CRD}`, async () => ((await crdExists(SP_CRD)) ? true : undefined), { timeoutMs: 60_000 });
    const cdi = (await listCluster('cdis')).find((o) => o.metadata?.name === 'cdi-split');
    const crd = await kc.makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition({ name: SP_CRD });
    // The API server's own timestamps (whole seconds): the kind appeared only after the operator's delay.
    expect(created(crd as KubernetesObject) - created(cdi)).toBeGreaterThanOrEqual(OPERATOR_DELAY_MS - 1000);
    expect(await operatorLog()).toMatch(/trigger seen[\s\S]*installed CRD storageprofiles\.cdi\.kubevirt\.io/);

    const cfg = await waitFlux(kc, KUSTOMIZATION, 'cdi-config', (o) => isReady(o) && o.status?.lastAppliedRevision === revision, opts);
    expect(condition(cfg)?.message).toBe(`Applied revision: ${revision}`);
    expect(cfg.status?.inventory?.entries).toEqual([{ id: `_sp-split_${CDI_GROUP}_StorageProfile`, v: CDI_VERSION }]);

    const sps = await listCluster('storageprofiles');
    const sp = sps.find((o) => o.metadata?.name === 'sp-split');
    expect(sp?.metadata?.labels).toMatchObject({
      'kustomize.toolkit.fluxcd.io/name': 'cdi-config',
      'kustomize.toolkit.fluxcd.io/namespace': NS,
    });
    expect((await listCluster('cdis')).map((o) => o.metadata?.name)).toContain('cdi-split');
  });
});
