// The FluxInstance the flux-instance Helm chart (controlplaneio-fluxcd/charts, charts/flux-instance) renders from its
// values, so a repository that installs Flux as `helm install flux-instance` (a HelmRelease, or a helmfile release with
// a values file) gives `up` the same object without helm. Mirrors the chart's templates/instance.yaml over its
// values.yaml defaults: distribution (version, registry, artifact, and the optional pull secrets and variant),
// components, cluster (entries whose value is "" left out), commonMetadata when it has labels or annotations, kustomize,
// sync only when it has a url, storage only with a size, sharding only with shards. Not rendered: the chart's other
// templates (a health-check Job, a pull Secret from pullSecretStringData, a ServiceAccount), which `up` does not need
// to install Flux; a pullSecretStringData names the `<fullname>-pull` Secret the chart would create.
import type { Obj } from '../model/k8s.js';

const isMap = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** The chart's values.yaml defaults that instance.yaml reads. */
const DEFAULTS: Obj = {
  fullnameOverride: 'flux',
  instance: {
    distribution: { version: '2.x', registry: 'ghcr.io/fluxcd', artifact: 'oci://ghcr.io/controlplaneio-fluxcd/flux-operator-manifests:latest' },
    components: ['source-controller', 'kustomize-controller', 'helm-controller', 'notification-controller'],
    cluster: { type: 'kubernetes', size: '', domain: 'cluster.local', networkPolicy: true, multitenant: false, tenantDefaultServiceAccount: 'default' },
    commonMetadata: { labels: {}, annotations: {} },
    storage: { class: '', size: '' },
    sharding: { key: 'sharding.fluxcd.io/key', shards: [] },
    sync: { interval: '1m', kind: 'GitRepository', url: '', ref: '', path: '', pullSecret: '', name: '', provider: '' },
    kustomize: { patches: [] },
  },
};

/** Helm's coalescing of user values over the chart's defaults: maps merge, anything else replaces. */
function coalesce(base: Obj, over: Obj): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isMap(v) && isMap(base[k]) ? coalesce(base[k], v) : v;
  return out;
}

/** The chart's `flux-instance.fullname`: fullnameOverride, else the release name (with the chart name unless it holds it). */
function fullname(values: Obj, release: string): string {
  const trunc = (s: string) => s.slice(0, 63).replace(/-+$/, '');
  if (values.fullnameOverride) return trunc(String(values.fullnameOverride));
  const name = String(values.nameOverride || 'flux-instance');
  return trunc(release.includes(name) ? release : `${release}-${name}`);
}

const set = (v: unknown): boolean => v !== undefined && v !== null && v !== '' && v !== false && !(Array.isArray(v) && v.length === 0) && !(isMap(v) && Object.keys(v).length === 0);

/** The FluxInstance the chart renders for release `release` in `namespace` with the user's `values`. */
export function fluxInstanceFromChartValues(userValues: Obj, release: string, namespace: string): Obj {
  const values = coalesce(DEFAULTS, userValues);
  const i: Obj = values.instance;
  const name = fullname(values, release);
  const d: Obj = i.distribution ?? {};
  const spec: Obj = {
    distribution: {
      version: String(d.version),
      registry: d.registry,
      artifact: d.artifact,
      ...(set(d.artifactPullSecret) ? { artifactPullSecret: d.artifactPullSecret } : {}),
      ...(set(d.imagePullSecret) ? { imagePullSecret: d.imagePullSecret } : {}),
      ...(set(d.variant) ? { variant: d.variant } : {}),
    },
    components: i.components,
    cluster: Object.fromEntries(Object.entries(isMap(i.cluster) ? i.cluster : {}).filter(([, v]) => v !== '')),
  };
  const meta: Obj = i.commonMetadata ?? {};
  if (set(meta.annotations) || set(meta.labels)) spec.commonMetadata = { ...(set(meta.annotations) ? { annotations: meta.annotations } : {}), ...(set(meta.labels) ? { labels: meta.labels } : {}) };
  spec.kustomize = i.kustomize;
  const s: Obj = i.sync ?? {};
  if (set(s.url)) {
    spec.sync = {
      kind: s.kind,
      interval: s.interval,
      url: s.url,
      ref: s.ref,
      path: s.path,
      ...(set(s.name) ? { name: s.name } : {}),
      ...(set(s.provider) ? { provider: s.provider } : {}),
      ...(set(s.pullSecretStringData) ? { pullSecret: `${name}-pull` } : set(s.pullSecret) ? { pullSecret: s.pullSecret } : {}),
    };
  }
  if (set(i.storage?.size)) spec.storage = i.storage;
  if (set(i.sharding?.shards)) spec.sharding = { key: i.sharding.key, shards: i.sharding.shards };
  return {
    apiVersion: 'fluxcd.controlplane.io/v1',
    kind: 'FluxInstance',
    metadata: { name, namespace, ...(set(values.commonAnnotations) ? { annotations: values.commonAnnotations } : {}) },
    spec,
  };
}
