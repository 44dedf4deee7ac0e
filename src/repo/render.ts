// Renders one cluster: the entry path, then every Flux Kustomization its output applies, recursively, with Flux's
// rules (generated kustomization, overlay fields, postBuild substitution). Problems are collected, never thrown.
import { statSync, type Dirent } from 'node:fs';
import path from 'node:path';
import type { ClusterModel, Expansion, ExternalSource, FluxKustomization, Origin, RenderedObject, RootSource, SourceRef } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import { objectId } from '../model/ref.js';
import { normalizeRepoPath, type ClusterEntry, type SourceSpec } from './discover.js';
import { isFluxKustomization, overlayOf, toFluxKustomization } from './flux-object.js';
import type { BuildOutcome, Builder } from './kustomize.js';
import { materialize, type BuiltObject, type Header } from './kustomize-output.js';
import type { OriginIndex } from './origin.js';
import { parseGenerator } from './artifact-generator/index.js';
import type { ArtifactStore, MaterializedArtifact } from './artifacts.js';
import { FluxScan } from './flux-scan.js';
import { helmReleaseNamed, objectNamed } from './helm-scan.js';
import type { KustomizationFiles } from './kustomization-file.js';
import type { Prescreen } from './prescreen.js';
import { writeOverlay, type FluxOverlay, type Ignored } from './overlay.js';
import type { SourceIgnore } from './sourceignore.js';
import type { ParseMemo } from './parse-memo.js';
import { codeId } from './code-id.js';
import { createHash } from 'node:crypto';
import type { BuildInputs } from './build-inputs.js';
import type { CachedOutcome, RenderCache } from './render-cache.js';
import { missingSources, postBuildVars, substituteObjects } from './postbuild.js';
import { buildFailedProblems } from './build-problems.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface PathBuild {
  outcome: BuildOutcome;
  generated: boolean;
  files: string[];
  dir: string;
}

/** What all clusters of one load share: the repository, the build queue and a cache keyed by path + overlay. */
export interface RenderContext {
  /** Absolute directory the repository is read from (the work tree, or an exported revision). */
  root: string;
  work: string;
  builder: Builder;
  origins: OriginIndex;
  cache: Map<string, Promise<PathBuild>>;
  prescreen: Prescreen;
  seq: { n: number; uncached: number };
  /**
   * 'graph' renders what can change the Kustomization graph: a tier whose files hold no Flux Kustomization is built
   * only when a lookup needs its objects (see flux-scan.ts). 'all' renders every tier.
   */
  scope: 'all' | 'graph';
  fluxScan: FluxScan;
  /**
   * Scope 'graph' with LoadOptions.helmOrders: may a tier's files hold a HelmRelease with spec.dependsOn
   * (helm-scan.ts)? Those are built too, and then those that may hold its target. Null: neither is.
   */
  helmScan: FluxScan | null;
  /** Scans for deferred leaves that may hold a substituteFrom source, by the JSON of the sorted names. */
  sourceScans: Map<string, FluxScan>;
  artifacts: ArtifactStore;
  /** Kustomization files read once per load, shared by discovery, prescreen and flux-scan. */
  kustomizations: KustomizationFiles;
  /** The on-disk render cache, or null (--no-cache, or no cache directory for this user). */
  renderCache: RenderCache | null;
  /** What each build reads, for the cache's keys (file hashes once per load). */
  inputs: BuildInputs;
  /** The kustomize binary's identity (path, size, mtime): a new kustomize is a new key. */
  kustomizeId: string;
  /** What source-controller leaves out of this repository's artifact. */
  sourceIgnore: SourceIgnore;
  /** YAML parsed once per text, across loads when the cache is on. */
  memo: ParseMemo;
  /** `sourceIgnore` by absolute path; false outside the repository (an artifact's own copy). */
  ignored: Ignored;
  /** The repository's directory listings, read once by SourceIgnore.load and shared with discovery. */
  listings?: ReadonlyMap<string, Dirent[]>;
}

/** A leaf tier's build, put off under scope 'graph'; its directory and components say what its files may hold. */
type Deferred = (() => Promise<void>) & { dir: string; components: readonly string[] };

const requestKey = (dir: string, overlay: FluxOverlay) => `${dir}\u0000${JSON.stringify(overlay)}`;

/** Builds `dir` with `overlay` once per load, however many clusters or Kustomizations ask for it. */
export function buildPath(ctx: RenderContext, dir: string, overlay: FluxOverlay): Promise<PathBuild> {
  const key = requestKey(dir, overlay);
  let p = ctx.cache.get(key);
  if (!p) {
    const n = ++ctx.seq.n;
    const overlayDir = path.join(ctx.work, `r${n}`);
    const { generated, files, keyText } = writeOverlay(overlayDir, dir, overlay, ctx.root, ctx.ignored);
    const ck = ctx.renderCache ? cacheKey(ctx, overlayDir, keyText) : null;
    if (ctx.renderCache && !ck) ctx.seq.uncached++;
    const hit = ck ? ctx.renderCache!.get(ck) : null;
    if (hit) {
      p = Promise.resolve({ outcome: outsideArtifact(ctx, overlayDir, fromCached(ctx, hit, overlayDir)), generated, files, dir });
    } else {
      const solo = ctx.prescreen.suspect(dir, generated ? files : []);
      p = ctx.builder.build({ n, overlayDir, solo }).then((outcome) => {
        const stored = ck ? toCached(ctx, outcome, overlayDir) : null;
        if (stored && ctx.inputs.unchanged(overlayDir)) ctx.renderCache!.put(ck!, stored);
        return { outcome: outsideArtifact(ctx, overlayDir, outcome), generated, files, dir };
      });
    }
    ctx.cache.set(key, p);
  }
  return p;
}

/**
 * kustomize read the repository's work tree; kustomize-controller reads the source artifact, which lacks what
 * .sourceignore (or source-controller's defaults) leaves out. A build that read such a file fails in Flux.
 */
function outsideArtifact(ctx: RenderContext, overlayDir: string, o: BuildOutcome): BuildOutcome {
  if (!o.ok) return o;
  const own = path.join(overlayDir, 'kustomization.yaml');
  const read = new Set<string>();
  const inputs = ctx.inputs.ofKustomization(overlayDir);
  if (inputs) for (const [f, h] of inputs) if (f !== own && h !== 'absent') read.add(f);
  for (const b of o.objects) if (b.file && !b.generated) read.add(b.file);
  const left = [...read].filter((f) => ctx.ignored(f)).map((f) => path.relative(ctx.root, f).split(path.sep).join('/')).sort();
  if (left.length === 0) return o;
  const files = left.length > 3 ? `${left.slice(0, 3).join(', ')} and ${left.length - 3} more` : left.join(', ');
  return {
    ok: false,
    reported: true,
    error: `${files} ${left.length === 1 ? 'is' : 'are'} not in the source artifact (source-controller leaves ${left.length === 1 ? 'it' : 'them'} out: ${ctx.sourceIgnore.describe()}), so kustomize-controller cannot read ${left.length === 1 ? 'it' : 'them'}`,
  };
}

const CACHE_KEY_VERSION = 1;

/**
 * The build's cache key, or null when it is not cached: some input is not known for sure (build-inputs.ts), or lives
 * in this load's temp directory (an ExternalArtifact's tree, materialized per load).
 */
function cacheKey(ctx: RenderContext, overlayDir: string, keyText: string): string | null {
  const inputs = ctx.inputs.ofKustomization(overlayDir);
  if (!inputs) return null;
  const own = path.join(overlayDir, 'kustomization.yaml');
  const parts: [string, string][] = [];
  for (const [f, h] of inputs) {
    if (f === own) continue;
    if (f.startsWith(ctx.work + path.sep)) return null;
    parts.push([path.relative(ctx.root, f).split(path.sep).join('/'), h]);
  }
  parts.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return createHash('sha256').update(JSON.stringify({ v: CACHE_KEY_VERSION, code: codeId(), kustomize: ctx.kustomizeId, overlay: keyText, inputs: parts })).digest('hex');
}

/** Paths in a stored error are this run's; placeholders make them the next run's on the way back. */
const placeholders = (ctx: RenderContext, overlayDir: string): [string, string][] => [
  [ctx.work, '\u0000WORK'],
  [ctx.root, '\u0000ROOT'],
  [path.relative(overlayDir, ctx.root), '\u0000UP'],
];

function toCached(ctx: RenderContext, o: BuildOutcome, overlayDir: string): CachedOutcome | null {
  if (!o.ok) {
    if (!o.reported) return null;
    let error = o.error;
    for (const [from, to] of placeholders(ctx, overlayDir)) if (from) error = error.split(from).join(to);
    return { ok: false, error };
  }
  const objects = [];
  for (const b of o.objects) {
    if (b.file && b.file.startsWith(ctx.work + path.sep)) return null;
    objects.push({ text: b.text, header: b.header, file: b.file ? path.relative(ctx.root, b.file).split(path.sep).join('/') : null, generated: b.generated });
  }
  return { ok: true, objects };
}

function fromCached(ctx: RenderContext, c: CachedOutcome, overlayDir: string): BuildOutcome {
  if (!c.ok) {
    let error = c.error;
    for (const [to, from] of placeholders(ctx, overlayDir)) error = error.split(from).join(to);
    return { ok: false, error, reported: true };
  }
  return { ok: true, objects: c.objects.map((b) => ({ text: b.text, header: b.header, file: b.file === null ? null : path.resolve(ctx.root, b.file), generated: b.generated })) };
}

const isDir = (p: string) => {
  try {
    return statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
};

const normUrl = (u: string) =>
  u
    .trim()
    .toLowerCase()
    .replace(/^(ssh:\/\/)?git@([^:/]+)[:/]/, 'https://$2/')
    .replace(/^ssh:\/\//, 'https://')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');

export interface ClusterResult {
  model: ClusterModel;
  problems: Problem[];
}

export async function renderCluster(ctx: RenderContext, entry: ClusterEntry): Promise<ClusterResult> {
  return new ClusterRenderer(ctx, entry).run();
}

class ClusterRenderer {
  private ks: FluxKustomization[] = [];
  private objects: RenderedObject[] = [];
  /**
   * Where each Kustomization and object sits in the nesting: its owner's rank plus its index in the owner's build
   * output. Builds finish in any order; sorting by rank gives the same model on every run.
   */
  private rank = new Map<object, number[]>();
  private problems: Problem[] = [];
  private external = new Map<string, ExternalSource>();
  private renderedKeys = new Set<string>();
  private renderedRequests = new Set<string>();
  /**
   * The directory of this repository that the cluster's source serves as its root, repo-relative ('' = the
   * repository root). Flux resolves spec.path against the artifact root, so a Flux repository kept in a
   * subdirectory (the bundled example) has its paths relative to that subdirectory. Inferred from the root sync:
   * the entry path with the root Kustomization's own spec.path removed from its end.
   */
  private sourceRoot = '';
  /**
   * Renders doing their own work (building, reading output); a render waiting for its children is not counted.
   * When it drops to zero, renders waiting for a substituteFrom source another render may still produce go on.
   */
  private active = 0;
  private waiters: (() => void)[] = [];
  /** Leaf tiers not built yet (scope 'graph'); `quiesce` builds them before anyone concludes something is missing. */
  private deferred: Deferred[] = [];
  /** Deferred leaf tiers never built: while above zero, `objects` lacks theirs. */
  private deferredCount = 0;
  /** What each Kustomization's render came to, by key (a duplicate key shares the first one's). */
  private expansion = new Map<string, Expansion>();
  /** The root sync's sources: Kustomizations reading one of them render from this repository. */
  private sources: SourceSpec[];
  private rootHow: RootSource['how'];
  private rootFoundIn: string | null;

  constructor(
    private readonly ctx: RenderContext,
    private readonly entry: ClusterEntry,
  ) {
    this.sources = [{ ref: entry.source, url: entry.sourceUrl }, ...entry.alsoSources];
    this.rootHow = entry.how;
    this.rootFoundIn = entry.foundIn;
  }

  async run(): Promise<ClusterResult> {
    this.active++;
    const release = this.releaser();
    try {
      await this.renderEntry(release);
    } finally {
      release();
    }
    if (this.ctx.scope === 'graph' && this.ctx.helmScan) await this.buildHelmTargets();
    const byRank = (a: object, b: object) => compareRanks(this.rank.get(a) ?? [], this.rank.get(b) ?? []);
    this.ks.sort(byRank);
    this.objects.sort(byRank);
    // Not rendered by renderChild: the root sync (the entry's own build) and a second definition of a key.
    for (const k of this.ks) k.expansion = this.expansion.get(k.key) ?? 'built';
    const [primary, ...also] = this.sources;
    return {
      model: {
        name: this.entry.name,
        entry: this.entry.entry,
        kustomizations: this.ks,
        objects: this.objects,
        objectsComplete: this.deferredCount === 0,
        // Renders finish in any order: sorted, so that every run gives the same model.
        externalSources: [...this.external.values()]
          .map((e) => ({ ...e, usedBy: [...e.usedBy].sort() }))
          .sort((a, b) => `${a.ref.kind}/${a.ref.namespace}/${a.ref.name}`.localeCompare(`${b.ref.kind}/${b.ref.namespace}/${b.ref.name}`)),
        rootSource: { ref: primary!.ref, url: primary!.url ?? this.sourceUrl(primary!.ref), how: this.rootHow, foundIn: this.rootFoundIn, also: also.map((a) => a.ref) },
      },
      problems: this.problems,
    };
  }

  /**
   * Scope 'graph': the leaf tiers that may apply a HelmRelease another one depends on (helm-scan.ts), so that plan
   * sees the HelmRelease orders the tier graph hides. Such a tier applies no Kustomization, so one pass is enough.
   */
  private async buildHelmTargets(): Promise<void> {
    const names = new Set<string>();
    for (const o of this.objects) {
      if (o.kind !== 'HelmRelease' || !o.apiVersion.startsWith('helm.toolkit.fluxcd.io/')) continue;
      const deps = (o.raw as Obj).spec?.dependsOn;
      for (const d of Array.isArray(deps) ? deps : []) if (typeof d?.name === 'string') names.add(d.name);
    }
    if (names.size === 0 || this.deferred.length === 0) return;
    const scan = new FluxScan(this.ctx.kustomizations, this.ctx.ignored, helmReleaseNamed(names));
    const build = this.deferred.filter((d) => scan.may(d.dir, d.components));
    if (build.length === 0) return;
    this.deferred = this.deferred.filter((d) => !build.includes(d));
    this.deferredCount -= build.length;
    await Promise.all(build.map((render) => render()));
  }

  /** Marks the calling render as done with its own work (once); see `active`. */
  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.active--;
      this.settle();
    };
  }

  private settle(): void {
    if (this.active > 0) return;
    for (const w of this.waiters.splice(0)) w();
  }

  /**
   * Waits until no other render of this cluster is doing work, so every object it could apply is known; deferred
   * leaf tiers are built first, as they may hold what the caller is looking for.
   */
  private async quiesce(pick: (d: Deferred) => boolean = () => true): Promise<void> {
    const chosen = this.deferred.filter(pick);
    this.deferred = this.deferred.filter((d) => !chosen.includes(d));
    const forced = chosen.map((render) => render());
    this.deferredCount -= forced.length;
    const wait = new Promise<void>((resolve) => this.waiters.push(resolve));
    this.active--;
    this.settle();
    await wait;
    this.active++;
    await Promise.all(forced);
  }

  /**
   * Looks again after every other render, deferred ones included, is done; `stillMissing` says when to stop. `pick`:
   * the deferred leaves that may hold what is looked for (all by default); the others stay unbuilt.
   */
  private async lookEverywhere(stillMissing: () => boolean, pick: (d: Deferred) => boolean = () => true): Promise<void> {
    if (this.active > 1 || this.deferred.some(pick)) await this.quiesce(pick);
    // Renders that finished while we waited may have deferred more leaves.
    while (stillMissing() && this.deferred.some(pick)) await this.quiesce(pick);
  }

  /** Deferred leaves whose files may hold one of the substituteFrom objects of `ks` (see helm-scan.ts objectNamed). */
  private mayHoldSources(ks: FluxKustomization): (d: Deferred) => boolean {
    // Every app of a repository tends to read the same few sources: one scan (and its file reads) per set of names.
    const names = [...new Set(ks.postBuild!.substituteFrom.map((r) => r.name))].sort();
    const key = JSON.stringify(names);
    let scan = this.ctx.sourceScans.get(key);
    if (!scan) this.ctx.sourceScans.set(key, (scan = new FluxScan(this.ctx.kustomizations, this.ctx.ignored, objectNamed(names))));
    return (d) => scan.may(d.dir, d.components);
  }

  private async renderEntry(release: () => void): Promise<void> {
    const dir = path.join(this.ctx.root, this.entry.entry);
    this.renderedRequests.add(requestKey(dir, {}));
    let built = await buildPath(this.ctx, dir, {});
    if (!built.outcome.ok) {
      this.buildFailed(built, built.outcome.error, null);
      return;
    }
    if (this.rootHow === 'assumed') this.adoptRoot(built.outcome.objects);
    // The root sync builds the entry with its own overlay (patches, targetNamespace, components...), as
    // kustomize-controller builds any Kustomization's path: build it again with that overlay when there is one.
    const root = this.rootsIn(built.outcome.objects, this.entry.entry)[0];
    const overlay = root ? overlayOf(root) : {};
    if (root && Object.keys(overlay).length > 0) {
      this.renderedRequests.add(requestKey(dir, overlay));
      built = await buildPath(this.ctx, dir, overlay);
      if (!built.outcome.ok) {
        this.buildFailed(built, built.outcome.error, root);
        return;
      }
    }
    await this.processOutput(built.outcome.objects, null, this.entry.entry, release);
  }

  /**
   * No root sync names the entry (--path to a folder nothing in the repository syncs): a Kustomization in the entry's
   * own output whose spec.path reconciles the entry (a self-applying root, as `flux bootstrap` writes) is the root
   * sync, so the source it reads is this repository.
   */
  private adoptRoot(items: BuiltObject[]): void {
    const own = items
      .filter((b) => isFluxKustomization(b.header))
      .map((b) => this.toKs(b, null, 'flux-system', this.entry.entry))
      .filter((k) => sourceRootFor(this.entry.entry, k.path) !== null)
      .sort((a, b) => sourceRootFor(this.entry.entry, a.path)!.length - sourceRootFor(this.entry.entry, b.path)!.length)[0];
    if (!own) return;
    this.sources = [{ ref: own.sourceRef, url: this.sourceUrl(own.sourceRef, items) }];
    this.rootHow = 'self';
    this.rootFoundIn = own.origin.file;
  }

  /** Root syncs in the entry's output: Kustomizations of this repository whose spec.path reconciles the entry itself. */
  private rootsIn(items: BuiltObject[], dirRel: string): FluxKustomization[] {
    return items
      .filter((b) => isFluxKustomization(b.header))
      .map((b) => this.toKs(b, null, 'flux-system', dirRel))
      .filter((k) => this.inRepo(k.sourceRef, items) && sourceRootFor(this.entry.entry, k.path) !== null);
  }

  /** A Flux spec.path of this cluster's source, as a repo-relative directory. */
  private resolve(p: string | null): string {
    return normalizeRepoPath(path.posix.join(this.sourceRoot, normalizeRepoPath(p ?? '')));
  }

  /** Repository-relative; a path inside a generated artifact is mapped back to the repository file it came from. */
  private rel(abs: string): string {
    let p = abs;
    if (abs.startsWith(this.ctx.work + path.sep)) {
      const src = this.ctx.artifacts.source(abs);
      p = src !== abs ? src : (this.ctx.artifacts.sourceDir(abs) ?? abs);
    }
    return path.relative(this.ctx.root, p).split(path.sep).join('/');
  }

  private problem(p: Omit<Problem, 'cluster'>): void {
    this.problems.push({ ...p, cluster: this.entry.name });
  }

  private originOf(o: BuiltObject, kind: string, name: string, fallbackDir: string): Origin {
    if (!o.file) return { file: fallbackDir, line: null };
    const file = this.ctx.artifacts.source(o.file);
    return { file: this.rel(file), line: o.generated ? null : this.ctx.origins.line(file, kind, name) };
  }

  private async processOutput(built: BuiltObject[], owner: FluxKustomization | null, dirRel: string, release: () => void): Promise<void> {
    const defaultNs = owner?.namespace ?? 'flux-system';
    let items = built;
    const children: FluxKustomization[] = [];
    // A root Kustomization that reconciles the entry path itself (gotk-sync's flux-system, toboshii's flux-cluster)
    // is the entry's own build: it is not rendered again, but its postBuild applies to the entry's objects.
    let substituter: FluxKustomization | null = owner;
    // What the entry path holds is applied by the root sync when there is one: it is their parent and owner.
    let applier: string | null = owner?.key ?? null;
    if (!owner) {
      const roots = this.rootsIn(items, dirRel);
      const inferred = roots.map((r) => sourceRootFor(this.entry.entry, r.path)!).sort((a, b) => a.length - b.length)[0];
      if (inferred !== undefined) this.sourceRoot = inferred;
      substituter = roots.find((r) => r.postBuild) ?? null;
      for (const r of roots) this.renderedKeys.add(r.key);
      applier = roots[0]?.key ?? null;
    }
    if (substituter?.postBuild) {
      // A substituteFrom source may be applied by a sibling still rendering: wait for the others before deciding
      // a variable is undefined.
      const pb = substituter;
      if (this.missingSources(pb, items)) await this.lookEverywhere(() => this.missingSources(pb, items), this.mayHoldSources(pb));
      items = this.substitute(items, substituter);
    }
    const base = (owner && this.rank.get(owner)) || [];
    for (const [i, b] of items.entries()) {
      const h = b.header;
      const origin = this.originOf(b, h.kind, h.name, dirRel);
      const isRoot = !owner && isFluxKustomization(h) && this.renderedKeys.has(`${h.namespace ?? defaultNs}/${h.name}`) && applier === `${h.namespace ?? defaultNs}/${h.name}`;
      const o = renderedObject(h, origin, isRoot ? null : applier, b.text, this.ctx.memo);
      this.rank.set(o, [...base, i]);
      this.objects.push(o);
      if (isFluxKustomization(h)) {
        const k = this.toKs(b, isRoot ? null : applier, defaultNs, dirRel);
        if (!owner && this.resolve(k.path) === this.entry.entry && this.inRepo(k.sourceRef)) k.repoPath = this.entry.entry;
        this.rank.set(k, [...base, i]);
        this.ks.push(k);
        children.push(k);
      }
    }
    const rendering = children.map((c) => this.renderKs(c));
    release();
    await Promise.all(rendering);
  }

  private toKs(b: BuiltObject, parent: string | null, defaultNs: string, dirRel: string): FluxKustomization {
    const raw = materialize(b.text, this.ctx.memo) as Obj;
    const name = b.header.name;
    const origin = this.originOf(b, 'Kustomization', name, dirRel);
    const file = b.file && !b.generated ? this.ctx.artifacts.source(b.file) : null;
    const doc = file ? this.ctx.origins.doc(file, 'Kustomization', name) : null;
    const dependsOnLine = (dep: string) => {
      if (!file || !doc) return null;
      const start = this.ctx.origins.findLine(file, doc.start, doc.end, /^\s*dependsOn:/);
      if (start === null) return null;
      const esc = dep.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return this.ctx.origins.findLine(file, start, doc.end, new RegExp(`name:\\s*(&\\S+\\s+)?["']?${esc}["']?\\s*(#.*)?$`));
    };
    return toFluxKustomization({ raw, defaultNamespace: defaultNs, parent, origin, dependsOnLine });
  }

  private isRootSource(ref: SourceRef): boolean {
    return this.sources.some((s) => ref.kind === s.ref.kind && ref.name === s.ref.name && ref.namespace === s.ref.namespace);
  }

  /** The URLs this repository is known by: the root sources' (from discovery, else their objects in git). */
  private rootUrls(extra: BuiltObject[] = []): string[] {
    return this.sources.map((s) => s.url ?? this.sourceUrl(s.ref, extra)).filter((u): u is string => u !== null);
  }

  /** A source is this repository when it is one of the entry's root sources, or a GitRepository with the same URL. */
  private inRepo(ref: SourceRef, extra: BuiltObject[] = []): boolean {
    if (this.isRootSource(ref)) return true;
    if (ref.kind !== 'GitRepository') return false;
    const url = this.sourceUrl(ref, extra);
    if (!url) return false;
    return this.rootUrls(extra).some((u) => normUrl(url) === normUrl(u));
  }

  /** Why a source is not this repository, for the external-source problem. */
  private whyExternal(ref: SourceRef): string {
    const id = `${ref.kind} ${ref.namespace}/${ref.name}`;
    const flag = `${ref.kind}/${ref.namespace}/${ref.name}`;
    const declared = this.findObject(ref.kind, ref.name, ref.namespace);
    const url = this.sourceUrl(ref);
    switch (ref.kind) {
      case 'GitRepository': {
        if (!declared) return `${id} is not declared in git, so its content is unknown here; if it is this repository, pass --source ${flag} or set the cluster's source in tiers.yaml`;
        if (!url) return `${id} has no spec.url`;
        const own = this.rootUrls();
        if (own.length === 0) {
          const root = this.sources[0]!.ref;
          return `${id} (${url}) cannot be matched to this repository, whose URL is not known: its root source ${root.kind} ${root.namespace}/${root.name} is not declared in git`;
        }
        return `${id} is ${url}, another repository than this one (${own[0]})`;
      }
      case 'OCIRepository':
        return `${id} is an OCI artifact${url ? ` (${url})` : ''}, not this repository`;
      case 'Bucket':
        return `${id} is a bucket${url ? ` (${url})` : ''}, not this repository`;
      case 'ExternalArtifact': {
        const gen = this.findGenerator(ref);
        return gen
          ? `${id} is made by ArtifactGenerator ${ref.namespace}/${gen.name} from a source that is not this repository`
          : `${id} is made by no ArtifactGenerator this cluster applies from git`;
      }
      default:
        return `${id} is not a source kind a Kustomization can read (${['GitRepository', 'OCIRepository', 'Bucket', 'ExternalArtifact'].join(', ')})`;
    }
  }

  private findObject(kind: string, name: string, namespace: string, extra: BuiltObject[] = []): Obj | null {
    for (const o of this.objects) {
      if (o.kind === kind && o.name === name && (o.namespace ?? this.ownerNs(o.owner)) === namespace) return o.raw as Obj;
    }
    for (const b of extra) {
      const h = b.header;
      if (h.kind === kind && h.name === name && (h.namespace ?? namespace) === namespace) return materialize(b.text, this.ctx.memo) as Obj;
    }
    return null;
  }

  private ownerNs(owner: string | null): string {
    return owner ? (owner.split('/')[0] ?? 'flux-system') : 'flux-system';
  }

  private sourceUrl(ref: SourceRef, extra: BuiltObject[] = []): string | null {
    const o = this.findObject(ref.kind, ref.name, ref.namespace, extra);
    const url = o?.spec?.url ?? o?.spec?.endpoint;
    return typeof url === 'string' ? url : null;
  }

  private renderKs(ks: FluxKustomization): Promise<void> {
    return this.tracked((release) => this.renderChild(ks, release));
  }

  /** Runs one render counted in `active` until it releases or ends. */
  private async tracked(render: (release: () => void) => Promise<void>): Promise<void> {
    this.active++;
    const release = this.releaser();
    try {
      await render(release);
    } finally {
      release();
    }
  }

  private async renderChild(ks: FluxKustomization, release: () => void): Promise<void> {
    if (this.renderedKeys.has(ks.key)) return;
    this.renderedKeys.add(ks.key);
    // Whether a GitRepository is this repository depends on its URL; its object may come from a tier not rendered yet.
    if (ks.sourceRef.kind === 'GitRepository' && !this.isRootSource(ks.sourceRef) && !this.findObject(ks.sourceRef.kind, ks.sourceRef.name, ks.sourceRef.namespace)) {
      await this.lookEverywhere(() => !this.findObject(ks.sourceRef.kind, ks.sourceRef.name, ks.sourceRef.namespace));
    }
    if (ks.sourceRef.kind === 'ExternalArtifact') {
      const artifact = await this.generatedArtifact(ks);
      if (artifact === 'failed') {
        this.expansion.set(ks.key, 'build-failed');
        return;
      }
      if (artifact) return this.renderFromArtifact(ks, artifact, release);
    }
    if (!this.inRepo(ks.sourceRef)) {
      const id = `${ks.sourceRef.kind}/${ks.sourceRef.namespace}/${ks.sourceRef.name}`;
      const ext = this.external.get(id) ?? { ref: ks.sourceRef, url: this.sourceUrl(ks.sourceRef), usedBy: [] };
      ext.usedBy.push(ks.key);
      this.external.set(id, ext);
      this.expansion.set(ks.key, 'external-source');
      this.problem({
        code: 'external-source',
        severity: 'info',
        message: `Kustomization ${ks.key} is not expanded: ${this.whyExternal(ks.sourceRef)}. What it applies is neither in the graph nor checked.`,
        file: ks.origin.file,
        line: ks.origin.line,
        object: objectId('Kustomization', ks.namespace, ks.name),
      });
      return;
    }
    const rel = this.resolve(ks.path);
    const abs = path.join(this.ctx.root, rel);
    if ((ks.path ?? '').includes('${') || !isDir(abs)) {
      this.pathMissing(ks, (ks.path ?? '').includes('${') ? 'still holds a variable after postBuild substitution, so the path does not exist' : 'does not exist in the repository');
      return;
    }
    ks.repoPath = rel;
    await this.buildTier(ks, abs, rel, release);
  }

  /** Builds a tier's directory (deferred under scope 'graph' when it cannot add to the graph) and reads its output. */
  private async buildTier(ks: FluxKustomization, abs: string, rel: string, release: () => void): Promise<void> {
    const overlay = overlayOf(ks);
    const rk = requestKey(abs, overlay);
    // Another Kustomization of this cluster builds the same path with the same overlay: its objects are in already.
    if (this.renderedRequests.has(rk)) return;
    this.renderedRequests.add(rk);
    if (this.ctx.scope === 'graph' && !this.ctx.fluxScan.mayApplyKustomizations(abs, overlay.components) && !this.ctx.helmScan?.may(abs, overlay.components)) {
      this.expansion.set(ks.key, 'deferred');
      const render = () => this.tracked((r) => this.buildChild(ks, abs, overlay, rel, r));
      this.deferred.push(Object.assign(render, { dir: abs, components: overlay.components ?? [] }));
      this.deferredCount++;
      return;
    }
    await this.buildChild(ks, abs, overlay, rel, release);
  }

  /**
   * The ExternalArtifact a Kustomization reads, when an ArtifactGenerator of this cluster makes it from this
   * repository: materialized (see artifacts.ts). Null when it is external; 'failed' when a problem was reported.
   */
  private async generatedArtifact(ks: FluxKustomization): Promise<MaterializedArtifact | 'failed' | null> {
    const ref = ks.sourceRef;
    if (!this.findGenerator(ref)) await this.lookEverywhere(() => !this.findGenerator(ref));
    const gen = this.findGenerator(ref);
    if (!gen) return null;
    const object = objectId('ArtifactGenerator', ref.namespace, gen.name);
    const { spec, problems } = parseGenerator(gen.raw);
    if (!spec || problems.length > 0) {
      this.problem({
        code: 'build-failed',
        severity: 'error',
        message: `${object} is invalid, so ExternalArtifact ${ref.namespace}/${ref.name} (read by ${ks.key}) is never produced: ${problems.join('; ')}`,
        file: gen.origin.file,
        line: gen.origin.line,
        object,
      });
      return 'failed';
    }
    const artifact = spec.artifacts.find((a) => a.name === ref.name)!;
    const sourceDir = path.join(this.ctx.root, this.sourceRoot);
    const roots = new Map(
      spec.sources.map((s) => [s.alias, s.kind === 'GitRepository' && this.inRepo({ kind: 'GitRepository', name: s.name, namespace: s.namespace ?? ref.namespace }) ? sourceDir : null]),
    );
    const out = this.ctx.artifacts.get(`${ref.namespace}/${gen.name}`, artifact, roots);
    if (out.ok) {
      for (const w of out.warnings) {
        this.problem({ code: 'build-failed', severity: 'warning', message: `${object}, artifact ${artifact.name}: ${w}`, file: gen.origin.file, line: gen.origin.line, object });
      }
      return out.artifact;
    }
    if (out.external) return null;
    this.problem({
      code: 'build-failed',
      severity: 'error',
      message: `${object} cannot build artifact ${artifact.name} (read by ${ks.key}): ${out.problems.join('; ')}`,
      file: gen.origin.file,
      line: gen.origin.line,
      object,
    });
    return 'failed';
  }

  private findGenerator(ref: SourceRef): RenderedObject | null {
    for (const o of this.objects) {
      if (o.kind !== 'ArtifactGenerator' || !o.apiVersion.startsWith('source.extensions.fluxcd.io/')) continue;
      if ((o.namespace ?? this.ownerNs(o.owner)) !== ref.namespace) continue;
      const artifacts = (o.raw as Obj).spec?.artifacts;
      if (Array.isArray(artifacts) && artifacts.some((a: Obj | null) => a?.name === ref.name)) return o;
    }
    return null;
  }

  /** A tier whose spec.path is inside a generated artifact: built from the artifact's tree, as Flux builds it. */
  private async renderFromArtifact(ks: FluxKustomization, artifact: MaterializedArtifact, release: () => void): Promise<void> {
    const sub = normalizeRepoPath(ks.path ?? '');
    const abs = path.join(artifact.dir, sub);
    if (sub.includes('${') || path.relative(artifact.dir, abs).startsWith('..') || !isDir(abs)) {
      this.pathMissing(ks, `does not exist in the ${artifact.label}`);
      return;
    }
    await this.buildTier(ks, abs, this.rel(abs), release);
  }

  private pathMissing(ks: FluxKustomization, why: string): void {
    this.expansion.set(ks.key, 'path-missing');
    this.problem({
      code: 'path-missing',
      severity: 'error',
      message: `Kustomization ${ks.key}: spec.path "${ks.path ?? ''}" ${why} (Flux: kustomization path not found)`,
      file: ks.origin.file,
      line: ks.origin.line,
      object: objectId('Kustomization', ks.namespace, ks.name),
    });
  }

  private async buildChild(ks: FluxKustomization, abs: string, overlay: FluxOverlay, rel: string, release: () => void): Promise<void> {
    const built = await buildPath(this.ctx, abs, overlay);
    if (!built.outcome.ok) {
      this.expansion.set(ks.key, 'build-failed');
      this.buildFailed(built, built.outcome.error, ks);
      return;
    }
    this.expansion.set(ks.key, 'built');
    await this.processOutput(built.outcome.objects, ks, rel, release);
  }

  private buildFailed(built: PathBuild, error: string, ks: FluxKustomization | null): void {
    const problems = buildFailedProblems({ dir: built.dir, generated: built.generated, files: built.files, error, ks, entryName: this.entry.name, root: this.ctx.root, work: this.ctx.work, rel: (abs) => this.rel(abs), memo: this.ctx.memo });
    for (const p of problems) this.problem(p);
  }

  private missingSources(ks: FluxKustomization, extra: BuiltObject[]): boolean {
    return missingSources(ks, (kind, name, ns) => this.findObject(kind, name, ns, extra));
  }

  private substitute(items: BuiltObject[], ks: FluxKustomization): BuiltObject[] {
    const vars = postBuildVars(ks, (kind, name, ns) => this.findObject(kind, name, ns, items));
    if (!vars) return items;
    const r = substituteObjects(items, vars, ks, (b) => this.originOf(b, b.header.kind, b.header.name, ks.repoPath ?? ''), this.ctx.memo);
    for (const p of r.problems) this.problem(p);
    return r.items;
  }
}

/** A RenderedObject whose `raw` is parsed from its YAML the first time something reads it. */
function renderedObject(h: Header, origin: Origin, owner: string | null, text: string, memo: ParseMemo): RenderedObject {
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

/**
 * The source root that makes a root Kustomization with `spec.path` reconcile `entry`: `entry` minus `spec.path` at
 * its end ('' when they are equal), or null when `spec.path` is not a suffix of `entry`.
 */
export function sourceRootFor(entry: string, specPath: string | null): string | null {
  const p = normalizeRepoPath(specPath ?? '');
  if (p === entry) return '';
  if (p === '' || !entry.endsWith(`/${p}`)) return null;
  return entry.slice(0, entry.length - p.length - 1);
}
