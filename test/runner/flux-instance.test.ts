import { describe, expect, it } from 'vitest';
import type { ClusterClient, K8sObject } from '../../src/cluster/client.js';
import type { ObjRef } from '../../src/model/ref.js';
import { NoKindError } from '../../src/cluster/errors.js';
import {
  instanceDeployments,
  instanceRootSync,
  instanceWithMirror,
  liveInstanceOwner,
  operatorReadiness,
  resumeThroughInstance,
  setInstanceSuspended,
} from '../../src/runner/flux-instance.js';
import type { RunEvent } from '../../src/runner/events.js';

const fi = (spec: Record<string, unknown>, namespace = 'flux-system'): K8sObject => ({ apiVersion: 'fluxcd.controlplane.io/v1', kind: 'FluxInstance', metadata: { name: 'flux', namespace }, spec });
const SYNC = { kind: 'GitRepository', url: 'https://git.example/fleet.git', ref: 'refs/heads/main', path: 'clusters/dev' };

describe('the root sync a FluxInstance creates (flux-operator\'s sync template)', () => {
  it('names the Kustomization and its source after spec.sync.name, by default the instance\'s namespace', () => {
    expect(instanceRootSync(fi({ sync: SYNC }))).toEqual({ key: 'flux-system/flux-system', ks: { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' }, source: { kind: 'GitRepository', namespace: 'flux-system', name: 'flux-system' } });
    expect(instanceRootSync(fi({ sync: { ...SYNC, kind: 'OCIRepository', name: 'fleet' } }, 'flux'))).toEqual({ key: 'flux/fleet', ks: { kind: 'Kustomization', namespace: 'flux', name: 'fleet' }, source: { kind: 'OCIRepository', namespace: 'flux', name: 'fleet' } });
    expect(instanceRootSync(fi({}))).toBeNull();
  });

  it('points the sync at a mirror and keeps the rest of the spec', () => {
    const m = instanceWithMirror(fi({ sync: SYNC, components: ['source-controller'] }), 'http://10.0.0.1/fleet.git');
    expect(m.spec).toEqual({ sync: { ...SYNC, url: 'http://10.0.0.1/fleet.git' }, components: ['source-controller'] });
  });

  it('waits for the Deployment of each component, flux-operator\'s four by default', () => {
    expect(instanceDeployments(fi({})).map((d) => d.name)).toEqual(['source-controller', 'kustomize-controller', 'helm-controller', 'notification-controller']);
    expect(instanceDeployments(fi({ components: ['source-controller'] }, 'x'))).toEqual([{ kind: 'Deployment', namespace: 'x', name: 'source-controller' }]);
  });
});

describe('operatorReadiness: flux-operator records the generation only in its conditions', () => {
  const obj = (generation: number, conds: Record<string, unknown>[]) => ({ metadata: { name: 'flux', generation }, status: { conditions: conds } }) as never;
  it('Ready at the current generation is ready; at an older one it is not yet', () => {
    expect(operatorReadiness(obj(2, [{ type: 'Ready', status: 'True', observedGeneration: 2, reason: 'ReconciliationSucceeded' }])).state).toBe('ready');
    expect(operatorReadiness(obj(3, [{ type: 'Ready', status: 'True', observedGeneration: 2 }])).state).toBe('progressing');
  });
  it('Stalled is a failure; DependencyNotReady is waiting', () => {
    expect(operatorReadiness(obj(1, [{ type: 'Ready', status: 'False', observedGeneration: 1, reason: 'BuildFailed', message: 'build failed' }, { type: 'Stalled', status: 'True', reason: 'BuildFailed', message: 'build failed' }])).state).toBe('failed');
    expect(operatorReadiness(obj(1, [{ type: 'Ready', status: 'False', observedGeneration: 1, reason: 'DependencyNotReady', message: 'dependency kustomize.toolkit.fluxcd.io/v1/Kustomization/flux-system/apps not ready' }])).state).toBe('waiting');
  });
});

/** A client holding a few objects; records merge patches. */
function fakeClient(objects: Record<string, K8sObject | 'nokind'>) {
  const patches: { ref: ObjRef; patch: Record<string, unknown>; fieldManager?: string }[] = [];
  const key = (r: ObjRef) => `${r.kind}/${r.namespace}/${r.name}`;
  const client = {
    find: async (r: ObjRef) => {
      const o = objects[key(r)];
      if (o === 'nokind') throw new NoKindError(r.apiVersion ?? '', r.kind);
      return o;
    },
    patchMerge: async (ref: ObjRef, patch: Record<string, unknown>, o: { fieldManager?: string } = {}) => {
      patches.push({ ref, patch, fieldManager: o.fieldManager });
      return {} as K8sObject;
    },
  } as unknown as ClusterClient;
  return { client, patches };
}

const ROOT = { key: 'flux-system/flux-system', ks: { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' }, source: { kind: 'GitRepository', namespace: 'flux-system', name: 'flux-system' } };
const rootKs = (labels: Record<string, string>, extra: Partial<K8sObject> = {}): K8sObject => ({ apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', metadata: { name: 'flux-system', namespace: 'flux-system', labels }, ...extra });
const OWNED = { 'fluxcd.controlplane.io/name': 'flux', 'fluxcd.controlplane.io/namespace': 'flux-system' };
const writer = (client: ClusterClient, events: RunEvent[]) => ({ client, emit: (e: RunEvent) => events.push(e), id: 'suspend' as const, signal: new AbortController().signal });

describe('a root sync owned by a FluxInstance', () => {
  it('is found by the operator\'s owner labels on the live root Kustomization; a plain root, or no Flux yet, has no owner', async () => {
    expect(await liveInstanceOwner(fakeClient({ 'Kustomization/flux-system/flux-system': rootKs(OWNED) }).client, ROOT)).toEqual({ apiVersion: 'fluxcd.controlplane.io/v1', kind: 'FluxInstance', namespace: 'flux-system', name: 'flux' });
    expect(await liveInstanceOwner(fakeClient({ 'Kustomization/flux-system/flux-system': rootKs({}) }).client, ROOT)).toBeNull();
    expect(await liveInstanceOwner(fakeClient({ 'Kustomization/flux-system/flux-system': 'nokind' }).client, ROOT)).toBeNull();
  });

  it('is suspended through the instance\'s reconcile annotation, under field manager standup, and resumed with a reconcile request', async () => {
    const { client, patches } = fakeClient({});
    const events: RunEvent[] = [];
    const ref = { apiVersion: 'fluxcd.controlplane.io/v1', kind: 'FluxInstance', namespace: 'flux-system', name: 'flux' };
    await setInstanceSuspended(writer(client, events), ref, true);
    await setInstanceSuspended(writer(client, events), ref, false);
    expect(patches.map((p) => p.fieldManager)).toEqual(['standup', 'standup']);
    const [down, up] = patches.map((p) => (p.patch.metadata as { annotations: Record<string, string | null> }).annotations);
    expect(down!['fluxcd.controlplane.io/reconcile']).toBe('disabled');
    expect(down!['standup.io/suspended-by']).toMatch(/^standup reset at /);
    expect(up!['fluxcd.controlplane.io/reconcile']).toBeNull();
    expect(up!['reconcile.fluxcd.io/requestedAt']).toEqual(expect.any(String));
    expect(events.map((e) => (e.type === 'change' ? `${e.change.kind} ${e.object}` : e.type))).toEqual(['suspend FluxInstance/flux-system/flux', 'resume FluxInstance/flux-system/flux']);
  });

  it('resume takes back only standup\'s own suspension of the instance', async () => {
    const ref = { apiVersion: 'fluxcd.controlplane.io/v1', kind: 'FluxInstance', namespace: 'flux-system', name: 'flux' };
    const inst = (by?: string): K8sObject => ({ ...fi({ sync: SYNC }), metadata: { name: 'flux', namespace: 'flux-system', annotations: { 'fluxcd.controlplane.io/reconcile': 'disabled', ...(by ? { 'standup.io/suspended-by': by } : {}) } } });
    const mine = fakeClient({ 'FluxInstance/flux-system/flux': inst('standup reset at 2026-01-01T00:00:00Z'), 'Kustomization/flux-system/flux-system': rootKs(OWNED) });
    expect(await resumeThroughInstance(writer(mine.client, []), ref, ROOT, true)).toEqual(['FluxInstance/flux-system/flux resumed']);
    const theirs = fakeClient({ 'FluxInstance/flux-system/flux': inst(), 'Kustomization/flux-system/flux-system': rootKs(OWNED) });
    await expect(resumeThroughInstance(writer(theirs.client, []), ref, ROOT, true)).rejects.toMatchObject({ code: 'ROOT_SUSPENDED' });
    expect(theirs.patches).toEqual([]);
    // up stands it up whoever suspended it.
    expect(await resumeThroughInstance(writer(theirs.client, []), ref, ROOT, false)).toEqual(['FluxInstance/flux-system/flux resumed']);
  });
});
