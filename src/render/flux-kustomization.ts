// Reads a built Flux Kustomization object into the shared model, with Flux's defaults.
import type { DependsOn, FluxKustomization, Origin, PostBuild } from '../model/flux.js';
import { ksKey, type NamespacedRef } from '../model/ref.js';
import type { Obj } from '../model/k8s.js';

export const isFluxKustomization = (o: { kind?: unknown; apiVersion?: unknown }): boolean =>
  o.kind === 'Kustomization' && typeof o.apiVersion === 'string' && o.apiVersion.startsWith('kustomize.toolkit.fluxcd.io/');

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : v === undefined || v === null ? null : String(v));

export interface KsInput {
  raw: Obj;
  /** Namespace the build did not set: the parent's namespace, or flux-system for the entry. */
  defaultNamespace: string;
  parent: string | null;
  origin: Origin;
  /** Line of each dependsOn entry by index, when known. */
  dependsOnLine?: (name: string, index: number) => number | null;
}

export function toFluxKustomization(i: KsInput): FluxKustomization {
  const raw = i.raw;
  const spec: Obj = raw.spec ?? {};
  const name = String(raw.metadata?.name ?? '');
  const namespace = str(raw.metadata?.namespace) ?? i.defaultNamespace;
  const sr: Obj = spec.sourceRef ?? {};
  const sourceRef: NamespacedRef = {
    kind: str(sr.kind) ?? 'GitRepository',
    name: str(sr.name) ?? '',
    namespace: str(sr.namespace) ?? namespace,
  };
  const dependsOn: DependsOn[] = (Array.isArray(spec.dependsOn) ? spec.dependsOn : [])
    .filter((d: unknown) => d && typeof d === 'object' && (d as Obj).name)
    .map((d: Obj, idx: number) => ({
      key: ksKey(str(d.namespace) ?? namespace, String(d.name)),
      line: i.dependsOnLine?.(String(d.name), idx) ?? null,
    }));
  let postBuild: PostBuild | null = null;
  if (spec.postBuild && typeof spec.postBuild === 'object') {
    const pb: Obj = spec.postBuild;
    const substitute: Record<string, string> = {};
    for (const [k, v] of Object.entries((pb.substitute ?? {}) as Obj)) substitute[k] = v === null || v === undefined ? '' : String(v);
    postBuild = {
      substitute,
      substituteFrom: (Array.isArray(pb.substituteFrom) ? pb.substituteFrom : [])
        .filter((r: unknown) => r && typeof r === 'object')
        .map((r: Obj) => ({ kind: r.kind === 'Secret' ? 'Secret' : 'ConfigMap', name: String(r.name ?? ''), optional: r.optional === true })),
    };
  }
  return {
    key: ksKey(namespace, name),
    namespace,
    name,
    path: spec.path === undefined || spec.path === null ? null : String(spec.path),
    repoPath: null,
    sourceRef,
    dependsOn,
    wait: spec.wait === true,
    healthChecks: Array.isArray(spec.healthChecks) ? spec.healthChecks.length : 0,
    prune: spec.prune === true,
    suspend: spec.suspend === true,
    timeout: str(spec.timeout),
    interval: str(spec.interval),
    targetNamespace: str(spec.targetNamespace),
    postBuild,
    parent: i.parent,
    origin: i.origin,
    raw,
  };
}
