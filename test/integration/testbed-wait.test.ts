// `wait: true` tiers on the real node. HelmReleases of charts the test packs itself, served over loopback HTTP
// through a real HelmRepository, installed by helm-controller: `standup up` converges the tier; a chart whose
// Deployment never becomes ready fails it with helm-controller's message; a chart version that does not exist fails
// it with source-controller's. And a plain Deployment that never becomes ready fails its tier at the timeout,
// naming the Deployment and its pods' state.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { appChart, publishCharts } from '../testbed/charts.js';
import { connect } from '../testbed/harness.js';
import { pollUntil } from '../testbed/wait.js';
import { appWorkload, waitDeploymentAvailable } from '../testbed/workloads.js';
import { standup } from './cli.js';
import { kube, until } from './kube.js';
import { serveRepo } from './serve.js';

const tb = connect(inject('testbed'));
const kc = tb.kubeConfig();
const k = kube(kc);
const NS = 'it-helm';
const REPO = 'it-helm-repo';
let repoDir = '';
let chartsUrl = '';

const ks = (name: string, p: string, o: { dependsOn?: string[]; timeout?: string } = {}) => ({
  apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
  kind: 'Kustomization',
  metadata: { name, namespace: 'flux-system' },
  spec: {
    interval: '10m',
    retryInterval: '10s',
    timeout: o.timeout ?? '2m',
    path: p,
    prune: true,
    wait: true,
    sourceRef: { kind: 'GitRepository', name: 'flux-system' },
    ...(o.dependsOn ? { dependsOn: o.dependsOn.map((n) => ({ name: n })) } : {}),
  },
});

const release = (chart: string, version: string) => ({
  apiVersion: 'helm.toolkit.fluxcd.io/v2',
  kind: 'HelmRelease',
  metadata: { name: 'web', namespace: NS },
  spec: {
    interval: '10m',
    // helm-controller waits this long for the release's resources to be ready.
    timeout: '20s',
    chart: { spec: { chart, version, sourceRef: { kind: 'HelmRepository', name: REPO, namespace: 'flux-system' }, interval: '1m' } },
  },
});

/** A user's repository: root sync, a tier with the HelmRepository, a tier with the HelmRelease (wait: true). */
function writeRepo(dir: string, chart: string, version: string) {
  const file = (rel: string, docs: unknown[]) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), docs.map((d) => stringify(d)).join('---\n'));
  };
  file('tiers.yaml', [{ version: 1, clusters: { dev: { path: 'clusters/dev', context: 'standup-testbed', resettable: true, bootstrap: { install: 'already-running', sync: 'clusters/dev/flux-system' } } } }]);
  file('clusters/dev/flux-system/gotk-sync.yaml', [
    { apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'GitRepository', metadata: { name: 'flux-system', namespace: 'flux-system' }, spec: { interval: '1m', ref: { branch: 'main' }, url: 'https://git.invalid/helm.git' } },
    { apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', metadata: { name: 'flux-system', namespace: 'flux-system' }, spec: { interval: '10m', path: './clusters/dev', prune: true, sourceRef: { kind: 'GitRepository', name: 'flux-system' } } },
  ]);
  file('clusters/dev/flux-system/kustomization.yaml', [{ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: ['gotk-sync.yaml'] }]);
  file('clusters/dev/kustomization.yaml', [{ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: ['flux-system', 'tiers.yaml'] }]);
  file('clusters/dev/tiers.yaml', [ks('charts', './charts'), ks('web', './web', { dependsOn: ['charts'], timeout: '40s' })]);
  file('charts/helmrepository.yaml', [
    { apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'HelmRepository', metadata: { name: REPO, namespace: 'flux-system' }, spec: { interval: '1m', url: chartsUrl } },
  ]);
  file('web/release.yaml', [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, release(chart, version)]);
}

const up = () => standup(['up', '--repo', repoDir, '--cluster', 'dev', '--kubeconfig', tb.kubeconfigPath, '--source-url', tb.git.url('helm'), '--timeout', '90s']);

async function helmRelease() {
  return (await kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({ group: 'helm.toolkit.fluxcd.io', version: 'v2', plural: 'helmreleases', namespace: NS, name: 'web' })) as {
    status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
  };
}
const readyOf = (o: { status?: { conditions?: { type: string; status: string; message?: string }[] } }) => o.status?.conditions?.find((c) => c.type === 'Ready');

beforeAll(async () => {
  chartsUrl = publishCharts({ testbedDir: tb.dir, baseUrl: tb.gitBaseUrl, repo: 'it', charts: [appChart('web', '0.1.0', { replicas: 2 }), appChart('stuck', '0.1.0', { readyAfter: 'never' })] });
  repoDir = mkdtempSync(path.join(tmpdir(), 'standup-helm-'));
  writeRepo(repoDir, 'web', '0.1.0');
  await serveRepo(tb.git, 'helm', repoDir);
});

afterAll(async () => {
  await k.deleteKs('flux-system');
  await until('the root sync and its tiers to be gone', async () => (await k.kustomizations()).length === 0, 120_000);
  await k.deleteGit('flux-system');
  await kc.makeApiClient(CoreV1Api).deleteNamespace({ name: NS }).catch(() => undefined);
  await until(`${NS} to terminate`, async () => (await k.namespace(NS)) === null, 120_000);
  if (repoDir) rmSync(repoDir, { recursive: true, force: true });
}, 300_000);

describe.sequential('HelmRelease tiers on the node', () => {
  it('up installs the chart from the loopback repository: the HelmRelease and its Deployment are Ready', async () => {
    const r = await up();
    expect(r.code, r.stderr).toBe(0);
    expect(readyOf(await helmRelease())).toMatchObject({ status: 'True' });
    expect(readyOf(await helmRelease())?.message).toMatch(/Helm install succeeded for release it-helm\/web\.v1 with chart web@0\.1\.0/);
    const d = await waitDeploymentAvailable(kc, NS, 'web', 5000);
    expect(d.status?.readyReplicas).toBe(2);
  });

  it('a chart whose Deployment never becomes ready fails the tier with helm-controller\'s message', async () => {
    await tb.git.commitAndPush('helm', { 'web/release.yaml': [stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), stringify(release('stuck', '0.1.0'))].join('---\n') }, 'web: the stuck chart');
    const r = await up();
    expect(r.code, r.stderr).toBe(1);
    const hr = await pollUntil('helm-controller to give up on the release', async () => {
      const m = readyOf(await helmRelease());
      return m?.status === 'False' && /failed/i.test(m.message ?? '') ? m : undefined;
    }, { timeoutMs: 60_000 });
    // helm-controller's own words: the upgrade to the stuck chart timed out waiting for its Deployment.
    // (helm's wait ends either as `timeout waiting for: [Deployment/it-helm/web status: 'InProgress']` or, when its
    // client is throttled at the deadline, as `client rate limiter Wait returned an error ...`: both its own words.)
    expect(hr.message).toMatch(/^Helm (install|upgrade) failed for release it-helm\/web with chart stuck@0\.1\.0: (timeout waiting for: \[Deployment\/it-helm\/web status: 'InProgress'\]|client rate limiter Wait returned an error)/);
    expect(r.stderr).toContain('flux-system/web');

  });

  it('a chart version that does not exist fails the tier at its timeout with source-controller\'s message', async () => {
    await tb.git.commitAndPush('helm', { 'web/release.yaml': [stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), stringify(release('web', '9.9.9'))].join('---\n') }, 'web: a version that is not in the repository');
    const t0 = Date.now();
    const r = await up();
    const elapsed = Date.now() - t0;
    // source-controller's verdict: the HelmChart is Stalled (it will not retry), and the HelmRelease says why.
    const chart = (await kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({ group: 'source.toolkit.fluxcd.io', version: 'v1', plural: 'helmcharts', namespace: 'flux-system', name: `${NS}-web` })) as {
      status?: { conditions?: { type: string; status: string; message?: string }[] };
    };
    const missing = "no 'web' chart with version matching '9.9.9' found";
    expect(chart.status?.conditions?.find((c) => c.type === 'Stalled')).toMatchObject({ status: 'True', message: expect.stringContaining(missing) });
    expect(readyOf(await helmRelease())).toMatchObject({ status: 'False', message: expect.stringContaining(missing) });
    expect(r.code, r.stderr).toBe(1);
    // Flux's health check gives up at the tier's timeout (40 s), and standup shows source-controller's reason.
    expect(elapsed).toBeLessThan(90_000);
    expect(r.stderr).toContain(`HelmRelease/${NS}/web: HelmChart 'flux-system/${NS}-web' is not ready: invalid chart reference: failed to get chart version for remote reference: ${missing}`);
  });

  it('a Deployment that never becomes ready fails its tier at the timeout, naming it and its pods\' state', async () => {
    const [dep] = appWorkload('web', NS, { readyAfter: 'never' });
    await tb.git.commitAndPush('helm', { 'web/release.yaml': [stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), stringify(dep)].join('---\n') }, 'web: a plain Deployment that is never ready');
    const r = await up();
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('flux-system/web failed its health check');
    expect(r.stderr).toMatch(new RegExp(`Deployment/${NS}/web: 0/1 ready; web-[a-z0-9]+-[a-z0-9]+: running, readiness probe failing`));
  });
});
