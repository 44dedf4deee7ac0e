// What a runner test on the testbed needs around its own namespace: a repository served and checked out, a
// Deployment that never becomes ready, and the clean-up of what the test made.

import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { rmSync } from 'node:fs';
import { describe as describeFlux } from '../testbed/flux-client.js';
import type { TestbedClient } from '../testbed/harness.js';
import { serveFixture, type RepoSpec } from './fixture-repo.js';
import { kube, until } from './kube.js';

/** A Deployment of one pod whose container runs `image` (pulled as `pullPolicy` says). */
export const deploymentYaml = (name: string, ns: string, image: string, pullPolicy = 'Never') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  replicas: 1
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
        - name: manager
          image: ${image}
          imagePullPolicy: ${pullPolicy}
`;

/** Everything a test made in namespace `ns`, root sync first (its prune takes the tiers), then the namespace. */
export async function cleanupNamespace(kc: KubeConfig, ns: string): Promise<void> {
  const k = kube(kc);
  // A suspended root would not prune: resume it, then delete.
  await kc.makeApiClient(CustomObjectsApi).patchNamespacedCustomObject({ group: 'kustomize.toolkit.fluxcd.io', version: 'v1', plural: 'kustomizations', namespace: ns, name: 'root', body: { spec: { suspend: null } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)).catch(() => undefined);
  for (const ks of await k.kustomizations(ns).catch(() => [])) await k.deleteKs(ks.metadata.name, ns);
  await until(`the Kustomizations of ${ns} to be gone`, async () => (await k.kustomizations(ns).catch(() => [])).length === 0, 120_000).catch(async (e) => {
    // What holds them (a finalizer KC has not finished) is what the next person needs to see.
    const left = await k.kustomizations(ns).catch(() => []);
    throw new Error(`${e.message}; still there:\n${left.map((x) => `${describeFlux(x)} metadata=${JSON.stringify(x.metadata)}`).join('\n')}`);
  });
  await k.deleteGit('src', ns).catch(() => undefined);
  await kc.makeApiClient(CoreV1Api).deleteNamespace({ name: ns }).catch(() => undefined);
  await until(`namespace ${ns} to be gone`, async () => (await k.namespace(ns)) === null, 120_000);
}

/** Repositories served on the testbed, one namespace each; `cleanup()` removes them all (root sync first). */
export function namespacedFixtures(tb: () => TestbedClient) {
  const made: { ns: string; dir: string }[] = [];
  return {
    async fixture(name: string, spec: RepoSpec) {
      const f = await serveFixture(tb().git, name, spec);
      made.push({ ns: spec.ns, dir: f.dir });
      const t = (cmd: string, ...extra: string[]) => [cmd, '--repo', f.dir, '--cluster', 't', '--kubeconfig', tb().kubeconfigPath, ...extra];
      return { ...f, t };
    },
    async cleanup() {
      for (const { ns, dir } of made) {
        await cleanupNamespace(tb().kubeConfig(), ns);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** The process's result, or (after `ms`) the result of killing it: a hang fails the test with its output. */
export async function settled<T>(child: PromiseLike<T> & { kill(signal?: 'SIGKILL'): boolean }, ms: number): Promise<T> {
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  try {
    return await child;
  } finally {
    clearTimeout(timer);
  }
}
