import { ksKey, type NamespacedRef } from '../model/ref.js';
// Two writers fighting over one source (two root syncs applying the same GitRepository with different URLs, after a
// cluster was switched to another repository): its spec flips back and forth, and every Kustomization reading it
// is applied from either repository in turn. Pure: it reads the sightings the runner collected.

/** What one write of the source looked like. */
export interface SourceSighting {
  generation: number;
  /** A fingerprint of spec (url, ref, ...): equal specs, equal fingerprints. */
  spec: string;
  /** spec.url (or endpoint), for the message. */
  url: string | null;
  writer: string;
  at: number;
}

interface ManagedField {
  manager?: string;
  operation?: string;
  time?: string;
  fieldsV1?: { 'f:spec'?: Record<string, unknown> };
}

interface SourceLike {
  metadata: { generation?: number; labels?: Record<string, string>; managedFields?: ManagedField[] };
  spec?: Record<string, unknown>;
}

/**
 * Who wrote the source's spec last: the field manager owning spec.url (the latest, when several own parts of spec),
 * with the Kustomization that applied it when kustomize-controller did (its name labels).
 */
export function writerOf(src: SourceLike): string {
  const owners = (src.metadata.managedFields ?? []).filter((m) => m.fieldsV1?.['f:spec'] && ('f:url' in m.fieldsV1['f:spec'] || 'f:endpoint' in m.fieldsV1['f:spec']));
  const latest = [...owners].sort((a, b) => (a.time ?? '').localeCompare(b.time ?? '')).at(-1);
  const manager = latest?.manager ?? 'unknown writer';
  const ns = src.metadata.labels?.['kustomize.toolkit.fluxcd.io/namespace'];
  const name = src.metadata.labels?.['kustomize.toolkit.fluxcd.io/name'];
  return ns && name && manager === 'kustomize-controller' ? `${manager} (Kustomization ${ns}/${name})` : manager;
}

/** A sighting of the source as it is now. */
export function sightingOf(src: SourceLike, at: number): SourceSighting {
  const spec = src.spec ?? {};
  const url = typeof spec.url === 'string' ? spec.url : typeof spec.endpoint === 'string' ? spec.endpoint : null;
  const { interval: _i, ...rest } = spec; // an interval tweak is no fight over what to fetch
  return { generation: src.metadata.generation ?? 0, spec: JSON.stringify(rest, Object.keys(rest).sort()), url, writer: writerOf(src), at };
}

export interface SourceFight {
  /** Each distinct spec seen, with its URL and writers. */
  sides: { url: string | null; writers: string[] }[];
  /** How many times the spec changed while standup watched. */
  changes: number;
  /** Over how long (ms). */
  overMs: number;
}

/**
 * A fight: the spec came back to a value it had before (A -> B -> A). One switch (A -> B) is an operator re-pointing
 * the source and is not reported. Sightings must be in time order, one per observed generation.
 */
export function detectFight(history: readonly SourceSighting[]): SourceFight | null {
  const changes: SourceSighting[] = [];
  for (const s of history) if (changes.at(-1)?.spec !== s.spec) changes.push(s);
  const returned = changes.some((s, i) => changes.slice(0, Math.max(0, i - 1)).some((p) => p.spec === s.spec));
  if (!returned) return null;
  const sides = new Map<string, { url: string | null; writers: Set<string> }>();
  for (const s of changes) {
    const side = sides.get(s.spec) ?? { url: s.url, writers: new Set<string>() };
    side.writers.add(s.writer);
    sides.set(s.spec, side);
  }
  return {
    sides: [...sides.values()].map((s) => ({ url: s.url, writers: [...s.writers] })),
    changes: changes.length - 1,
    overMs: changes.at(-1)!.at - changes[0]!.at,
  };
}

interface WithInventory {
  metadata: { name: string; namespace?: string };
  status?: { inventory?: { entries?: { id: string }[] } };
}

/**
 * The Kustomizations whose inventory holds the source (`<ns>_<name>_source.toolkit.fluxcd.io_<Kind>`): each one
 * re-applies it on every reconcile. Two of them are two writers.
 */
export function sourceAppliers(kustomizations: Iterable<WithInventory>, source: NamespacedRef): string[] {
  const id = `${source.namespace}_${source.name}_source.toolkit.fluxcd.io_${source.kind}`;
  const out: string[] = [];
  for (const k of kustomizations) {
    if (k.status?.inventory?.entries?.some((e) => e.id === id)) out.push(ksKey(k.metadata.namespace ?? '', k.metadata.name));
  }
  return out.sort();
}
