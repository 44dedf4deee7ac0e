// tiers.yaml's bootstrap.install in chart form: flux-operator named as a Helm chart (a chart directory, an archive, a
// HelmRelease, a helmfile) is refused with exit 2 naming tiers.yaml:LINE and what to commit instead; the FluxInstance
// given as the flux-instance chart (a HelmRelease of it, or its values file) is the FluxInstance the chart renders.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readRunTarget } from '../../src/cli/read-run-target.js';
import { fluxInstanceFromChartValues } from '../../src/bootstrap/flux-instance-chart.js';
import { exitCodeOf } from '../../src/model/errors.js';
import { preflight } from '../../src/runner/preflight.js';
import { systemClock } from '../../src/runner/clock.js';
import { StepTracker } from '../../src/runner/steps.js';
import type { RunTarget } from '../../src/runner/run-target.js';
import { offlineKubeconfig } from '../helpers/offline-kubeconfig.js';
import { cleanupRepos, ks, makeRepo } from '../helpers/repo-fixtures.js';

const { dir, kubeconfig } = offlineKubeconfig('standup-bootstrap-chart-');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  cleanupRepos();
});
const flags = (repo: string) => ({ repo, cluster: [], kubeconfig, path: undefined, source: undefined, context: undefined, timeout: undefined }) as unknown as Parameters<typeof readRunTarget>[0];
const full = { bootstrap: 'full', checks: false, fallback: 'none' } as const;

const tiers = (operator: string, instance = 'clusters/dev/flux-system/instance.yaml') =>
  `version: 1\nclusters:\n  dev:\n    path: clusters/dev\n    context: dev\n    bootstrap:\n      install:\n        operator: ${operator}\n        instance: ${instance}\n`;
const operatorYaml = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: flux-operator, namespace: flux-system}\nspec: {}\n';
const instanceYaml = 'apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata: {name: flux, namespace: flux-system}\nspec:\n  distribution: {version: "2.x", registry: ghcr.io/fluxcd}\n  sync: {kind: GitRepository, url: "https://example.com/r.git", ref: refs/heads/main, path: clusters/dev}\n';
const base = { 'clusters/dev/a.yaml': ks('a', { path: './apps/a' }), 'apps/a/kustomization.yaml': 'resources: []\n' };
const release = (values: string, extra = '') => `${extra}---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: flux-instance, namespace: flux-system}
spec:
  interval: 1h
  chartRef: {kind: OCIRepository, name: flux-instance}
${values}`;

describe('bootstrap.install in chart form', () => {
  it.each([
    ['a chart directory', 'charts/flux-operator', { 'charts/flux-operator/Chart.yaml': 'apiVersion: v2\nname: flux-operator\nversion: 0.58.1\n', 'charts/flux-operator/templates/deployment.yaml': 'kind: Deployment\nmetadata: {name: {{ include "x" . }}}\n' }, /a Helm chart directory \(Chart\.yaml: flux-operator 0\.58\.1\)/, 'helm template flux-operator charts/flux-operator --namespace flux-system'],
    ['a packaged chart', 'bootstrap/flux-operator-0.58.1.tgz', { 'bootstrap/flux-operator-0.58.1.tgz': 'not really gzip' }, /a packaged Helm chart/, 'helm template flux-operator bootstrap/flux-operator-0.58.1.tgz'],
    ['a HelmRelease of the chart', 'bootstrap/operator.yaml', { 'bootstrap/operator.yaml': 'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: flux-operator, namespace: flux-system}\nspec:\n  chartRef: {kind: OCIRepository, name: flux-operator}\n' }, /a HelmRelease \(HelmRelease\/flux-system\/flux-operator, chart flux-operator\)/, 'helm template flux-operator flux-operator'],
    ['a helmfile', 'bootstrap/helmfile.yaml', { 'bootstrap/helmfile.yaml': 'releases:\n  - name: flux-operator\n    namespace: flux-system\n    chart: oci://ghcr.io/controlplaneio-fluxcd/charts/flux-operator\n    version: 0.58.1\n' }, /a helmfile \(release flux-operator, chart oci:\/\/ghcr\.io\/controlplaneio-fluxcd\/charts\/flux-operator\)/, 'helm template flux-operator oci://ghcr.io/controlplaneio-fluxcd/charts/flux-operator'],
  ])('refuses %s with exit 2, tiers.yaml:LINE and what to commit', async (_n, operator, files, what, command) => {
    const repo = makeRepo({ ...base, 'tiers.yaml': tiers(operator), 'clusters/dev/flux-system/instance.yaml': instanceYaml, ...files });
    const e = await readRunTarget(flags(repo), full).then(() => null, (x: unknown) => x as Error & { code: string; hint?: string });
    expect(e?.code).toBe('BOOTSTRAP_CHART');
    expect(exitCodeOf('BOOTSTRAP_CHART')).toBe(2);
    expect(e?.message).toMatch(new RegExp(`^tiers\\.yaml:8: clusters\\.dev\\.bootstrap\\.install\\.operator names ${operator.replace(/\./g, '\\.')}, `));
    expect(e?.message).toMatch(what);
    expect(e?.message).toContain('renders no Helm chart');
    expect(e?.hint).toContain(command);
  });

  it('rendered manifests are read as before', async () => {
    const repo = makeRepo({ ...base, 'tiers.yaml': tiers('bootstrap/flux-operator.yaml'), 'bootstrap/flux-operator.yaml': operatorYaml, 'clusters/dev/flux-system/instance.yaml': instanceYaml });
    const t = await readRunTarget(flags(repo), full);
    expect(t.bootstrap?.install?.objects.map((o) => o.kind)).toEqual(['Deployment']);
    expect(t.bootstrap?.instance?.object.spec).toMatchObject({ sync: { path: 'clusters/dev' } });
  });

  it('a flux-instance HelmRelease (values inline and from a ConfigMap beside it) gives the FluxInstance the chart renders', async () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flux-values, namespace: flux-system}\ndata:\n  values.yaml: |\n    instance:\n      distribution: {version: "2.9.x"}\n      sync: {kind: GitRepository, url: "https://example.com/fleet.git", ref: refs/heads/main, path: clusters/dev}\n';
    const values = '  valuesFrom:\n    - {kind: ConfigMap, name: flux-values}\n  values:\n    instance:\n      components: [source-controller, kustomize-controller]\n      cluster: {type: kubernetes, size: ""}\n';
    const repo = makeRepo({ ...base, 'tiers.yaml': tiers('bootstrap/flux-operator.yaml', 'bootstrap/flux-instance.yaml'), 'bootstrap/flux-operator.yaml': operatorYaml, 'bootstrap/flux-instance.yaml': release(values, cm) });
    const t = await readRunTarget(flags(repo), full);
    const fi = t.bootstrap?.instance?.object;
    expect(fi?.metadata).toMatchObject({ name: 'flux', namespace: 'flux-system' });
    expect(fi?.spec).toEqual({
      distribution: { version: '2.9.x', registry: 'ghcr.io/fluxcd', artifact: 'oci://ghcr.io/controlplaneio-fluxcd/flux-operator-manifests:latest' },
      components: ['source-controller', 'kustomize-controller'],
      cluster: { type: 'kubernetes', domain: 'cluster.local', networkPolicy: true, multitenant: false, tenantDefaultServiceAccount: 'default' },
      kustomize: { patches: [] },
      sync: { kind: 'GitRepository', interval: '1m', url: 'https://example.com/fleet.git', ref: 'refs/heads/main', path: 'clusters/dev' },
    });
    expect(t.ctx.rootSync.source).toEqual({ kind: 'GitRepository', namespace: 'flux-system', name: 'flux-system' });
  });

  it("a flux-instance HelmRelease whose values come from a ConfigMap the file lacks: exit 2 naming it", async () => {
    const repo = makeRepo({ ...base, 'tiers.yaml': tiers('bootstrap/flux-operator.yaml', 'bootstrap/flux-instance.yaml'), 'bootstrap/flux-operator.yaml': operatorYaml, 'bootstrap/flux-instance.yaml': release('  valuesFrom:\n    - {kind: ConfigMap, name: elsewhere}\n') });
    await expect(readRunTarget(flags(repo), full)).rejects.toMatchObject({ code: 'BOOTSTRAP_INSTANCE_INVALID', message: expect.stringContaining('takes its values from ConfigMap/elsewhere') });
  });

  it("the chart's values file (helmfile's values for flux-instance) gives the same", () => {
    const fi = fluxInstanceFromChartValues({ instance: { sync: { url: 'oci://ghcr.io/x/fleet', kind: 'OCIRepository', ref: 'latest', path: 'clusters/prod', pullSecretStringData: { token: 'x' } }, storage: { size: '10Gi', class: 'standard' }, sharding: { shards: ['a'] } }, fullnameOverride: '' }, 'flux', 'flux-system');
    expect(fi.metadata).toEqual({ name: 'flux-flux-instance', namespace: 'flux-system' });
    expect(fi.spec.sync).toEqual({ kind: 'OCIRepository', interval: '1m', url: 'oci://ghcr.io/x/fleet', ref: 'latest', path: 'clusters/prod', pullSecret: 'flux-flux-instance-pull' });
    expect(fi.spec.storage).toEqual({ size: '10Gi', class: 'standard' });
    expect(fi.spec.sharding).toEqual({ key: 'sharding.fluxcd.io/key', shards: ['a'] });
    expect(fluxInstanceFromChartValues({}, 'flux', 'flux-system').spec.sync).toBeUndefined();
  });

  it('up with no install configured, on a cluster without Flux: the hint names the helmfile releases of the charts', async () => {
    const helmfile = 'releases:\n  - name: flux-operator\n    namespace: flux-system\n    chart: oci://ghcr.io/controlplaneio-fluxcd/charts/flux-operator\n  - name: flux-instance\n    namespace: flux-system\n    chart: oci://ghcr.io/controlplaneio-fluxcd/charts/flux-instance\n    values: [./flux-instance.yaml]\n';
    const repo = makeRepo({ ...base, 'tiers.yaml': 'version: 1\nclusters:\n  dev:\n    path: clusters/dev\n    context: dev\n    bootstrap:\n      install: already-running\n      sync: clusters/dev\n', 'bootstrap/helmfile.yaml': helmfile });
    const t = await readRunTarget(flags(repo), full);
    expect(t.fluxChartInstalls).toEqual([
      'bootstrap/helmfile.yaml:2 (helmfile release flux-operator, chart oci://ghcr.io/controlplaneio-fluxcd/charts/flux-operator)',
      'bootstrap/helmfile.yaml:5 (helmfile release flux-instance, chart oci://ghcr.io/controlplaneio-fluxcd/charts/flux-instance)',
    ]);
    const noFlux = { ...t, client: { find: async () => undefined } } as unknown as RunTarget;
    const e = await preflight(noFlux, 'up', { emit: () => undefined, steps: new StepTracker(() => undefined), signal: new AbortController().signal, clock: systemClock }).then(() => null, (x: unknown) => x as Error & { code: string; hint: string });
    expect(e?.code).toBe('FLUX_MISSING');
    expect(e?.hint).toMatch(/^This repository installs Flux through flux-operator's Helm charts \(bootstrap\/helmfile\.yaml:2 \(helmfile release flux-operator, .*\); bootstrap\/helmfile\.yaml:5 .*Run that bootstrap first, then `standup resume`/);
  });
});
