import { describe, expect, it } from 'vitest';
import type { LiveKustomization } from '../../src/status/conditions.js';
import { chartSourceOf, chartVerdict, healthCheckRevision, releasesWaitedOn, sourceNotReady, upstreamOf, type LiveChartSource, type LiveHelmRelease } from '../../src/status/helm-source.js';

// Shapes and words as helm-controller v1.6.4 and source-controller v1.9.3 write them (seen on the node testbed).
const REV = 'main@sha1:' + 'a'.repeat(40);
const STALLED_MSG = "invalid chart reference: failed to get chart version for remote reference: no 'web' chart with version matching '9.9.9' found";

const hr = (o: { gen?: number; readyGen?: number; reason?: string; status?: string; message?: string; version?: string; chartRef?: { kind: string; name: string; namespace?: string }; sourceNs?: string } = {}): LiveHelmRelease => ({
  metadata: { name: 'web', namespace: 'it-helm', generation: o.gen ?? 2 },
  spec: o.chartRef
    ? { chartRef: o.chartRef }
    : { chart: { spec: { chart: 'web', version: o.version ?? '9.9.9', sourceRef: { kind: 'HelmRepository', name: 'repo', ...(o.sourceNs === '' ? {} : { namespace: o.sourceNs ?? 'flux-system' }) } } } },
  status: {
    observedGeneration: 1,
    helmChart: 'flux-system/it-helm-web',
    conditions: [
      {
        type: 'Ready',
        status: o.status ?? 'False',
        reason: o.reason ?? 'SourceNotReady',
        message: o.message ?? `HelmChart 'flux-system/it-helm-web' is not ready: ${STALLED_MSG}`,
        observedGeneration: o.readyGen ?? o.gen ?? 2,
      },
    ],
  },
});

const chart = (o: { gen?: number; observed?: number; stalled?: boolean; version?: string; fetch?: { reason: string; message: string }; ready?: { status: string; message: string }; artifact?: boolean } = {}): LiveChartSource => ({
  kind: 'HelmChart',
  metadata: { name: 'it-helm-web', namespace: 'flux-system', generation: o.gen ?? 3 },
  spec: { chart: 'web', version: o.version ?? '9.9.9', sourceRef: { kind: 'HelmRepository', name: 'repo' } },
  status: {
    observedGeneration: o.observed ?? o.gen ?? 3,
    ...(o.artifact ? { artifact: { revision: '0.1.0' } } : {}),
    conditions: [
      ...(o.stalled === false ? [] : [{ type: 'Stalled', status: 'True', reason: 'InvalidChartReference', message: STALLED_MSG }]),
      ...(o.fetch ? [{ type: 'FetchFailed', status: 'True', ...o.fetch }] : []),
      { type: 'Ready', status: o.ready?.status ?? 'False', reason: o.stalled === false ? 'Failed' : 'InvalidChartReference', message: o.ready?.message ?? STALLED_MSG },
    ],
  },
});

const repo = (o: { stalled?: boolean; observed?: number; message?: string } = {}): LiveChartSource => ({
  kind: 'HelmRepository',
  metadata: { name: 'repo', namespace: 'flux-system', generation: 1 },
  spec: { url: 'http://127.0.0.1:9/charts' },
  status: {
    observedGeneration: o.observed ?? 1,
    conditions: [
      ...(o.stalled ? [{ type: 'Stalled', status: 'True', reason: 'URLInvalid', message: 'invalid Helm repository URL: parse "::": missing protocol scheme' }] : []),
      { type: 'Ready', status: 'False', reason: 'Failed', message: o.message ?? 'failed to fetch Helm repository index: dial tcp 127.0.0.1:9: connect: connection refused' },
    ],
  },
});
const noArtifact = { reason: 'NoSourceArtifact', message: "no artifact available for HelmRepository source 'repo'" };

describe('chartVerdict', () => {
  it.each([
    ['a HelmChart Stalled at its generation, with the template\'s spec: failed, with source-controller\'s words', hr(), chart(), undefined, { state: 'failed', failure: { release: { kind: 'HelmRelease', namespace: 'it-helm', name: 'web' }, chart: { kind: 'HelmChart', namespace: 'flux-system', name: 'it-helm-web' }, stalled: { kind: 'HelmChart', namespace: 'flux-system', name: 'it-helm-web' }, reason: 'InvalidChartReference', message: STALLED_MSG, template: { chart: 'web', version: '9.9.9', sourceRef: 'HelmRepository/flux-system/repo' } } }],
    ['Stalled, but for an older generation than its spec (source-controller has not looked yet): waiting', hr(), chart({ gen: 4, observed: 3 }), undefined, { state: 'waiting' }],
    ['Stalled for the old version while the release asks for another (helm-controller has not applied the template yet): waiting', hr({ version: '0.1.0' }), chart(), undefined, { state: 'waiting', line: 'HelmRelease/it-helm/web waits for HelmChart/flux-system/it-helm-web to take its new chart spec' }],
    ['not Stalled (a pull error source-controller retries): waiting, in its words', hr(), chart({ stalled: false, ready: { status: 'False', message: 'chart pull error: failed to download chart: connection refused' } }), undefined, { state: 'waiting', line: 'HelmRelease/it-helm/web waits for HelmChart/flux-system/it-helm-web: chart pull error: failed to download chart: connection refused' }],
    ['waiting for an artifact from a repository that is unreachable (it may come back): waiting, naming the repository', hr(), chart({ stalled: false, fetch: noArtifact, ready: { status: 'False', message: noArtifact.message } }), repo(), { state: 'waiting', line: "HelmRelease/it-helm/web waits for HelmChart/flux-system/it-helm-web: no artifact available for HelmRepository source 'repo'; HelmRepository/flux-system/repo: failed to fetch Helm repository index: dial tcp 127.0.0.1:9: connect: connection refused" }],
    ['waiting for an artifact from a repository that is Stalled: failed, on the repository', hr(), chart({ stalled: false, fetch: noArtifact }), repo({ stalled: true }), { state: 'failed', failure: { stalled: { kind: 'HelmRepository', namespace: 'flux-system', name: 'repo' }, reason: 'URLInvalid', chart: { kind: 'HelmChart', namespace: 'flux-system', name: 'it-helm-web' } } }],
    ['a repository Stalled for an older generation: waiting', hr(), chart({ stalled: false, fetch: noArtifact }), { ...repo({ stalled: true }), metadata: { name: 'repo', namespace: 'flux-system', generation: 2 } }, { state: 'waiting' }],
    ['no HelmChart (yet): waiting', hr(), undefined, undefined, { state: 'waiting', line: 'HelmRelease/it-helm/web waits for HelmChart/flux-system/it-helm-web: not found' }],
  ])('%s', (_name, release, c, up, expected) => {
    expect(chartVerdict(release, c, up)).toMatchObject(expected);
  });

  it.each([
    ['Ready', hr({ status: 'True', reason: 'InstallSucceeded' })],
    ['not ready for another reason (an install failing)', hr({ reason: 'InstallFailed' })],
    ['SourceNotReady for an older generation of the release (its new spec not looked at yet)', hr({ gen: 3, readyGen: 2 })],
  ])('says nothing of a release whose source is not what keeps it: %s', (_name, release) => {
    expect(chartVerdict(release, chart())).toBeNull();
  });

  it('a chartRef to an OCIRepository Stalled at its generation fails on that source, with no template to fix', () => {
    const oci: LiveChartSource = { kind: 'OCIRepository', metadata: { name: 'podinfo', namespace: 'it-helm', generation: 1 }, status: { observedGeneration: 1, conditions: [{ type: 'Stalled', status: 'True', reason: 'URLInvalid', message: 'URL must be in format \'oci://<domain>/<org>/<repo>\'' }] } };
    expect(chartVerdict(hr({ chartRef: { kind: 'OCIRepository', name: 'podinfo' }, message: 'OCIRepository \'it-helm/podinfo\' is not ready: URL must be…' }), oci)).toEqual({
      state: 'failed',
      failure: { release: { kind: 'HelmRelease', namespace: 'it-helm', name: 'web' }, chart: { kind: 'OCIRepository', namespace: 'it-helm', name: 'podinfo' }, stalled: { kind: 'OCIRepository', namespace: 'it-helm', name: 'podinfo' }, reason: 'URLInvalid', message: "URL must be in format 'oci://<domain>/<org>/<repo>'", template: null },
    });
  });
});

describe('where a HelmRelease takes its chart from', () => {
  it.each([
    ['a template: HelmChart <ns>-<name> in its sourceRef\'s namespace', hr(), { kind: 'HelmChart', namespace: 'flux-system', name: 'it-helm-web' }],
    ['a template whose sourceRef has no namespace: the release\'s', hr({ sourceNs: '' }), { kind: 'HelmChart', namespace: 'it-helm', name: 'it-helm-web' }],
    ['a chartRef: the object it names, in the release\'s namespace by default', hr({ chartRef: { kind: 'OCIRepository', name: 'podinfo' } }), { kind: 'OCIRepository', namespace: 'it-helm', name: 'podinfo' }],
    ['a chartRef with a namespace', hr({ chartRef: { kind: 'HelmChart', name: 'shared', namespace: 'flux-system' } }), { kind: 'HelmChart', namespace: 'flux-system', name: 'shared' }],
  ])('%s', (_name, release, expected) => {
    expect(chartSourceOf(release)).toEqual(expected);
  });

  it('SourceNotReady counts only at the release\'s current generation', () => {
    expect(sourceNotReady(hr())).toBe(true);
    expect(sourceNotReady(hr({ gen: 5, readyGen: 4 }))).toBe(false);
    expect(sourceNotReady(hr({ reason: 'ArtifactFailed' }))).toBe(false);
  });

  it('a HelmChart waits on its source only while it has no artifact from it (FetchFailed NoSourceArtifact)', () => {
    expect(upstreamOf(chart({ stalled: false, fetch: noArtifact }))).toEqual({ kind: 'HelmRepository', namespace: 'flux-system', name: 'repo' });
    expect(upstreamOf(chart({ stalled: false, fetch: { reason: 'ChartPullError', message: 'x' } }))).toBeNull();
  });
});

describe('what a tier\'s health check waits on', () => {
  const ks = (spec: Record<string, unknown>, status: LiveKustomization['status'] = {}, generation = 1): LiveKustomization => ({ metadata: { name: 'web', namespace: 'flux-system', generation }, spec, status });
  const inventory = { entries: [{ id: 'it-helm_web_helm.toolkit.fluxcd.io_HelmRelease', v: 'v2' }, { id: '_it-helm__Namespace', v: 'v1' }, { id: 'it-helm_web_apps_Deployment', v: 'v1' }, { id: 'flux-system_repo_source.toolkit.fluxcd.io_HelmRepository', v: 'v1' }] };

  it.each([
    ['wait: true: every HelmRelease it applied (its inventory)', ks({ wait: true }, { inventory }), [{ namespace: 'it-helm', name: 'web' }]],
    ['wait: false: only the HelmReleases its healthChecks name', ks({ wait: false, healthChecks: [{ apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'db', namespace: 'data' }, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'x', namespace: 'y' }] }, { inventory }), [{ namespace: 'data', name: 'db' }]],
    ['wait: false, no healthChecks: none', ks({}, { inventory }), []],
  ])('%s', (_name, k, expected) => {
    expect(releasesWaitedOn(k)).toEqual(expected);
  });

  it.each([
    ['running health checks for a revision: that revision', [{ type: 'Reconciling', status: 'True', reason: 'Progressing', message: `Running health checks for revision ${REV} with a timeout of 40s`, observedGeneration: 1 }], 1, REV],
    ['building (not applied yet): none', [{ type: 'Reconciling', status: 'True', reason: 'Progressing', message: `Building manifests for revision ${REV} with a timeout of 40s`, observedGeneration: 1 }], 1, null],
    ['health checks of an older generation of the Kustomization: none', [{ type: 'Reconciling', status: 'True', reason: 'Progressing', message: `Running health checks for revision ${REV} with a timeout of 40s`, observedGeneration: 1 }], 2, null],
    ['not reconciling: none', [{ type: 'Ready', status: 'True', reason: 'ReconciliationSucceeded', message: `Applied revision: ${REV}` }], 1, null],
  ])('%s', (_name, conditions, generation, expected) => {
    expect(healthCheckRevision(ks({ wait: true }, { conditions }, generation))).toBe(expected);
  });
});
