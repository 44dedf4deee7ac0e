// A flux-instance HelmRelease inside a ResourceSet, its values a ConfigMap that the ResourceSet's own folder
// generates (configMapGenerator, the name rewritten with its hash by a nameReference), syncing an OCI artifact
// pushed from a sub-folder; an ArtifactGenerator reads that same OCI source. Discovery finds the cluster from the
// folder's build, and the ExternalArtifacts are built from the repository (the root source is this repository,
// whatever its kind).
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupRepos, makeRepo } from '../helpers/repo-fixtures.js';
import { cli } from './run.js';

afterAll(cleanupRepos);

const RS = `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: flux-instance
  namespace: flux-system
spec:
  resources:
    - apiVersion: helm.toolkit.fluxcd.io/v2
      kind: HelmRelease
      metadata:
        name: flux-instance
        namespace: flux-system
      spec:
        interval: 1h
        chartRef:
          kind: OCIRepository
          name: flux-instance
        valuesFrom:
          - kind: ConfigMap
            name: flux-instance-values
`;
const files = (withGenerator: boolean): Record<string, string> => ({
  'kubernetes/clusters/prod/flux-system/flux-instance/app/helmrelease.yaml': RS,
  'kubernetes/clusters/prod/flux-system/flux-instance/app/kustomization.yaml':
    'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: flux-system\nresources:\n  - helmrelease.yaml\n' +
    (withGenerator ? 'configMapGenerator:\n  - name: flux-instance-values\n    files:\n      - values.yaml=./values.yaml\n' : '') +
    'configurations:\n  - kustomizeconfig.yaml\n',
  'kubernetes/clusters/prod/flux-system/flux-instance/app/kustomizeconfig.yaml':
    'nameReference:\n  - kind: ConfigMap\n    version: v1\n    fieldSpecs:\n      - path: spec/resources/spec/valuesFrom/name\n        kind: ResourceSet\n',
  'kubernetes/clusters/prod/flux-system/flux-instance/app/values.yaml':
    'instance:\n  sync:\n    kind: OCIRepository\n    url: oci://ghcr.io/example/manifests\n    ref: main\n    path: ./clusters/prod\n',
  'kubernetes/clusters/prod/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - flux-system/flux-instance/app\n  - generator.yaml\n  - apps.yaml\n',
  'kubernetes/clusters/prod/generator.yaml':
    'apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata:\n  name: parts\n  namespace: flux-system\nspec:\n  sources:\n    - alias: repo\n      kind: OCIRepository\n      name: flux-system\n' +
    '  artifacts:\n    - name: web\n      originRevision: "@repo"\n      copy:\n        - from: "@repo/apps/web/"\n          to: "@artifact/apps/web/"\n',
  'kubernetes/clusters/prod/apps.yaml':
    'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: web\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./apps/web\n  prune: true\n  sourceRef:\n    kind: ExternalArtifact\n    name: web\n',
  'kubernetes/apps/web/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: default\ndata:\n  a: b\n',
});

interface PlanJson {
  clusters: { name: string; entry: string; kustomizations: { key: string; expanded: boolean }[] }[];
}

describe('a flux-instance release in a ResourceSet, its values generated beside it, syncing an OCI sub-folder', () => {
  it('discovery reads the values from the folder build and places the artifact root; the generated artifact is built from the repository', async () => {
    const root = makeRepo(files(true));
    const r = await cli('plan', '--repo', root, '-o', 'json');
    expect(r.code).toBe(0);
    const c = (JSON.parse(r.stdout) as PlanJson).clusters;
    expect(c.map((x) => x.entry)).toEqual(['kubernetes/clusters/prod']);
    expect(c[0]!.kustomizations.find((k) => k.key === 'flux-system/web')?.expanded).toBe(true);
    const check = await cli('check', '--repo', root);
    expect(check.stdout).not.toContain('external-source');
  });

  it('values that neither the ResourceSet nor its folder provide: a warning naming the ConfigMap and the folder', async () => {
    const root = makeRepo(files(false));
    const r = await cli('plan', '--repo', root);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('takes its values from ConfigMap/flux-instance-values, which neither the ResourceSet generates nor kubernetes/clusters/prod/flux-system/flux-instance/app builds');
  });
});
