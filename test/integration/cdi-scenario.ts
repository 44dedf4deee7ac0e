import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ApiextensionsV1Api } from '@kubernetes/client-node';
import { parse } from 'yaml';
import type { CrdOperator, TestbedClient } from '../testbed/harness.js';
import { PROJECT } from './cli.js';
import { until, type kube } from './kube.js';

/** The CRDs the seeds' CDI operator creates at runtime, once it sees a CDI resource. */
export const RUNTIME_CRDS = ['storageprofiles.cdi.kubevirt.io', 'datavolumes.cdi.kubevirt.io'];

const crdManifest = (file: string) => parse(readFileSync(path.join(PROJECT, 'examples/homelab/bootstrap/crds', file), 'utf8'));

/**
 * The CDI operator of the seeds: a CDI resource makes it create the StorageProfile and DataVolume CRDs, `delayMs`
 * later. Its CDI has no status, so a `wait: true` tier holding it is healthy at once, not when the CRDs exist.
 */
export function startCdiOperators(tb: TestbedClient, delayMs = 1000): CrdOperator[] {
  return RUNTIME_CRDS.map((crd) => tb.operator.start({ trigger: { group: 'cdi.kubevirt.io', version: 'v1beta1', plural: 'cdis' }, crd: crdManifest(`${crd}.yaml`), delayMs }));
}

/**
 * Removes a scenario of the seeds' layout (the example or the pre-fix fixture): its root sync, its source and the
 * runtime CRDs, so the next scenario (or the next test file on this shared testbed) starts cold.
 */
export async function wipeCdiScenario(tb: TestbedClient, k: ReturnType<typeof kube>): Promise<void> {
  await tb.operator.stopAll();
  await k.deleteKs('flux-system');
  await until('the root sync to be gone', async () => (await k.kustomizations()).length === 0, 120_000);
  await until('pruned namespaces to terminate', async () => (await Promise.all(['cdi', 'kubevirt', 'longhorn-system'].map((n) => k.namespace(n)))).every((n) => n === null), 120_000);
  await k.deleteGit('flux-system');
  for (const c of RUNTIME_CRDS) await k.deleteCrd(c);
  await until('the runtime CRDs to be gone', async () => (await Promise.all(RUNTIME_CRDS.map((c) => k.crd(c)))).every((c) => c === null), 60_000);
  // CRDs the pruned tiers owned may still be terminating; the next scenario's crds tier would re-apply them mid-way.
  const crds = tb.kubeConfig().makeApiClient(ApiextensionsV1Api);
  await until('pruned CRDs to finish terminating', async () => (await crds.listCustomResourceDefinition()).items.every((c) => !c.metadata?.deletionTimestamp), 300_000);
}
