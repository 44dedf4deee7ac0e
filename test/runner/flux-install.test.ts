import { describe, expect, it } from 'vitest';
import type { K8sObject } from '../../src/cluster/client.js';
import { waitFluxControllers } from '../../src/runner/install.js';
import { StepTracker } from '../../src/runner/steps.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { FakeCluster } from '../fakes/fake-cluster.js';

// The Flux install's wait, against the one fake; the real-node proofs are in
// test/integration/flux-install.test.ts, the node-less ones in test/integration/runner-failures.test.ts.

const deployment = (name: string, status: Record<string, unknown> = {}): K8sObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'flux-system', generation: 1 },
  spec: { replicas: 1, selector: { matchLabels: { app: name } } },
  status,
});
const availableStatus = { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [{ type: 'Available', status: 'True' }, { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }] };
const pod = (app: string, waiting: string): K8sObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `${app}-abc`, namespace: 'flux-system', labels: { app } },
  spec: { nodeName: 'node-1' },
  status: { phase: 'Pending', containerStatuses: [{ name: 'manager', ready: false, state: { waiting: { reason: waiting } } }] },
});
const refs = (...names: string[]) => names.map((name) => ({ kind: 'Deployment', namespace: 'flux-system', name }));

const wait = (client: FakeCluster, o: { names: string[]; file?: string; timeoutMs?: number; signal?: AbortSignal; pollMs?: number; clock?: FakeClock }) =>
  waitFluxControllers({
    client, steps: new StepTracker(() => {}), id: 'install', signal: o.signal ?? new AbortController().signal, deployments: refs(...o.names),
    file: o.file ?? 'gotk.yaml', timeoutMs: o.timeoutMs ?? 60_000, clock: o.clock ?? new FakeClock(), ...(o.pollMs ? { pollMs: o.pollMs } : {}),
  });

describe('waiting for the Flux controllers', () => {
  it('resolves once every controller Deployment is Available', async () => {
    const client = new FakeCluster();
    for (const n of ['source-controller', 'kustomize-controller']) client.put(deployment(n, availableStatus));
    client.put({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } });
    expect(await wait(client, { names: ['source-controller', 'kustomize-controller'] })).toBe('2 controller Deployment(s) Available');
  });

  it('fails fast naming the Deployment and its pod\'s reason when a pod is stuck on its image', async () => {
    const client = new FakeCluster();
    client.put({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } });
    client.put(deployment('source-controller', availableStatus));
    client.put(deployment('kustomize-controller', { observedGeneration: 1, replicas: 1, updatedReplicas: 1 }));
    client.put(pod('kustomize-controller', 'ErrImageNeverPull'));
    const e = (await wait(client, { names: ['source-controller', 'kustomize-controller'], file: 'clusters/dev/flux-system/gotk-components.yaml' }).catch((x: unknown) => x)) as Error & { exitCode: number; hint: string };
    expect(e.exitCode).toBe(1);
    expect(e.message).toBe('Flux install from clusters/dev/flux-system/gotk-components.yaml cannot start: Deployment/flux-system/kustomize-controller: 0/1 ready; kustomize-controller-abc: ErrImageNeverPull (container manager)');
    expect(e.hint).toContain('Check the controller images named in clusters/dev/flux-system/gotk-components.yaml');
  });

  it('times out on a Deployment that is only slow, and says where it is (exit 3)', async () => {
    const client = new FakeCluster();
    client.put(deployment('helm-controller'));
    const e = (await wait(client, { names: ['helm-controller'], timeoutMs: 10_000 }).catch((x: unknown) => x)) as Error & { exitCode: number };
    expect(e.exitCode).toBe(3);
    expect(e.message).toBe('Flux install from gotk.yaml: not Available after 10s: Deployment/flux-system/helm-controller: 0/1 ready; no pods yet');
  });

  it('stops waiting at once when the run is interrupted', async () => {
    const client = new FakeCluster();
    client.put(deployment('source-controller'));
    const ac = new AbortController();
    const clock = new FakeClock();
    const waiting = wait(client, { names: ['source-controller'], signal: ac.signal, pollMs: 60_000, clock });
    clock.at(10, () => ac.abort());
    await expect(waiting).rejects.toMatchObject({ code: 'INTERRUPTED' });
  });
});
