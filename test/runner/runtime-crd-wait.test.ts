import { describe, expect, it } from 'vitest';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { crdOnItsWay } from '../../src/runner/runtime-crd-wait.js';

const decls = [{ kind: 'StorageProfile', group: 'cdi.kubevirt.io', createdBy: { kind: 'CDI', group: 'cdi.kubevirt.io' } }];
const missing = { type: 'missing-crd' as const, kind: 'StorageProfile', group: 'cdi.kubevirt.io', version: 'v1beta1', object: 'StorageProfile/longhorn-vm' };
const cdiCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'cdis.cdi.kubevirt.io' },
  spec: { group: 'cdi.kubevirt.io', names: { kind: 'CDI', plural: 'cdis' }, versions: [{ name: 'v1beta1', served: true }] },
};

describe('crdOnItsWay', () => {
  it('waits for a runtime CRD whose operator already has its trigger (the split layout)', async () => {
    const client = new FakeCluster();
    client.put(cdiCrd);
    client.put({ apiVersion: 'cdi.kubevirt.io/v1beta1', kind: 'CDI', metadata: { name: 'cdi' } });
    expect(await crdOnItsWay(client, missing, decls)).toBe('waiting for the StorageProfile CRD (cdi.kubevirt.io): its operator creates it once it sees CDI/cdi, which exists');
  });

  it('is the deadlock when the trigger does not exist (the combined tier never applied it), or the kind is not declared', async () => {
    const client = new FakeCluster();
    client.put(cdiCrd);
    expect(await crdOnItsWay(client, missing, decls)).toBeNull();
    client.put({ apiVersion: 'cdi.kubevirt.io/v1beta1', kind: 'CDI', metadata: { name: 'cdi' } });
    expect(await crdOnItsWay(client, { ...missing, kind: 'DataVolume' }, decls)).toBeNull();
    expect(await crdOnItsWay(client, missing, [])).toBeNull();
  });
});
