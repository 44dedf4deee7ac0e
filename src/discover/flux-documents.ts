// Flux objects as discovery reads them: plain parsed documents, with Flux's defaults for a source reference.

import type { Obj } from '../model/k8s.js';
import type { SourceSpec } from './cluster-entry.js';
import type { NamespacedRef } from '../model/ref.js';

/** Source kinds a root sync can read from git or a registry (an ExternalArtifact is made in the cluster). */
const ROOT_SOURCE_KINDS = new Set(['GitRepository', 'OCIRepository', 'Bucket']);

export const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export const isFluxKs = (d: Obj): boolean => d.kind === 'Kustomization' && String(d.apiVersion ?? '').startsWith('kustomize.toolkit.fluxcd.io/');

export const isRootSource = (d: Obj): boolean => ROOT_SOURCE_KINDS.has(d.kind) && String(d.apiVersion ?? '').startsWith('source.toolkit.fluxcd.io/');

/** A source object's URL (or a Bucket's endpoint), or null. */
export const sourceUrl = (d: Obj | undefined): string | null => {
  const u = d?.spec?.url ?? d?.spec?.endpoint;
  return typeof u === 'string' ? u : null;
};

/** The source a Flux Kustomization reads among `sources` (kind, name, and namespace with Flux's defaults). */
export function sourceOf(k: Obj, sources: Obj[]): Obj | undefined {
  const ns = str(k.metadata?.namespace) ?? 'flux-system';
  const ref: Obj = k.spec?.sourceRef ?? {};
  const kind = str(ref.kind) ?? 'GitRepository';
  const refNs = str(ref.namespace) ?? ns;
  return sources.find((s) => s.kind === kind && s.metadata?.name === ref.name && (str(s.metadata?.namespace) ?? refNs) === refNs);
}

/** A Flux Kustomization's sourceRef, with Flux's defaults. */
export function sourceRefOf(k: Obj): NamespacedRef {
  const ns = str(k.metadata?.namespace) ?? 'flux-system';
  const ref: Obj = k.spec?.sourceRef ?? {};
  return { kind: str(ref.kind) ?? 'GitRepository', name: String(ref.name ?? ''), namespace: str(ref.namespace) ?? ns };
}

/** A FluxInstance's sync: its source and Kustomization are named after spec.sync.name, else the namespace. */
export function syncSource(sync: Obj, namespace: string): SourceSpec {
  return { ref: { kind: str(sync.kind) ?? 'GitRepository', name: str(sync.name) ?? namespace, namespace }, url: str(sync.url) };
}
