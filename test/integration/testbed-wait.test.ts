// `wait: true` tiers on the real node. HelmReleases of charts the test packs itself, served over loopback HTTP
// through a real HelmRepository, installed by helm-controller: `standup up` converges the tier; a chart whose
// Deployment never becomes ready fails it with helm-controller's message; a chart version that does not exist fails
// it at once (well before its timeout) with source-controller's, and `resume` converges once it is fixed; a plain
// Deployment that never becomes ready fails its tier at the timeout, naming the Deployment and its pods' state; a
// chart repository nobody answers on is waited for until the timeout (it may come back), and the failure names it.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { appChart, publishCharts } from '../testbed/charts.js';
import { connect } from '../testbed/harness.js';
import { freePort } from '../testbed/ports.js';
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

const release = (chart: string, version: string, repo = REPO) => ({
  apiVersion: 'helm.toolkit.fluxcd.io/v2',
  kind: 'HelmRelease',
  metadata: { name: 'web', namespace: NS },
  spec: {
    interval: '10m',
    // helm-controller waits this long for the release's resources to be ready.
    timeout: '20s',
    chart: { spec: { chart, version, sourceRef: { kind: 'HelmRepository', name: repo, namespace: 'flux-system' }, interval: '1m' } },
  },
});
const releaseFile = (chart: string, version: string, repo = REPO) => [stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), stringify(release(chart, version, repo))].join('---\n');
const tiersFile = (webTimeout: string) => [ks('charts', './charts'), ks('web', './web', { dependsOn: ['charts'], timeout: webTimeout })].map((d) => stringify(d)).join('---\n');

/** A change as its owner makes it: in the working copy standup reads, and pushed to the git server Flux reads. */
async function change(files: Record<string, string>, message: string) {
  for (const [rel, text] of Object.entries(files)) writeFileSync(path.join(repoDir, rel), text);
  await tb.git.commitAndPush('helm', files, message);
}

type Ev = Record<string, unknown> & { type: string; id?: string };
const tierEvents = (events: Record<string, unknown>[], id: string) => {
  const es = events as Ev[];
  return { start: es.find((e) => e.type === 'step-start' && e.id === id) as (Ev & { at: string }) | undefined, end: es.find((e) => e.type === 'step-end' && e.id === id) as (Ev & { result: string; durationMs: number; message: string; cause?: Record<string, unknown> }) | undefined };
};

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
  mkdirSync(path.join(dir, 'clusters/dev'), { recursive: true });
  writeFileSync(path.join(dir, 'clusters/dev/tiers.yaml'), tiersFile('40s'));
  file('charts/helmrepository.yaml', [
    { apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'HelmRepository', metadata: { name: REPO, namespace: 'flux-system' }, spec: { interval: '1m', url: chartsUrl } },
  ]);
  file('web/release.yaml', [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, release(chart, version)]);
}

const up = (o: { json?: boolean; timeout?: string } = {}) =>
  standup(['up', '--repo', repoDir, '--cluster', 'dev', '--kubeconfig', tb.kubeconfigPath, '--source-url', tb.git.url('helm'), '--timeout', o.timeout ?? '90s', ...(o.json ? ['-o', 'json'] : [])]);
const resume = (timeout = '90s') => standup(['resume', '--repo', repoDir, '--cluster', 'dev', '--kubeconfig', tb.kubeconfigPath, '--timeout', timeout]);

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

  it('a chart version that does not exist fails the tier at once, well before its timeout, with source-controller\'s message; fixed, resume converges', async () => {
    // A 90 s timeout for the tier (KC's health check and standup's) and for the whole run: a tier that waited for its
    // timeout would end the run as a timeout (exit 3), not a failure.
    await change({ 'web/release.yaml': releaseFile('web', '9.9.9'), 'clusters/dev/tiers.yaml': tiersFile('90s') }, 'web: a version that is not in the repository');
    const r = await up({ json: true });
    expect(r.code, r.stderr).toBe(1);
    // source-controller's verdict: the HelmChart is Stalled (it will not retry), and the HelmRelease says why.
    const chart = (await kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({ group: 'source.toolkit.fluxcd.io', version: 'v1', plural: 'helmcharts', namespace: 'flux-system', name: `${NS}-web` })) as {
      status?: { conditions?: { type: string; status: string; message?: string }[] };
    };
    const missing = "no 'web' chart with version matching '9.9.9' found";
    const stalled = chart.status?.conditions?.find((c) => c.type === 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', message: expect.stringContaining(missing) });
    // helm-controller found the chart source not ready (its message may still be the one from before the HelmChart stalled).
    expect(readyOf(await helmRelease())).toMatchObject({ status: 'False', reason: 'SourceNotReady' });
    // Failed, not timed out, and long before the tier's 90 s: from the events' own times.
    const { start, end } = tierEvents(r.events, 'tier:flux-system/web');
    expect(start, r.stdout).toBeDefined();
    expect(end).toMatchObject({ result: 'failed' });
    expect(end!.durationMs).toBeLessThan(60_000);
    process.stderr.write(`[testbed-wait] a chart version that does not exist: the tier failed ${end!.durationMs} ms after its start (timeout 90 s)\n`);
    // The HelmRelease, its HelmChart and source-controller's words, as text and as fields.
    expect(end!.message).toBe(`flux-system/web cannot become Ready: HelmRelease/${NS}/web cannot get its chart: HelmChart/flux-system/${NS}-web is Stalled (InvalidChartReference): ${stalled!.message}`);
    expect(end!.cause).toEqual({ type: 'chart-source', helmRelease: `HelmRelease/${NS}/web`, chartSource: `HelmChart/flux-system/${NS}-web`, stalled: `HelmChart/flux-system/${NS}-web`, reason: 'InvalidChartReference', message: stalled!.message, file: 'web/release.yaml', line: 9 });
    const runEnd = (r.events as Ev[]).find((e) => e.type === 'run-end') as Ev & { code: string; hint: string; exitCode: number };
    expect(runEnd).toMatchObject({ code: 'TIER_FAILED', exitCode: 1 });
    expect(runEnd.hint).toBe(`Fix spec.chart.spec.chart (web) or spec.chart.spec.version (9.9.9) of HelmRelease/${NS}/web in web/release.yaml:9, or publish that chart version to HelmRepository/flux-system/${REPO}; source-controller will not try again until that spec changes; then \`standup resume\` (kustomize-controller first runs out the health check it is in, up to the tier's timeout, unless its CancelHealthCheckOnNewRevision feature gate is on).`);

    // Fixed in git, `resume` converges the tier. (kustomize-controller first runs out the health check it started for
    // the bad revision, up to the tier's timeout: a new revision does not cancel it unless its
    // CancelHealthCheckOnNewRevision feature gate is on.)
    await change({ 'web/release.yaml': releaseFile('web', '0.1.0'), 'clusters/dev/tiers.yaml': tiersFile('40s') }, 'web: back to a version the repository has');
    const again = await resume('4m');
    expect(again.code, again.stderr).toBe(0);
    expect(readyOf(await helmRelease())).toMatchObject({ status: 'True' });
  });

  it('a Deployment that never becomes ready fails its tier at the timeout, naming it and its pods\' state', async () => {
    const [dep] = appWorkload('web', NS, { readyAfter: 'never' });
    await tb.git.commitAndPush('helm', { 'web/release.yaml': [stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }), stringify(dep)].join('---\n') }, 'web: a plain Deployment that is never ready');
    const r = await up();
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('flux-system/web failed its health check');
    expect(r.stderr).toMatch(new RegExp(`Deployment/${NS}/web: 0/1 ready; web-[a-z0-9]+-[a-z0-9]+: running, readiness probe failing`));
  });

  it('a chart repository nobody answers on is waited for until the timeout (it may come back), and the failure names it', async () => {
    // A port nothing listens on: source-controller's fetch fails with connection refused, a Generic (retried) error.
    const dead = `http://127.0.0.1:${await freePort()}/charts`;
    const deadRepo = { apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'HelmRepository', metadata: { name: 'it-dead', namespace: 'flux-system' }, spec: { interval: '1m', url: dead } };
    // The repository is applied by the root sync (which does not wait), so only the web tier waits on it, through its HelmRelease.
    await change(
      {
        'clusters/dev/dead-repo.yaml': stringify(deadRepo),
        'clusters/dev/kustomization.yaml': stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: ['flux-system', 'tiers.yaml', 'dead-repo.yaml'] }),
        'clusters/dev/tiers.yaml': tiersFile('30s'),
        'web/release.yaml': releaseFile('web', '0.1.0', 'it-dead'),
      },
      'web: a chart repository nobody answers on',
    );
    // KC may first run out the health check it retries for the Deployment above (40 s): kustomize-controller does not
    // cancel a running health check for a new revision.
    const r = await up({ json: true, timeout: '3m' });
    expect(r.code, r.stderr).toBe(1);
    const { end } = tierEvents(r.events, 'tier:flux-system/web');
    // Not failed fast: KC's health check ran out its 30 s (standup then asks once more), and no chart cause is claimed.
    expect(end).toMatchObject({ result: 'failed' });
    expect(end!.durationMs).toBeGreaterThanOrEqual(30_000);
    process.stderr.write(`[testbed-wait] a repository nobody answers on: the tier failed ${end!.durationMs} ms after its start (KC timeout 30 s)\n`);
    expect(end!.cause).toBeUndefined();
    expect(end!.message).toContain('flux-system/web failed its health check');
    expect(end!.message).toContain(`HelmRelease/${NS}/web waits for HelmChart/flux-system/${NS}-web: `);
    expect(end!.message).toMatch(/HelmRepository\/flux-system\/it-dead: failed to fetch Helm repository index: .*connection refused/);
  });
});
