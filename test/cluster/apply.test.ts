import { describe, expect, it } from 'vitest';
import { applyStages, comparable, deepEqual } from '../../src/cluster/apply.js';
import type { K8sObject } from '../../src/cluster/client.js';

const o = (kind: string, apiVersion = 'v1'): K8sObject => ({ apiVersion, kind, metadata: { name: kind.toLowerCase() } });

describe('applyStages', () => {
  it('orders like Flux: CRDs, Namespaces and ClusterRoles, then *Class kinds of any group, then the rest', () => {
    const stages = applyStages([
      o('StorageProfile', 'cdi.kubevirt.io/v1beta1'),
      o('StorageClass', 'storage.k8s.io/v1'),
      o('Namespace'),
      o('EC2NodeClass', 'karpenter.k8s.aws/v1'),
      o('CustomResourceDefinition', 'apiextensions.k8s.io/v1'),
      o('ClusterRoleBinding', 'rbac.authorization.k8s.io/v1'),
      o('ClusterRole', 'rbac.authorization.k8s.io/v1'),
    ]);
    expect(stages.map((s) => s.map((x) => x.kind))).toEqual([
      ['Namespace', 'CustomResourceDefinition', 'ClusterRole'],
      ['StorageClass', 'EC2NodeClass'],
      ['StorageProfile', 'ClusterRoleBinding'],
    ]);
  });
});

describe('drift comparison', () => {
  const live: K8sObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', namespace: 'a', uid: 'u', resourceVersion: '5', creationTimestamp: '2026-11-29T00:00:00Z', managedFields: [{ manager: 'kubectl' }] },
    data: { a: '1' },
    spec: { list: [1, 2] },
  };
  it.each([
    ['ignores resourceVersion, generation, managedFields and creationTimestamp', { ...live, metadata: { ...live.metadata, resourceVersion: '6', generation: 2, managedFields: [{ manager: 'standup' }], creationTimestamp: undefined } }, true],
    ['ignores status (SSA of the main resource never sets it)', { ...live, status: { phase: 'x' } }, true],
    ['sees a changed value', { ...live, data: { a: '2' } }, false],
    ['sees an added label', { ...live, metadata: { ...live.metadata, labels: { l: 'v' } } }, false],
    ['sees a reordered list', { ...live, spec: { list: [2, 1] } }, false],
  ])('%s', (_n, dry, same) => {
    expect(deepEqual(comparable(dry as K8sObject), comparable(live))).toBe(same);
  });
});
