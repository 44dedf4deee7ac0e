// The chart, version, release and values `up` hands to `helm template` for each form bootstrap.install.operator may
// name the flux-operator chart in (a chart directory, a .tgz, a HelmRelease from a HelmRepository or an OCIRepository
// with valuesFrom, a helmfile release), the argv built from them, and helm's ownership metadata.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chartSource, ChartSourceError, type ReleaseLookup, type SourceLookup } from '../../src/bootstrap/chart-source.js';
import { helmArgv, isLoopbackOci } from '../../src/bootstrap/helm-template.js';
import { withHelmOwnership } from '../../src/bootstrap/helm-ownership.js';
import { cleanupRepos, makeRepo } from '../helpers/repo-fixtures.js';

afterAll(() => cleanupRepos());

const none: SourceLookup = () => null;
const noRelease: ReleaseLookup = () => null;
const src = (repo: string, file: string, sources = none, releaseOf = noRelease) => chartSource(path.join(repo, file), file, { sources, releaseOf });

const helmRelease = (chart: string, extra = '') => `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: flux-operator, namespace: flux-system}
spec:
  interval: 1h
${chart}${extra}`;

describe('chartSource and helmArgv', () => {
  it('a chart directory: the release the repository gives the chart (or flux-operator/flux-system), no --version', () => {
    const repo = makeRepo({ 'charts/fo/Chart.yaml': 'apiVersion: v2\nname: flux-operator\nversion: 0.58.1\n', 'charts/fo/templates/a.yaml': '' });
    const s = src(repo, 'charts/fo')!;
    expect(s).toMatchObject({ chart: path.join(repo, 'charts/fo'), release: 'flux-operator', namespace: 'flux-system', version: null, values: null });
    expect(helmArgv(s)).toEqual(['template', 'flux-operator', path.join(repo, 'charts/fo'), '--namespace', 'flux-system', '--include-crds']);
    const named = src(repo, 'charts/fo', none, (c) => (c === 'flux-operator' ? { release: 'fo', namespace: 'ops' } : null))!;
    expect(helmArgv(named).slice(0, 5)).toEqual(['template', 'fo', path.join(repo, 'charts/fo'), '--namespace', 'ops']);
  });

  it('a .tgz: its chart name from the file name, for the release lookup', () => {
    const repo = makeRepo({ 'bootstrap/flux-operator-0.58.1.tgz': 'x' });
    const asked: string[] = [];
    const s = src(repo, 'bootstrap/flux-operator-0.58.1.tgz', none, (c) => (asked.push(c), null))!;
    expect(asked).toEqual(['flux-operator']);
    expect(helmArgv(s)).toEqual(['template', 'flux-operator', path.join(repo, 'bootstrap/flux-operator-0.58.1.tgz'), '--namespace', 'flux-system', '--include-crds']);
  });

  it('a HelmRelease with an OCIRepository chartRef, values from a ConfigMap beside it and inline (inline wins), targetNamespace', () => {
    const file = `apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata: {name: flux-operator, namespace: flux-system}
spec:
  url: oci://ghcr.io/controlplaneio-fluxcd/charts/flux-operator
  ref: {tag: 0.58.1}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: fo-values, namespace: flux-system}
data:
  values.yaml: |
    resources: {limits: {memory: 2Gi}}
    hostNetwork: true
---
${helmRelease('  chartRef: {kind: OCIRepository, name: flux-operator}\n', '  targetNamespace: ops\n  valuesFrom:\n    - {kind: ConfigMap, name: fo-values}\n  values:\n    hostNetwork: false\n')}`;
    const repo = makeRepo({ 'bootstrap/fo.yaml': file });
    const s = src(repo, 'bootstrap/fo.yaml')!;
    // helm-controller's release name with a targetNamespace: <targetNamespace>-<name>.
    expect(s).toMatchObject({ chart: 'oci://ghcr.io/controlplaneio-fluxcd/charts/flux-operator', version: '0.58.1', release: 'ops-flux-operator', namespace: 'ops', repo: null });
    expect(s.values).toEqual({ resources: { limits: { memory: '2Gi' } }, hostNetwork: false });
    expect(helmArgv(s)).toEqual(['template', 'ops-flux-operator', 'oci://ghcr.io/controlplaneio-fluxcd/charts/flux-operator', '--namespace', 'ops', '--include-crds', '--version', '0.58.1', '-f', '-']);
  });

  it('a HelmRelease of a chart from an https HelmRepository found elsewhere in the repository: --repo; an OCI HelmRepository: <url>/<chart>', () => {
    const repo = makeRepo({ 'bootstrap/fo.yaml': helmRelease('  releaseName: fo\n  chart:\n    spec:\n      chart: flux-operator\n      version: "0.58.x"\n      sourceRef: {kind: HelmRepository, name: cp}\n') });
    const https: SourceLookup = (kind, ns, name) => (kind === 'HelmRepository' && ns === 'flux-system' && name === 'cp' ? { spec: { url: 'https://charts.example.com' } } : null);
    expect(helmArgv(src(repo, 'bootstrap/fo.yaml', https)!)).toEqual(['template', 'fo', 'flux-operator', '--namespace', 'flux-system', '--include-crds', '--version', '0.58.x', '--repo', 'https://charts.example.com']);
    const oci: SourceLookup = () => ({ spec: { type: 'oci', url: 'oci://ghcr.io/controlplaneio-fluxcd/charts/' } });
    expect(src(repo, 'bootstrap/fo.yaml', oci)!.chart).toBe('oci://ghcr.io/controlplaneio-fluxcd/charts/flux-operator');
    // Nowhere to be found: the error names it.
    expect(() => src(repo, 'bootstrap/fo.yaml')).toThrow(/HelmRelease\/flux-system\/flux-operator's HelmRepository\/flux-system\/cp is neither in fo\.yaml nor in the repository/);
  });

  it('a HelmRelease whose valuesFrom ConfigMap is elsewhere, or whose chart is in a GitRepository: an error naming it', () => {
    const repo = makeRepo({
      'a.yaml': helmRelease('  chartRef: {kind: OCIRepository, name: fo}\n', '  valuesFrom:\n    - {kind: ConfigMap, name: gone}\n'),
      'b.yaml': helmRelease('  chart:\n    spec:\n      chart: ./charts/fo\n      sourceRef: {kind: GitRepository, name: flux-system}\n'),
    });
    expect(() => src(repo, 'a.yaml')).toThrow(ChartSourceError);
    expect(() => src(repo, 'a.yaml')).toThrow(/takes its values from ConfigMap\/gone/);
    expect(() => src(repo, 'b.yaml')).toThrow(/chart comes from a GitRepository/);
  });

  it('a helmfile release: the flux-operator one, its repository, version, values files (relative to the helmfile) then inline values', () => {
    const helmfile = `repositories:
  - name: controlplaneio
    url: ghcr.io/controlplaneio-fluxcd/charts
    oci: true
  - name: cp
    url: https://charts.example.com
releases:
  - name: cilium
    namespace: kube-system
    chart: cilium/cilium
  - name: flux-operator
    namespace: flux-system
    chart: controlplaneio/flux-operator
    version: 0.58.1
    values:
      - ./values/flux-operator.yaml
      - {replicas: 2}
`;
    const repo = makeRepo({ 'bootstrap/helmfile.yaml': helmfile, 'bootstrap/values/flux-operator.yaml': 'a: 1\n' });
    const s = src(repo, 'bootstrap/helmfile.yaml')!;
    expect(helmArgv(s)).toEqual(['template', 'flux-operator', 'oci://ghcr.io/controlplaneio-fluxcd/charts/flux-operator', '--namespace', 'flux-system', '--include-crds', '--version', '0.58.1', '-f', path.join(repo, 'bootstrap/values/flux-operator.yaml'), '-f', '-']);
    expect(s.values).toEqual({ replicas: 2 });
    expect(s.cwd).toBe(path.join(repo, 'bootstrap'));
    const https = makeRepo({ 'helmfile.yaml': helmfile.replace('chart: controlplaneio/flux-operator', 'chart: cp/flux-operator').replace('    values:\n      - ./values/flux-operator.yaml\n      - {replicas: 2}\n', '') });
    expect(helmArgv(src(https, 'helmfile.yaml')!)).toEqual(['template', 'flux-operator', 'flux-operator', '--namespace', 'flux-system', '--include-crds', '--version', '0.58.1', '--repo', 'https://charts.example.com']);
    const templated = makeRepo({ 'helmfile.yaml': 'releases:\n  - name: flux-operator\n    chart: oci://ghcr.io/x/flux-operator\n    values: [./values.yaml.gotmpl]\n' });
    expect(() => src(templated, 'helmfile.yaml')).toThrow(/values file \.\/values\.yaml\.gotmpl is a template/);
  });

  it('rendered manifests are no chart form', () => {
    const repo = makeRepo({ 'fo.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: flux-operator}\n' });
    expect(src(repo, 'fo.yaml')).toBeNull();
  });

  it('--plain-http only for an oci:// registry on loopback', () => {
    expect(['oci://127.0.0.1:5000/charts/fo', 'oci://localhost:5000/fo', 'oci://[::1]:5000/fo'].map(isLoopbackOci)).toEqual([true, true, true]);
    expect(['oci://ghcr.io/x', 'oci://127.example.com/x', 'https://127.0.0.1/x', '/tmp/chart'].map(isLoopbackOci)).toEqual([false, false, false, false]);
    expect(helmArgv({ what: '', chart: 'oci://127.0.0.1:5000/charts/flux-operator', repo: null, version: '0.58.1', release: 'flux-operator', namespace: 'flux-system', valueFiles: [], values: null, cwd: '/' })).toContain('--plain-http');
  });
});

describe('withHelmOwnership', () => {
  it("adds helm's managed-by label and release annotations to every object, keeping what was there, copying", () => {
    const input = [
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'flux-operator', namespace: 'flux-system', labels: { app: 'x' }, annotations: { a: 'b' } } },
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'fluxinstances.fluxcd.controlplane.io' } },
    ];
    const out = withHelmOwnership(input, 'flux-operator', 'flux-system');
    expect(out[0]!.metadata).toEqual({ name: 'flux-operator', namespace: 'flux-system', labels: { app: 'x', 'app.kubernetes.io/managed-by': 'Helm' }, annotations: { a: 'b', 'meta.helm.sh/release-name': 'flux-operator', 'meta.helm.sh/release-namespace': 'flux-system' } });
    expect(out[1]!.metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'Helm' });
    expect(input[0]!.metadata.labels).toEqual({ app: 'x' });
  });
});
