import { describe, expect, it } from 'vitest';
import type { ApplyResult, ClusterClient, K8sObject } from '../../src/cluster/client.js';
import type { RootSync } from '../../src/plan/plan.js';
import { rootSuspension, SUSPENDED_BY } from '../../src/runner/root-sync.js';

const root: RootSync = { key: 'flux-system/flux-system', ks: { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' }, source: { kind: 'GitRepository', namespace: 'flux-system', name: 'flux-system' } };
const ks = (suspend: boolean): K8sObject => ({ apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', metadata: { name: 'flux-system', namespace: 'flux-system', annotations: { [SUSPENDED_BY]: 'standup reset at x' } }, spec: { suspend } });
const applied = (o: K8sObject): ApplyResult => ({ id: 'Kustomization/flux-system/flux-system', ref: { apiVersion: o.apiVersion, kind: o.kind, namespace: 'flux-system', name: 'flux-system' }, action: 'unchanged', object: o });

describe('rootSuspension', () => {
  it("reads the apply's answer when the root Kustomization was just applied (no GET)", async () => {
    let gets = 0;
    const client = { find: async () => ((gets += 1), ks(false)) } as unknown as ClusterClient;
    expect(await rootSuspension(client, root, [applied(ks(true))])).toEqual({ suspended: true, by: 'standup reset at x' });
    expect(gets).toBe(0);
  });

  it('reads the live object when the apply did not hold it', async () => {
    let gets = 0;
    const client = { find: async () => ((gets += 1), ks(true)) } as unknown as ClusterClient;
    const other = applied({ ...ks(false), metadata: { name: 'apps', namespace: 'flux-system' } });
    expect(await rootSuspension(client, root, [{ ...other, ref: { ...other.ref, name: 'apps' } }])).toMatchObject({ suspended: true });
    expect(gets).toBe(1);
  });
});
