import { describe, expect, it } from 'vitest';
import type { K8sObject } from '../../src/cluster/client.js';
import { FakeClusterClient } from '../../src/cluster/fake.js';
import { FluxInstallError, waitFluxInstall } from '../../src/runner/flux-install.js';

const deployment = (name: string, status: Record<string, unknown> = {}): K8sObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'flux-system', generation: 1 },
  spec: { replicas: 1, selector: { matchLabels: { app: name } } },
  status,
});
const availableStatus = { observedGeneration: 1, readyReplicas: 1, conditions: [{ type: 'Available', status: 'True' }] };
const pod = (app: string, waiting: string): K8sObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `${app}-abc`, namespace: 'flux-system', labels: { app } },
  status: { phase: 'Pending', containerStatuses: [{ name: 'manager', ready: false, state: { waiting: { reason: waiting } } }] },
});

function clock() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms) };
}

describe('waitFluxInstall', () => {
  it('resolves once every controller Deployment is Available', async () => {
    const client = new FakeClusterClient();
    const objs = [deployment('source-controller'), deployment('kustomize-controller')];
    for (const d of objs) client.set({ ...d, status: availableStatus });
    const events: unknown[] = [];
    expect(await waitFluxInstall({ client, objects: objs, emit: (e) => events.push(e), id: 'bootstrap', file: 'gotk.yaml', ...clock() })).toBe('2 controller Deployment(s) Available');
  });

  it('fails fast naming the Deployment and its pod\'s reason when a pod is stuck on its image', async () => {
    const client = new FakeClusterClient();
    const objs = [deployment('source-controller'), deployment('kustomize-controller')];
    client.set({ ...objs[0]!, status: availableStatus });
    client.set(objs[1]!);
    client.set(pod('kustomize-controller', 'ErrImageNeverPull'));
    const e = (await waitFluxInstall({ client, objects: objs, emit: () => {}, id: 'bootstrap', file: 'clusters/dev/flux-system/gotk-components.yaml', stuckMs: 5000, ...clock() }).catch((x: unknown) => x)) as FluxInstallError;
    expect(e).toBeInstanceOf(FluxInstallError);
    expect(e.exitCode).toBe(1);
    expect(e.message).toBe('Flux install from clusters/dev/flux-system/gotk-components.yaml cannot start: Deployment/flux-system/kustomize-controller: 0/1 ready; kustomize-controller-abc: ErrImageNeverPull');
    expect(e.hint).toContain('Check the controller images named in clusters/dev/flux-system/gotk-components.yaml');
  });

  it('times out on a Deployment that is only slow, and says where it is', async () => {
    const client = new FakeClusterClient();
    const objs = [deployment('helm-controller')];
    client.set(objs[0]!);
    const e = (await waitFluxInstall({ client, objects: objs, emit: () => {}, id: 'bootstrap', file: 'gotk.yaml', timeoutMs: 10_000, ...clock() }).catch((x: unknown) => x)) as FluxInstallError;
    expect(e.message).toBe('Flux install from gotk.yaml: not Available after 10 s: Deployment/flux-system/helm-controller: 0/1 ready');
  });
});

describe('waitFluxInstall and Ctrl-C', () => {
  it('stops waiting at once when the run is interrupted', async () => {
    const { InterruptedError } = await import('../../src/runner/errors.js');
    const client = new FakeClusterClient();
    const objs = [deployment('source-controller')];
    client.set(objs[0]!);
    const ac = new AbortController();
    const waiting = waitFluxInstall({ client, objects: objs, emit: () => {}, id: 'bootstrap', file: 'gotk.yaml', signal: ac.signal, pollMs: 60_000 });
    setTimeout(() => ac.abort(), 10);
    await expect(waiting).rejects.toBeInstanceOf(InterruptedError);
  });
});
