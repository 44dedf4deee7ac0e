// Renders one cluster: the entry path, then every Flux Kustomization its output applies, recursively, with Flux's
// rules (generated kustomization, overlay fields, postBuild substitution). Problems are collected, never thrown.
// The parts: build-path.ts (one build per path and overlay), root-sources.ts (which sources are this repository),
// tier-render.ts (one Kustomization's source, path and build), render-scheduler.ts (when a lookup may conclude),
// rendered-cluster.ts (what was found so far).
import path from 'node:path';
import type { ClusterModel, FluxKustomization, FluxResourceSet } from '../model/flux.js';
import type { Obj } from '../model/k8s.js';
import type { Problem } from '../model/problem.js';
import { ASSUMED_SUBSTITUTION, type SubstitutionSemantics } from '../model/substitution.js';
import type { BuiltObject } from '../repo/kustomize-output.js';
import type { ClusterEntry } from '../discover/cluster-entry.js';
import { buildPath, requestKey } from './build-path.js';
import { isFluxKustomization } from './flux-kustomization.js';
import { overlayOf } from './flux-overlay.js';
import { missingSources, postBuildVars, substituteObjects } from './postbuild.js';
import type { RenderContext } from './render-context.js';
import { prefetchChildren } from './predicted-children.js';
import { RenderScheduler, type Deferred } from './render-scheduler.js';
import { RenderedCluster, renderedObject } from './rendered-cluster.js';
import { RootSources } from './root-sources.js';
import { anyObjectNamed, helmReleaseNamed, objectNamed } from './scan-questions.js';
import { TierFileScan } from './tier-file-scan.js';
import { ResourceSetRender, isResourceSet, type GeneratedSink } from './resourceset-render.js';
import { TierRender } from './tier-render.js';
import { ksKey, refKey } from '../model/ref.js';

export interface ClusterResult {
  model: ClusterModel;
  problems: Problem[];
  /**
   * True when a postBuild met a variable defined nowhere: what follows depends on the cluster's substitution
   * semantics, which the load reads from the rendered cluster (the Flux it installs) and renders it again with.
   */
  undefinedVariables: boolean;
}

/** Renders a cluster; `substitution`: its kustomize-controller's postBuild semantics, when known (default: strict). */
export async function renderCluster(ctx: RenderContext, entry: ClusterEntry, substitution: SubstitutionSemantics = ASSUMED_SUBSTITUTION): Promise<ClusterResult> {
  return new ClusterRenderer(ctx, entry, substitution).run();
}

class ClusterRenderer {
  private readonly cluster: RenderedCluster;
  private readonly roots: RootSources;
  private readonly scheduler = new RenderScheduler();
  private readonly tiers: TierRender;
  private undefinedVariables = false;
  private readonly resourceSets: ResourceSetRender;

  constructor(
    private readonly ctx: RenderContext,
    private readonly entry: ClusterEntry,
    private readonly substitution: SubstitutionSemantics,
  ) {
    this.cluster = new RenderedCluster(ctx, entry.name);
    this.roots = new RootSources(this.cluster, entry);
    this.tiers = new TierRender(ctx, this.cluster, this.roots, this.scheduler, (built, owner, dirRel, release) => this.readOutput(built, owner, dirRel, release));
    this.resourceSets = new ResourceSetRender(ctx, this.cluster, this.scheduler);
  }

  async run(): Promise<ClusterResult> {
    await this.scheduler.tracked((release) => this.renderEntry(release));
    if (this.ctx.scope === 'graph' && this.ctx.helmScan) await this.buildHelmTargets();
    const c = this.cluster;
    c.sortByRank();
    // Not rendered by a TierRender: the root sync (the entry's own build) and a second definition of a key.
    for (const k of c.ks) k.expansion = c.expansion.get(k.key) ?? 'built';
    return {
      model: {
        name: this.entry.name,
        entry: this.entry.entry,
        kustomizations: c.ks,
        ...(c.rs.length > 0 ? { resourceSets: c.rs } : {}),
        objects: c.objects,
        objectsComplete: this.scheduler.complete,
        // Renders finish in any order: sorted, so that every run gives the same model.
        externalSources: [...c.external.values()]
          .map((e) => ({ ...e, usedBy: [...e.usedBy].sort() }))
          .sort((a, b) => refKey(a.ref).localeCompare(refKey(b.ref))),
        rootSource: this.roots.rootSource(),
      },
      problems: c.problems,
      undefinedVariables: this.undefinedVariables,
    };
  }

  private async renderEntry(release: () => void): Promise<void> {
    const dir = path.join(this.ctx.root, this.entry.entry);
    this.cluster.renderedRequests.add(requestKey(dir, {}));
    const own = buildPath(this.ctx, dir, {});
    prefetchChildren(this.ctx, this.roots, dir, {}, { namespace: 'flux-system', entry: true });
    let built = await own;
    if (!built.outcome.ok) {
      this.cluster.buildFailed(built, built.outcome.error, null);
      return;
    }
    if (this.roots.assumed) this.roots.adoptRoot(built.outcome.objects);
    // The root sync builds the entry with its own overlay (patches, targetNamespace, components...), as
    // kustomize-controller builds any Kustomization's path: build it again with that overlay when there is one.
    const root = this.roots.rootsIn(built.outcome.objects, this.entry.entry)[0];
    const overlay = root ? overlayOf(root) : {};
    if (root && Object.keys(overlay).length > 0) {
      this.cluster.renderedRequests.add(requestKey(dir, overlay));
      built = await buildPath(this.ctx, dir, overlay);
      if (!built.outcome.ok) {
        this.cluster.buildFailed(built, built.outcome.error, root);
        return;
      }
    }
    await this.readOutput(built.outcome.objects, null, this.entry.entry, release);
  }

  /**
   * Takes in what one build applies (the entry's when `owner` is null, else the tier's): its objects and
   * Kustomizations, after the owner's postBuild substitution, and renders those Kustomizations in turn.
   */
  private async readOutput(built: BuiltObject[], owner: FluxKustomization | null, dirRel: string, release: () => void): Promise<void> {
    const c = this.cluster;
    const defaultNs = owner?.namespace ?? 'flux-system';
    let items = built;
    const children: FluxKustomization[] = [];
    // A root Kustomization that reconciles the entry path itself (gotk-sync's flux-system, or a root of another name)
    // is the entry's own build: it is not rendered again, but its postBuild applies to the entry's objects.
    let substituter: FluxKustomization | null = owner;
    // What the entry path holds is applied by the root sync when there is one: it is their parent and owner.
    let applier: string | null = owner?.key ?? null;
    if (!owner) {
      const roots = this.roots.rootsIn(items, dirRel);
      this.roots.inferSourceRoot(roots);
      substituter = roots.find((r) => r.postBuild) ?? null;
      for (const r of roots) c.renderedKeys.add(r.key);
      applier = roots[0]?.key ?? null;
    }
    if (substituter?.postBuild) {
      // A substituteFrom source may be applied by a sibling still rendering: wait for the others before deciding
      // a variable is undefined.
      const pb = substituter;
      if (this.missingSources(pb, items)) await this.scheduler.lookEverywhere(() => this.missingSources(pb, items), this.mayHoldSources(pb));
      items = this.substitute(items, substituter);
    }
    const base = (owner && c.rank.get(owner)) || [];
    const resourceSets: FluxResourceSet[] = [];
    for (const [i, b] of items.entries()) {
      const h = b.header;
      const origin = c.originOf(b, h.kind, h.name, dirRel);
      const isRoot = !owner && isFluxKustomization(h) && c.renderedKeys.has(ksKey(h.namespace ?? defaultNs, h.name)) && applier === ksKey(h.namespace ?? defaultNs, h.name);
      const o = renderedObject(h, origin, isRoot ? null : applier, b.text, this.ctx.memo);
      c.rank.set(o, [...base, i]);
      c.objects.push(o);
      if (isFluxKustomization(h)) {
        const k = c.toKs(b, isRoot ? null : applier, defaultNs, dirRel);
        if (!owner && this.roots.resolve(k.path) === this.entry.entry && this.roots.inRepo(k.sourceRef)) k.repoPath = this.entry.entry;
        c.rank.set(k, [...base, i]);
        c.ks.push(k);
        children.push(k);
      } else if (isResourceSet(h)) {
        const rs = this.resourceSets.toResourceSet(b, applier, defaultNs, origin);
        c.rank.set(rs, [...base, i]);
        c.rs.push(rs);
        resourceSets.push(rs);
      }
    }
    const rendering = [...children.map((k) => this.renderTier(k)), ...resourceSets.map((rs) => this.renderResourceSet(rs))];
    release();
    await Promise.all(rendering);
  }

  private renderTier(k: FluxKustomization): Promise<void> {
    return this.scheduler.tracked((r) => this.tiers.render(k, r));
  }

  /** Expands a ResourceSet, then renders the Kustomizations and ResourceSets it generates, as a tier's children. */
  private renderResourceSet(rs: FluxResourceSet): Promise<void> {
    return this.scheduler.tracked(async (release) => {
      const nested: Promise<void>[] = [];
      const sink: GeneratedSink = {
        kustomization: (k) => nested.push(this.renderTier(k)),
        resourceSet: (child) => nested.push(this.renderResourceSet(child)),
      };
      await this.lookForDependencies(rs);
      await this.resourceSets.expand(rs, sink);
      release();
      await Promise.all(nested);
    });
  }

  /**
   * A ResourceSet's dependsOn on an object that is not a Flux node (a CRD, a ConfigMap): under scope 'graph' the leaf
   * tier that applies it may be put off, so build the ones whose files may hold it before the graph resolves the edge.
   */
  private async lookForDependencies(rs: FluxResourceSet): Promise<void> {
    const wanted = rs.dependsOn.filter((d) => !(d.kind === 'Kustomization' || d.kind === 'ResourceSet') && d.name !== '');
    const missing = () => wanted.some((d) => !this.cluster.objects.some((o) => o.kind === d.kind && o.name === d.name));
    if (wanted.length === 0 || !missing()) return;
    const scan = new TierFileScan(this.ctx.kustomizations, this.ctx.ignored, anyObjectNamed(wanted.map((d) => d.name)));
    await this.scheduler.lookEverywhere(missing, (d) => scan.may(d.dir, d.components));
  }

  /**
   * Scope 'graph': the leaf tiers that may apply a HelmRelease another one depends on (scan-questions.ts), so that
   * plan sees the HelmRelease orders the tier graph hides. Such a tier applies no Kustomization, so one pass is enough.
   */
  private async buildHelmTargets(): Promise<void> {
    const names = new Set<string>();
    for (const o of this.cluster.objects) {
      if (o.kind !== 'HelmRelease' || !o.apiVersion.startsWith('helm.toolkit.fluxcd.io/')) continue;
      const deps = (o.raw as Obj).spec?.dependsOn;
      for (const d of Array.isArray(deps) ? deps : []) if (typeof d?.name === 'string') names.add(d.name);
    }
    if (names.size === 0 || !this.scheduler.hasDeferred) return;
    const scan = new TierFileScan(this.ctx.kustomizations, this.ctx.ignored, helmReleaseNamed(names));
    await this.scheduler.buildDeferred((d) => scan.may(d.dir, d.components));
  }

  /** Deferred leaves whose files may hold one of the substituteFrom objects of `ks` (scan-questions.ts objectNamed). */
  private mayHoldSources(ks: FluxKustomization): (d: Deferred) => boolean {
    // Every app of a repository tends to read the same few sources: one scan (and its file reads) per set of names.
    const names = [...new Set(ks.postBuild!.substituteFrom.map((r) => r.name))].sort();
    const key = JSON.stringify(names);
    let scan = this.ctx.sourceScans.get(key);
    if (!scan) this.ctx.sourceScans.set(key, (scan = new TierFileScan(this.ctx.kustomizations, this.ctx.ignored, objectNamed(names))));
    return (d) => scan.may(d.dir, d.components);
  }

  private missingSources(ks: FluxKustomization, extra: BuiltObject[]): boolean {
    return missingSources(ks, (kind, name, ns) => this.cluster.findObject(kind, name, ns, extra));
  }

  private substitute(items: BuiltObject[], ks: FluxKustomization): BuiltObject[] {
    const c = this.cluster;
    const vars = postBuildVars(ks, (kind, name, ns) => c.findObject(kind, name, ns, items), this.substitution);
    if (!vars) return items;
    const r = substituteObjects(items, vars, ks, (b) => c.originOf(b, b.header.kind, b.header.name, ks.repoPath ?? ''), this.ctx.memo, this.substitution);
    if (r.problems.some((p) => p.code === 'unresolved-substitution' && p.severity !== 'warning')) this.undefinedVariables = true;
    for (const p of r.problems) c.problem(p);
    return r.items;
  }
}
