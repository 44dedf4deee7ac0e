// `standup version` against the real kube-apiserver: the server's Kubernetes version, and Flux's version read from
// what a Flux install leaves in the cluster (the CRDs' app.kubernetes.io/version label, the controller Deployments'
// image tags). The testbed runs the controllers as processes, so the test adds a labelled Deployment and a label on
// the Kustomization CRD, and removes both afterwards.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { K8sObject } from '../../src/cluster/client.js';
import { loadKubeconfig } from '../../src/cluster/kubeconfig.js';
import { createClusterClient } from '../../src/cluster/node-client.js';
import { standup } from './cli.js';

const info = inject('testbed');
const client = createClusterClient(loadKubeconfig({ kubeconfig: info.kubeconfigPath }));
const NS = 'it-version';
const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', namespace: null, name: 'kustomizations.kustomize.toolkit.fluxcd.io' };
const ns: K8sObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } };
const controller: K8sObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'kustomize-controller', namespace: NS, labels: { 'app.kubernetes.io/part-of': 'flux', 'app.kubernetes.io/component': 'kustomize-controller' } },
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: 'kustomize-controller' } },
    template: { metadata: { labels: { app: 'kustomize-controller' } }, spec: { containers: [{ name: 'manager', image: 'ghcr.io/fluxcd/kustomize-controller:v1.9.6' }] } },
  },
};
const versionOf = async () => JSON.parse((await standup(['version', '--kubeconfig', info.kubeconfigPath, '-o', 'json'])).stdout);

beforeAll(async () => {
  await client.apply([ns, controller], { fieldManager: 'standup-it', force: true });
});

afterAll(async () => {
  await client.patchMerge(CRD, { metadata: { labels: { 'app.kubernetes.io/version': null } } }).catch(() => undefined);
  await client.delete({ apiVersion: 'v1', kind: 'Namespace', namespace: null, name: NS }).catch(() => undefined);
});

describe('standup version against the testbed', () => {
  it('reports the API server\'s Kubernetes version and the Flux API it serves', async () => {
    const r = await standup(['version', '--kubeconfig', info.kubeconfigPath, '-o', 'json']);
    expect(r.code).toBe(0);
    const v = JSON.parse(r.stdout);
    expect(v.serverError).toBeUndefined();
    expect(v.server).toMatchObject({ context: info.contextName, url: info.server, kubernetes: (await client.serverVersion()).gitVersion });
    expect(v.server.kubernetes).toMatch(/^v1\.\d+\.\d+/);
    expect(v.server.flux.kustomizationApi).toContain('v1');
  });

  it('--verbose logs each API request and its status on stderr', async () => {
    const r = await standup(['version', '--kubeconfig', info.kubeconfigPath, '--verbose']);
    expect(r.stderr).toMatch(new RegExp(`debug \\+\\S+ api GET ${info.server.replace(/[.]/g, '\\.')}/version\n`));
    expect(r.stderr).toMatch(/debug \+\S+ api -> 200\n/);
  });

  it('takes each controller\'s version from its Deployment\'s image, wherever Flux runs', async () => {
    const v = await versionOf();
    expect(v.server.flux.controllers).toMatchObject({ 'kustomize-controller': 'v1.9.6' });
    expect(v.server.flux.namespaces).toContain(NS);
  });

  it('takes the distribution from the CRDs\' app.kubernetes.io/version label, and says when there is none', async () => {
    await client.patchMerge(CRD, { metadata: { labels: { 'app.kubernetes.io/version': null } } });
    expect((await versionOf()).server.flux.version).toBeNull();
    const text = await standup(['version', '--kubeconfig', info.kubeconfigPath]);
    expect(text.stdout).toContain('flux: version unknown (its CRDs carry no app.kubernetes.io/version label) (kustomize.toolkit.fluxcd.io/v1)');
    await client.patchMerge(CRD, { metadata: { labels: { 'app.kubernetes.io/version': 'v2.7.3' } } });
    expect((await versionOf()).server.flux.version).toBe('v2.7.3');
    const again = await standup(['version', '--kubeconfig', info.kubeconfigPath]);
    expect(again.stdout).toMatch(/^kubernetes: v1\.\d+\.\d+\S* \(context /m);
    expect(again.stdout).toContain('flux: v2.7.3 (kustomize.toolkit.fluxcd.io/v1)');
    expect(again.stdout).toContain(`kustomize-controller: v1.9.6 (in ${NS})`);
  });
});
