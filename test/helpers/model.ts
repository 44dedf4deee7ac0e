import type { ClusterModel, FluxKustomization, RenderedObject } from '../../src/model/flux.js';
import { configSchema, type StandupConfig } from '../../src/model/config.js';
import { planCluster, type PlanContext } from '../../src/plan/plan.js';

/** `ks('apps', {dependsOn: ['infra']})`: a Kustomization in flux-system with sensible defaults, for pure tests. */
export function ks(name: string, o: Partial<Omit<FluxKustomization, 'dependsOn'>> & { dependsOn?: string[] } = {}): FluxKustomization {
  const namespace = o.namespace ?? 'flux-system';
  return {
    key: `${namespace}/${name}`,
    namespace,
    name,
    path: `./${name}`,
    repoPath: name,
    sourceRef: { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' },
    wait: true,
    healthChecks: 0,
    prune: true,
    suspend: false,
    timeout: null,
    interval: '10m',
    targetNamespace: null,
    postBuild: null,
    parent: null,
    origin: { file: `clusters/dev/${name}.yaml`, line: 1 },
    raw: {},
    ...o,
    dependsOn: (o.dependsOn ?? []).map((d) => ({ key: d.includes('/') ? d : `${namespace}/${d}`, line: 5 })),
  };
}

/** A rendered object owned by `owner` (a key), e.g. `obj('cdi.kubevirt.io/v1beta1', 'CDI', 'cdi', 'flux-system/platform')`. */
export function obj(apiVersion: string, kind: string, name: string, owner: string | null, extra: Record<string, unknown> = {}): RenderedObject {
  return {
    apiVersion,
    kind,
    name,
    namespace: null,
    origin: { file: `${owner?.split('/')[1] ?? 'root'}/${kind.toLowerCase()}.yaml`, line: 3 },
    owner,
    raw: { apiVersion, kind, metadata: { name }, ...extra },
  };
}

export function crd(group: string, kind: string, plural: string, owner: string | null): RenderedObject {
  return obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', `${plural}.${group}`, owner, {
    spec: { group, names: { kind, plural } },
  });
}

export function cluster(name: string, kustomizations: FluxKustomization[], objects: RenderedObject[] = []): ClusterModel {
  return { name, entry: `clusters/${name}`, kustomizations, objects, objectsComplete: true, externalSources: [] };
}

export const plan = (c: ClusterModel): PlanContext => planCluster(c);
export const config = (raw: unknown = { clusters: {} }): StandupConfig => configSchema.parse(raw);
