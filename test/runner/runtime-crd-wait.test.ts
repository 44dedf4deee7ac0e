import { describe, expect, it } from 'vitest';
import type { K8sObject } from '../../src/cluster/client.js';
import type { Look } from '../../src/runner/live-state.js';
import { crdOnItsWay, liveCrdGroups } from '../../src/runner/runtime-crd-wait.js';

const decls = [{ kind: 'StorageProfile', group: 'cdi.kubevirt.io', createdBy: { kind: 'CDI', group: 'cdi.kubevirt.io' } }];
const missing = { type: 'missing-crd' as const, kind: 'StorageProfile', group: 'cdi.kubevirt.io', version: 'v1beta1', object: 'StorageProfile/longhorn-vm' };
const cdiCrd: K8sObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'cdis.cdi.kubevirt.io' },
  spec: { group: 'cdi.kubevirt.io', names: { kind: 'CDI', plural: 'cdis' }, versions: [{ name: 'v1beta1', served: true }] },
};
const cdi: K8sObject = { apiVersion: 'cdi.kubevirt.io/v1beta1', kind: 'CDI', metadata: { name: 'cdi' } };

/** What the watches show: every kind listed with these objects, or (`state`) a kind still listing or unreadable. */
const watches = (objects: K8sObject[], state: Record<string, undefined | null> = {}): Look => (k) =>
  k.kind in state ? state[k.kind] : new Map(objects.filter((o) => o.kind === k.kind && o.apiVersion === k.apiVersion).map((o) => [o.metadata.name, o]));

describe('crdOnItsWay', () => {
  it('waits for a runtime CRD whose operator already has its trigger (the split layout)', () => {
    expect(crdOnItsWay(missing, decls, watches([cdiCrd, cdi]))).toBe('waiting for the StorageProfile CRD (cdi.kubevirt.io): its operator creates it once it sees CDI/cdi, which exists');
  });

  it('is the deadlock when the trigger does not exist (the combined tier never applied it), or the kind is not declared', () => {
    expect(crdOnItsWay(missing, decls, watches([cdiCrd]))).toBeNull();
    expect(crdOnItsWay({ ...missing, kind: 'DataVolume' }, decls, watches([cdiCrd, cdi]))).toBeNull();
    expect(crdOnItsWay(missing, [], watches([cdiCrd, cdi]))).toBeNull();
  });

  it('an inferred runtime CRD waits on any of its triggers that exists, and says it was inferred', () => {
    const cfgCrd: K8sObject = { ...cdiCrd, metadata: { name: 'cdiconfigs.cdi.kubevirt.io' }, spec: { group: 'cdi.kubevirt.io', names: { kind: 'CDIConfig', plural: 'cdiconfigs' }, versions: [{ name: 'v1beta1' }] } };
    const inferred = ['CDIConfig', 'CDI'].map((kind) => ({ kind: 'StorageProfile', group: 'cdi.kubevirt.io', createdBy: { kind, group: 'cdi.kubevirt.io' }, inferred: true }));
    expect(crdOnItsWay(missing, inferred, watches([cdiCrd, cfgCrd, cdi]))).toBe(
      "waiting for the StorageProfile CRD (cdi.kubevirt.io): its operator creates it once it sees CDI/cdi, which exists (inferred: cdi.kubevirt.io's other CRDs are in git, StorageProfile's is not)",
    );
    expect(crdOnItsWay(missing, inferred, watches([cdiCrd, cfgCrd]))).toBeNull();
    // One trigger still listing, none found elsewhere: cannot tell yet.
    expect(crdOnItsWay(missing, inferred, watches([cdiCrd, cfgCrd], { CDI: undefined }))).toBeUndefined();
  });

  it('cannot tell while a watch it needs is still listing, and says nothing when one cannot be read', () => {
    expect(crdOnItsWay(missing, decls, watches([cdiCrd, cdi], { CustomResourceDefinition: undefined }))).toBeUndefined();
    expect(crdOnItsWay(missing, decls, watches([cdiCrd, cdi], { CDI: undefined }))).toBeUndefined();
    expect(crdOnItsWay(missing, decls, watches([cdiCrd, cdi], { CDI: null }))).toBeNull();
    expect(crdOnItsWay(missing, decls, watches([cdiCrd, cdi], { CustomResourceDefinition: null }))).toBeNull();
  });
});

describe('liveCrdGroups', () => {
  it('the groups of the CRDs the watch shows; none when they cannot be read; unknown while listing', () => {
    expect(liveCrdGroups(watches([cdiCrd]))).toEqual(new Set(['cdi.kubevirt.io']));
    expect(liveCrdGroups(watches([], { CustomResourceDefinition: null }))).toEqual(new Set());
    expect(liveCrdGroups(watches([], { CustomResourceDefinition: undefined }))).toBeUndefined();
  });
});
