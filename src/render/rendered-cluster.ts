// What one cluster's render has found so far (Kustomizations, objects, problems, what each Kustomization's render
// came to), and the lookups the render makes over it: an object by kind and name, an ArtifactGenerator, the origin
// (file:line) of a built object.
import path from 'node:path';
import type { Expansion, ExternalSource, FluxKustomization, FluxResourceSet, Origin, RenderedObject } from '../model/flux.js';
import type { Obj } from '../model/k8s.js';
import type { Problem } from '../model/problem.js';
import { materialize, type BuiltObject } from '../repo/kustomize-output.js';
import type { TextMemo } from '../repo/lazy-yaml.js';
import type { Header } from '../repo/object-header.js';
import { nodeKeyParts } from '../model/flux.js';
import { repoRelative } from '../repo/repo-path.js';
import { toFluxKustomization } from './flux-kustomization.js';
import { buildFailedProblems } from './build-problems.js';
import type { PathBuild, RenderContext } from './render-context.js';
import type { NamespacedRef } from '../model/ref.js';

export class RenderedCluster {
  readonly ks: FluxKustomization[] = [];
  /** flux-operator ResourceSets, in the order found (sorted by rank at the end). */
  readonly rs: FluxResourceSet[] = [];
  readonly objects: RenderedObject[] = [];
  /**
   * Where each Kustomization and object sits in the nesting: its owner's rank plus its index in the owner's build
   * output. Builds finish in any order; sorting by rank gives the same model on every run.
   */
  readonly rank = new Map<object, number[]>();
  readonly problems: Problem[] = [];
  /** Sources that are not this repository, by KIND/NAMESPACE/NAME, with the Kustomizations reading them. */
  readonly external = new Map<string, ExternalSource>();
  /** What each Kustomization's render came to, by key (a duplicate key shares the first one's). */
  readonly expansion = new Map<string, Expansion>();
  /** Kustomizations rendered (or taken as the entry's own build), by key. */
  readonly renderedKeys = new Set<string>();
  /** Builds (path + overlay, build-path.ts requestKey) whose objects are in already. */
  readonly renderedRequests = new Set<string>();

  constructor(
    private readonly ctx: RenderContext,
    private readonly cluster: string,
  ) {}

  problem(p: Omit<Problem, 'cluster'>): void {
    this.problems.push({ ...p, cluster: this.cluster });
  }

  /** An object this cluster applies (or `extra`, the build at hand, holds) by kind, name and namespace. */
  findObject(kind: string, name: string, namespace: string, extra: BuiltObject[] = []): Obj | null {
    for (const o of this.objects) {
      if (o.kind === kind && o.name === name && (o.namespace ?? ownerNs(o.owner)) === namespace) return o.raw as Obj;
    }
    for (const b of extra) {
      const h = b.header;
      if (h.kind === kind && h.name === name && (h.namespace ?? namespace) === namespace) return materialize(b.text, this.ctx.memo) as Obj;
    }
    return null;
  }

  /** Where an object this cluster applies is defined (file and line), or null. */
  findObjectOrigin(kind: string, name: string, namespace: string): Origin | null {
    const o = this.objects.find((x) => x.kind === kind && x.name === name && (x.namespace ?? ownerNs(x.owner)) === namespace);
    return o ? o.origin : null;
  }

  /** The ArtifactGenerator of this cluster that makes the ExternalArtifact `ref`, or null. */
  findGenerator(ref: NamespacedRef): RenderedObject | null {
    for (const o of this.objects) {
      if (o.kind !== 'ArtifactGenerator' || !o.apiVersion.startsWith('source.extensions.fluxcd.io/')) continue;
      if ((o.namespace ?? ownerNs(o.owner)) !== ref.namespace) continue;
      const artifacts = (o.raw as Obj).spec?.artifacts;
      if (Array.isArray(artifacts) && artifacts.some((a: Obj | null) => a?.name === ref.name)) return o;
    }
    return null;
  }

  /** Repository-relative; a path inside a generated artifact is mapped back to the repository file it came from. */
  rel(abs: string): string {
    let p = abs;
    if (abs.startsWith(this.ctx.work + path.sep)) {
      const src = this.ctx.artifacts.source(abs);
      p = src !== abs ? src : (this.ctx.artifacts.sourceDir(abs) ?? abs);
    }
    return repoRelative(this.ctx.root, p);
  }

  originOf(o: BuiltObject, kind: string, name: string, fallbackDir: string): Origin {
    if (!o.file) return { file: fallbackDir, line: null };
    const file = this.ctx.artifacts.source(o.file);
    return { file: this.rel(file), line: o.generated ? null : this.ctx.origins.line(file, kind, name) };
  }

  /** A built Flux Kustomization in the model, with the lines of its origin and of each dependsOn entry. */
  toKs(b: BuiltObject, parent: string | null, defaultNs: string, dirRel: string): FluxKustomization {
    const raw = materialize(b.text, this.ctx.memo) as Obj;
    const name = b.header.name;
    const origin = this.originOf(b, 'Kustomization', name, dirRel);
    const file = b.file && !b.generated ? this.ctx.artifacts.source(b.file) : null;
    const origins = this.ctx.origins;
    const doc = file ? origins.doc(file, 'Kustomization', name) : null;
    const dependsOnLine = (dep: string) => (file && doc ? origins.dependsOnLine(file, doc, dep) : null);
    return toFluxKustomization({ raw, defaultNamespace: defaultNs, parent, origin, dependsOnLine });
  }

  /** Reports a failed build of the entry (`ks` null) or of a tier, with the malformed YAML it may have read. */
  buildFailed(built: PathBuild, error: string, ks: FluxKustomization | null): void {
    const problems = buildFailedProblems({ dir: built.dir, generated: built.generated, files: built.files, error, ks, entryName: this.cluster, root: this.ctx.root, work: this.ctx.work, rel: (abs) => this.rel(abs), memo: this.ctx.memo });
    for (const p of problems) this.problem(p);
  }

  /** Sorts what was found by rank, so that every run gives the same model. */
  sortByRank(): void {
    const byRank = (a: object, b: object) => compareRanks(this.rank.get(a) ?? [], this.rank.get(b) ?? []);
    this.ks.sort(byRank);
    this.rs.sort(byRank);
    this.objects.sort(byRank);
  }
}

/** An object without a namespace is in its applier's (`namespace/name`), flux-system for the entry's. */
const ownerNs = (owner: string | null): string => (owner ? nodeKeyParts(owner).namespace || 'flux-system' : 'flux-system');

/** A RenderedObject whose `raw` is parsed from its YAML the first time something reads it. */
export function renderedObject(h: Header, origin: Origin, owner: string | null, text: string, memo: TextMemo): RenderedObject {
  let raw: Record<string, unknown> | undefined;
  const o = { apiVersion: h.apiVersion, kind: h.kind, name: h.name, namespace: h.namespace, origin, owner } as RenderedObject;
  Object.defineProperty(o, 'raw', {
    enumerable: true,
    configurable: true,
    get: () => (raw ??= materialize(text, memo)),
    set: (v: Record<string, unknown>) => {
      raw = v;
    },
  });
  // Not enumerable: the object's fields stay what tests and JSON compare.
  Object.defineProperty(o, 'mentions', { enumerable: false, value: (s: string) => text.includes(s) });
  return o;
}

/**
 * Breadth first: shallower nesting first (so of two definitions of one object, the deeper is the duplicate), then by
 * index at each level.
 */
function compareRanks(a: number[], b: number[]): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
