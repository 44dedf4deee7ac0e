// tiers.yaml's bootstrap.install in chart form: flux-operator named as a Helm chart (a chart directory, a HelmRelease)
// is rendered with helm (a fake one, and the testbed's real one), its objects owned by the release; no helm, or helm
// failing, is exit 2 naming tiers.yaml:LINE and helm's words; the FluxInstance
// given as the flux-instance chart (a HelmRelease of it, or its values file) is the FluxInstance the chart renders.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execa } from 'execa';
import { serveOciChart } from '../helpers/oci-chart-registry.js';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { testbedBinDir } from '../testbed/paths.js';
import { PROJECT } from '../integration/cli.js';
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
const full = { bootstrap: 'full', checks: false, fallback: 'none', env: {} } as const;

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
  // A fake helm: prints its argv and stdin into a ConfigMap and a Deployment, or fails as helm does.
  const fakeHelm = (body: string) => {
    const bin = path.join(dir, `helm-${Math.random().toString(36).slice(2)}`);
    writeFileSync(bin, `#!/bin/sh\n${body}\n`);
    chmodSync(bin, 0o755);
    return bin;
  };
  const echoHelm = () => fakeHelm(`stdin=$(cat | base64 -w0)
printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: argv, namespace: flux-system}\\ndata:\\n  argv: "%s"\\n  stdin: "%s"\\n---\\napiVersion: apps/v1\\nkind: Deployment\\nmetadata: {name: flux-operator, namespace: flux-system}\\nspec: {}\\n' "$*" "$stdin"`);
  const helmRelease = 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {name: flux-operator, namespace: flux-system}\nspec: {url: "oci://ghcr.io/controlplaneio-fluxcd/charts/flux-operator", ref: {tag: 0.58.1}}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: fo-values, namespace: flux-system}\nstringData:\n  values.yaml: "token: s3cret"\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: flux-operator, namespace: flux-system}\nspec:\n  chartRef: {kind: OCIRepository, name: flux-operator}\n  valuesFrom: [{kind: Secret, name: fo-values}]\n';
  afterEach(() => vi.unstubAllEnvs());

  it('a HelmRelease of the chart: helm template with its chart, version and values (on stdin), every object owned by the release, the namespace first', async () => {
    vi.stubEnv('STANDUP_HELM', echoHelm());
    const repo = makeRepo({ ...base, 'tiers.yaml': tiers('bootstrap/operator.yaml'), 'clusters/dev/flux-system/instance.yaml': instanceYaml, 'bootstrap/operator.yaml': helmRelease });
    const t = await readRunTarget(flags(repo), full);
    const objects = t.bootstrap?.install?.objects ?? [];
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['Namespace/flux-system', 'ConfigMap/argv', 'Deployment/flux-operator']);
    const data = (objects[1] as unknown as { data: { argv: string; stdin: string } }).data;
    expect(data.argv).toBe('template flux-operator oci://ghcr.io/controlplaneio-fluxcd/charts/flux-operator --namespace flux-system --include-crds --version 0.58.1 -f -');
    expect(Buffer.from(data.stdin, 'base64').toString()).toBe('token: s3cret\n');
    for (const o of objects.slice(1)) {
      expect(o.metadata.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');
      expect(o.metadata.annotations).toMatchObject({ 'meta.helm.sh/release-name': 'flux-operator', 'meta.helm.sh/release-namespace': 'flux-system' });
    }
    expect(objects[0]!.metadata.annotations).toBeUndefined();
    expect(t.bootstrap?.install?.file).toBe('bootstrap/operator.yaml (helm template flux-operator)');
  });

  it('helm fails: exit 2 naming tiers.yaml:LINE, the chart and helm\'s own words', async () => {
    vi.stubEnv('STANDUP_HELM', fakeHelm('echo "Error: INSTALLATION FAILED: chart \\"flux-operator\\" version \\"9.9.9\\" not found" >&2; exit 1'));
    const repo = makeRepo({ ...base, 'tiers.yaml': tiers('bootstrap/operator.yaml'), 'clusters/dev/flux-system/instance.yaml': instanceYaml, 'bootstrap/operator.yaml': helmRelease });
    const e = await readRunTarget(flags(repo), full).then(() => null, (x: unknown) => x as Error & { code: string; hint?: string });
    expect(e?.code).toBe('HELM_FAILED');
    expect(exitCodeOf('HELM_FAILED')).toBe(2);
    expect(e?.message).toBe('tiers.yaml:8: clusters.dev.bootstrap.install.operator names bootstrap/operator.yaml, a HelmRelease (HelmRelease/flux-system/flux-operator, chart flux-operator), chart oci://ghcr.io/controlplaneio-fluxcd/charts/flux-operator 0.58.1: helm template failed (exit 1): Error: INSTALLATION FAILED: chart "flux-operator" version "9.9.9" not found');
    expect(e?.hint).toContain('helm template flux-operator oci://ghcr.io/controlplaneio-fluxcd/charts/flux-operator --namespace flux-system --include-crds > bootstrap/flux-operator.yaml');
  });

  it('no helm: exit 2 saying to install helm or commit the rendered manifests', async () => {
    vi.stubEnv('STANDUP_HELM', '');
    // PATH without helm, with kustomize's (the repository is rendered with it).
    vi.stubEnv('PATH', (process.env.PATH ?? '').split(path.delimiter).filter((d) => !existsSync(path.join(d, 'helm'))).join(path.delimiter));
    const repo = makeRepo({ ...base, 'tiers.yaml': tiers('charts/flux-operator'), 'clusters/dev/flux-system/instance.yaml': instanceYaml, 'charts/flux-operator/Chart.yaml': 'apiVersion: v2\nname: flux-operator\nversion: 0.58.1\n' });
    const e = await readRunTarget(flags(repo), full).then(() => null, (x: unknown) => x as Error & { code: string; hint?: string });
    expect(e?.code).toBe('HELM_NOT_FOUND');
    expect(exitCodeOf('HELM_NOT_FOUND')).toBe(2);
    expect(e?.message).toBe('tiers.yaml:8: clusters.dev.bootstrap.install.operator names charts/flux-operator, a Helm chart directory (Chart.yaml: flux-operator 0.58.1), chart charts/flux-operator: standup renders it with helm, and helm is not on PATH');
    expect(e?.hint).toMatch(/^Install helm .*or set STANDUP_HELM to its path\), or commit its rendered manifests \(`helm template flux-operator charts\/flux-operator --namespace flux-system --include-crds > bootstrap\/flux-operator\.yaml`/);
    vi.stubEnv('STANDUP_HELM', path.join(dir, 'no-such-helm'));
    await expect(readRunTarget(flags(repo), full)).rejects.toMatchObject({ code: 'HELM_NOT_FOUND', message: expect.stringContaining(`STANDUP_HELM=${path.join(dir, 'no-such-helm')} is not an executable`) });
  });

  it.skipIf(!existsSync(path.join(testbedBinDir(), 'helm')))("the real helm (the testbed's) renders a chart directory: CRDs included, the release's ownership on each object", async () => {
    vi.stubEnv('STANDUP_HELM', path.join(testbedBinDir(), 'helm'));
    const chart = path.join(PROJECT, 'test/fixtures/charts/flux-operator');
    const files: Record<string, string> = {};
    for (const f of ['Chart.yaml', 'values.yaml', 'templates/_helpers.tpl', 'templates/deployment.yaml', 'templates/rbac.yaml', 'templates/serviceaccount.yaml', 'templates/service.yaml']) files[`charts/fo/${f}`] = readFileSync(path.join(chart, f), 'utf8');
    files['charts/fo/crds/crd.yaml'] = 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: fluxinstances.fluxcd.controlplane.io}\nspec: {group: fluxcd.controlplane.io}\n';
    // The repository's own HelmRelease of the chart names the release: its name and namespace are what helm adopts by.
    files['clusters/dev/fo.yaml'] = 'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: operator, namespace: flux-system}\nspec:\n  releaseName: flux-op\n  chart: {spec: {chart: flux-operator, sourceRef: {kind: HelmRepository, name: x}}}\n';
    const repo = makeRepo({ ...base, ...files, 'tiers.yaml': tiers('charts/fo'), 'clusters/dev/flux-system/instance.yaml': instanceYaml });
    const t = await readRunTarget(flags(repo), full);
    const objects = t.bootstrap?.install?.objects ?? [];
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['Namespace/flux-system', 'CustomResourceDefinition/fluxinstances.fluxcd.controlplane.io', 'ServiceAccount/flux-operator', 'ClusterRoleBinding/flux-op-cluster-admin', 'Service/flux-operator', 'Deployment/flux-operator']);
    for (const o of objects.slice(1)) expect(o.metadata.annotations).toMatchObject({ 'meta.helm.sh/release-name': 'flux-op', 'meta.helm.sh/release-namespace': 'flux-system' });
    vi.stubEnv('STANDUP_HELM', path.join(testbedBinDir(), 'helm'));
    const bad = makeRepo({ ...base, ...files, 'charts/fo/templates/broken.yaml': '{{ .Values.nope.deeper }}\n', 'tiers.yaml': tiers('charts/fo'), 'clusters/dev/flux-system/instance.yaml': instanceYaml });
    await expect(readRunTarget(flags(bad), full)).rejects.toMatchObject({ code: 'HELM_FAILED', message: expect.stringMatching(/^tiers\.yaml:8: .*helm template failed \(exit 1\): Error: [\s\S]*broken\.yaml[\s\S]*nil pointer evaluating interface \{\}\.deeper/) });
  }, 120_000);

  it.skipIf(!existsSync(path.join(testbedBinDir(), 'helm')))('the real helm renders a .tgz, and a helmfile release of an oci:// chart on a loopback registry (--plain-http)', async () => {
    const helm = path.join(testbedBinDir(), 'helm');
    vi.stubEnv('STANDUP_HELM', helm);
    const out = mkdtempSync(path.join(dir, 'pkg-'));
    const pkg = await execa(helm, ['package', path.join(PROJECT, 'test/fixtures/charts/flux-operator'), '-d', out]);
    expect(pkg.exitCode).toBe(0);
    const tgz = readFileSync(path.join(out, 'flux-operator-0.58.1.tgz'));
    const kinds = (t: Awaited<ReturnType<typeof readRunTarget>>) => (t.bootstrap?.install?.objects ?? []).map((o) => o.kind);
    const archive = makeRepo({ ...base, 'tiers.yaml': tiers('bootstrap/flux-operator-0.58.1.tgz'), 'clusters/dev/flux-system/instance.yaml': instanceYaml, 'bootstrap/README.md': 'the chart archive\n' });
    writeFileSync(path.join(archive, 'bootstrap/flux-operator-0.58.1.tgz'), tgz);
    expect(kinds(await readRunTarget(flags(archive), full))).toEqual(['Namespace', 'ServiceAccount', 'ClusterRoleBinding', 'Service', 'Deployment']);
    const registry = await serveOciChart('flux-operator', '0.58.1', tgz);
    try {
      const helmfile = `releases:\n  - name: flux-operator\n    namespace: flux-system\n    chart: ${registry.ref}\n    version: 0.58.1\n    values:\n      - image: {tag: v0.58.1-test}\n`;
      const repo = makeRepo({ ...base, 'tiers.yaml': tiers('bootstrap/helmfile.yaml'), 'clusters/dev/flux-system/instance.yaml': instanceYaml, 'bootstrap/helmfile.yaml': helmfile });
      const t = await readRunTarget(flags(repo), full);
      expect(kinds(t)).toEqual(['Namespace', 'ServiceAccount', 'ClusterRoleBinding', 'Service', 'Deployment']);
      const d = t.bootstrap?.install?.objects.find((o) => o.kind === 'Deployment') as unknown as { spec: { template: { spec: { containers: { image: string }[] } } } };
      expect(d.spec.template.spec.containers[0]!.image).toBe('ghcr.io/controlplaneio-fluxcd/flux-operator:v0.58.1-test');
      expect(registry.requests).toContain('GET /v2/charts/flux-operator/manifests/0.58.1');
      // A version the registry does not have: helm's words, exit 2 at the line.
      const missing = makeRepo({ ...base, 'tiers.yaml': tiers('bootstrap/helmfile.yaml'), 'clusters/dev/flux-system/instance.yaml': instanceYaml, 'bootstrap/helmfile.yaml': helmfile.replace('version: 0.58.1', 'version: 9.9.9') });
      await expect(readRunTarget(flags(missing), full)).rejects.toMatchObject({ code: 'HELM_FAILED', message: expect.stringMatching(/^tiers\.yaml:8: .*chart oci:\/\/127\.0\.0\.1:\d+\/charts\/flux-operator 9\.9\.9: helm template failed \(exit 1\): Error: .*9\.9\.9.*not found/s) });
    } finally {
      await registry.close();
    }
  }, 180_000);

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
