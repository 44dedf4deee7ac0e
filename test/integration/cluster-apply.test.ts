// src/cluster against the real kube-apiserver: server-side apply reporting created/configured/unchanged with no
// write on a re-apply (proved from the API server's audit log: resourceVersions are no proof, since
// kube-controller-manager legitimately updates a Deployment's status), a CRD waited to Established before its CR, dry-run writing
// nothing, Flux-style errors for a missing CRD, and NoKind for an unserved kind.
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { K8sObject } from '../../src/cluster/client.js';
import { ApplyError, NoKindError } from '../../src/cluster/errors.js';
import { loadKubeconfig } from '../../src/cluster/kubeconfig.js';
import { createClusterClient } from '../../src/cluster/node-client.js';
import { describeAudit, readAudit } from '../testbed/audit.js';
import { type ApiRef } from '../../src/model/ref.js';

const info = inject('testbed');
const client = createClusterClient(loadKubeconfig({ kubeconfig: info.kubeconfigPath }));
const NS = 'it-cluster-apply';
const GROUP = 'standup-it.example.com';
const opts = { fieldManager: 'standup', force: true } as const;

const ns: K8sObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } };
const crd: K8sObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `storageprofiles.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Cluster',
    names: { kind: 'StorageProfile', plural: 'storageprofiles', singular: 'storageprofile', listKind: 'StorageProfileList' },
    versions: [{ name: 'v1beta1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
const profile: K8sObject = { apiVersion: `${GROUP}/v1beta1`, kind: 'StorageProfile', metadata: { name: 'longhorn' }, spec: { claimPropertySets: [{ accessModes: ['ReadWriteMany'] }] } };
const cm = (data: Record<string, string>, name = 'settings'): K8sObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data });
const deploy: K8sObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: NS },
  spec: { replicas: 0, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
};
const refOf = (o: K8sObject): ApiRef => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace ?? null });
const resourceVersions = async (objs: K8sObject[]) => Promise.all(objs.map(async (o) => (await client.get(refOf(o))).metadata.resourceVersion));

afterAll(async () => {
  await client.delete(refOf(profile)).catch(() => undefined);
  await client.delete(refOf(crd)).catch(() => undefined);
  await client.delete(refOf(ns)).catch(() => undefined);
});

describe('cluster client: server-side apply on a real API server', () => {
  const all = [profile, cm({ a: '1' }), deploy, crd, ns];

  it('creates in Flux stages, waiting for the CRD to be Established before applying its CR', async () => {
    const r = await client.apply(all, opts);
    expect(r.map((x) => `${x.id} ${x.action}`)).toEqual([
      `CustomResourceDefinition/storageprofiles.${GROUP} created`,
      `Namespace/${NS} created`,
      'StorageProfile/longhorn created',
      `ConfigMap/${NS}/settings created`,
      `Deployment/${NS}/web created`,
    ]);
    const live = await client.get(refOf(crd));
    expect((live.status as { conditions: { type: string; status: string }[] }).conditions).toContainEqual(expect.objectContaining({ type: 'Established', status: 'True' }));
    // sent as raw JSON: client-node's typed serializer would have dropped this field
    expect((live.spec as any).versions[0].schema.openAPIV3Schema['x-kubernetes-preserve-unknown-fields']).toBe(true);
  });

  it('reports a second apply as all unchanged, and the API server saw no mutating request from it', async () => {
    const since = new Date();
    client.resetStats();
    const r = await client.apply(all, opts);
    const until = new Date();
    expect(r.map((x) => x.action)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged', 'unchanged']);
    // Everything the admin user (this client) asked in that window; the testbed's own components have users of
    // their own, which the audit policy leaves out.
    const asked = readAudit(info.auditLog, { since, until });
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.filter((e) => e.verb === 'patch' && !e.requestURI.includes('dryRun=All')).map(describeAudit)).toEqual([]);
    expect(readAudit(info.auditLog, { since, until, mutating: true }).filter((e) => !e.requestURI.includes('dryRun=All')).map(describeAudit)).toEqual([]);
  });

  it('the audit log does record a real write (so the proof above can fail)', async () => {
    const since = new Date();
    await client.apply([cm({ a: 'audited' }, 'audited')], opts);
    const writes = readAudit(info.auditLog, { since, mutating: true, fieldManager: 'standup' }).filter((e) => !e.requestURI.includes('dryRun=All'));
    expect(writes.map(describeAudit)).toEqual([`patch configmaps ${NS}/audited -> 201`]);
  });

  it('reports only the drifted object as configured', async () => {
    const since = new Date();
    const r = await client.apply([ns, cm({ a: '2' }), deploy], opts);
    expect(r.map((x) => `${x.id} ${x.action}`)).toEqual([`Namespace/${NS} unchanged`, `ConfigMap/${NS}/settings configured`, `Deployment/${NS}/web unchanged`]);
    const writes = readAudit(info.auditLog, { since, mutating: true }).filter((e) => !e.requestURI.includes('dryRun=All'));
    expect(writes.map(describeAudit)).toEqual([`patch configmaps ${NS}/settings -> 200`]);
  });

  it('treats an object with the same content written by another manager as unchanged (no takeover write)', async () => {
    const other = cm({ k: 'v' }, 'by-other');
    await client.apply([other], { fieldManager: 'someone-else', force: true });
    const [rv] = await resourceVersions([other]);
    expect((await client.apply([other], opts))[0]!.action).toBe('unchanged');
    expect(await resourceVersions([other])).toEqual([rv]);
  });

  it('with dryRun writes nothing, and reports a batch needing its own Namespace and CRD as created', async () => {
    const ns2: K8sObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'it-cluster-dry' } };
    const crd2 = { ...crd, metadata: { name: `widgets.${GROUP}` }, spec: { ...(crd.spec as object), names: { kind: 'Widget', plural: 'widgets' } } };
    const widget: K8sObject = { apiVersion: `${GROUP}/v1beta1`, kind: 'Widget', metadata: { name: 'w' } };
    const c = { ...cm({ a: '1' }, 'c'), metadata: { name: 'c', namespace: 'it-cluster-dry' } };
    const r = await client.apply([ns2, crd2, widget, c], { ...opts, dryRun: true });
    expect(r.map((x) => x.action)).toEqual(['created', 'created', 'created', 'created']);
    expect(await client.find(refOf(ns2))).toBeUndefined();
    expect(await client.find(refOf(crd2))).toBeUndefined();
  });

  it('fails a CR without its CRD with Flux\'s dry-run message, leaving the rest of its stage unwritten', async () => {
    const gadget: K8sObject = { apiVersion: 'nope.example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: NS } };
    const blocked = cm({ b: '1' }, 'blocked');
    const e = (await client.apply([ns, gadget, blocked], opts).catch((x: unknown) => x)) as ApplyError;
    expect(e).toBeInstanceOf(ApplyError);
    expect(e.message).toBe(`Gadget/${NS}/g dry-run failed: no matches for kind "Gadget" in version "nope.example.com/v1"`);
    expect(e.applied.map((x) => `${x.id} ${x.action}`)).toEqual([`Namespace/${NS} unchanged`]);
    expect(await client.find(refOf(blocked))).toBeUndefined();
  });

  it('reports an unserved kind as NoKindError', async () => {
    await expect(client.get({ apiVersion: 'nope.example.com/v1', kind: 'Gadget', name: 'g', namespace: NS })).rejects.toBeInstanceOf(NoKindError);
  });
});
