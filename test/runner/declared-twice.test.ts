import { describe, expect, it } from 'vitest';
import type { K8sObject } from '../../src/cluster/client.js';
import { mergeDeclarations, mergeDeclaredTwice } from '../../src/runner/declared-twice.js';

const ns = (labels: Record<string, string>): K8sObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'flux-system', labels } });
const cm = (name: string, data: Record<string, string>): K8sObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'flux-system' }, data });

describe('objects the install manifests and the sync directory both declare', () => {
  it('get one merged declaration in both lists: the install\'s fields kept, the sync\'s over them', () => {
    const install = [ns({ 'app.kubernetes.io/instance': 'flux-system', 'pod-security.kubernetes.io/warn': 'restricted' }), cm('a', { x: '1' })];
    const sync = [ns({ 'kustomize.toolkit.fluxcd.io/prune': 'disabled', 'pod-security.kubernetes.io/warn': 'baseline' }), cm('b', { y: '2' })];
    const both = mergeDeclaredTwice(install, sync);
    const merged = ns({ 'app.kubernetes.io/instance': 'flux-system', 'pod-security.kubernetes.io/warn': 'baseline', 'kustomize.toolkit.fluxcd.io/prune': 'disabled' });
    expect(both.install).toEqual([merged, cm('a', { x: '1' })]);
    expect(both.sync).toEqual([merged, cm('b', { y: '2' })]);
  });

  it('same name, another kind, group or namespace: not the same object, left alone', () => {
    const install = [cm('x', { a: '1' }), { ...cm('x', { a: '1' }), metadata: { name: 'x', namespace: 'other' } }];
    const sync = [{ ...cm('x', { b: '2' }), apiVersion: 'example.com/v1' }, { ...cm('x', { b: '2' }), kind: 'Secret' }];
    expect(mergeDeclaredTwice(install, sync)).toEqual({ install, sync });
  });

  it('lists are the later declaration\'s whole, not a union', () => {
    expect(mergeDeclarations({ a: [1, 2], m: { k: 1 } }, { a: [3], m: { j: 2 } })).toEqual({ a: [3], m: { k: 1, j: 2 } });
  });
});
