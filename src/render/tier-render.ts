// One Kustomization of a cluster rendered as kustomize-controller would: its source decides whether it is this
// repository (else it is external and not expanded), its spec.path must exist in the repository (or in the
// ExternalArtifact an ArtifactGenerator makes from it), and its directory is built with its own overlay (put off
// under scope 'graph' when the build cannot add to the graph). What the build applies goes back to the cluster's
// renderer, which renders the Kustomizations among it in turn.
import path from 'node:path';
import type { FluxKustomization } from '../model/flux.js';
import { refKey } from '../model/ref.js';
import { isDir } from '../repo/fs-stat.js';
import type { BuiltObject } from '../repo/kustomize-output.js';
import { normalizeRepoPath } from '../repo/repo-path.js';
import { parseGenerator } from './artifact-generator/index.js';
import type { MaterializedArtifact } from './artifact-store.js';
import { buildPath, requestKey } from './build-path.js';
import { overlayOf, type FluxOverlay } from './flux-overlay.js';
import { prefetchChildren } from './predicted-children.js';
import { putOffUnderGraph, type LocalSource, type RenderContext } from './render-context.js';
import type { RenderScheduler } from './render-scheduler.js';
import type { RenderedCluster } from './rendered-cluster.js';
import type { RootSources } from './root-sources.js';
import { refTree, type RefTree } from './source-ref.js';

/** What the cluster's renderer does with a tier's build output (and the Kustomizations in it). */
export type ReadOutput = (built: BuiltObject[], owner: FluxKustomization, dirRel: string, release: () => void) => Promise<void>;

export class TierRender {
  /** The sources of this repository at another ref already reported (one info per source). */
  private readonly notedRefs = new Set<string>();

  constructor(
    private readonly ctx: RenderContext,
    private readonly cluster: RenderedCluster,
    private readonly roots: RootSources,
    private readonly scheduler: RenderScheduler,
    private readonly readOutput: ReadOutput,
  ) {}

  async render(ks: FluxKustomization, release: () => void): Promise<void> {
    const cluster = this.cluster;
    if (cluster.renderedKeys.has(ks.key)) return;
    cluster.renderedKeys.add(ks.key);
    const ref = ks.sourceRef;
    // Whether a GitRepository is this repository (or a local source) depends on its URL; its object may come from a
    // tier not rendered yet.
    const byUrl = ref.kind === 'GitRepository' || (ref.kind !== 'ExternalArtifact' && this.ctx.localSources.some((l) => l.url));
    if (byUrl && !this.roots.isRootSource(ref) && !cluster.findObject(ref.kind, ref.name, ref.namespace)) {
      await this.scheduler.lookEverywhere(() => !cluster.findObject(ref.kind, ref.name, ref.namespace));
    }
    if (ref.kind === 'ExternalArtifact') {
      const artifact = await this.generatedArtifact(ks);
      if (artifact === 'failed') {
        cluster.expansion.set(ks.key, 'build-failed');
        return;
      }
      if (artifact) return this.renderFromArtifact(ks, artifact, release);
    }
    const local = this.roots.inRepo(ref) ? null : this.roots.localSource(ref, this.ctx.localSources);
    if (local) return this.renderFromLocal(ks, local, release);
    if (!this.roots.inRepo(ref)) {
      const id = refKey(ref);
      const ext = cluster.external.get(id) ?? { ref, url: this.roots.sourceUrl(ref), usedBy: [] };
      ext.usedBy.push(ks.key);
      cluster.external.set(id, ext);
      cluster.expansion.set(ks.key, 'external-source');
      cluster.problem({
        code: 'external-source',
        severity: 'info',
        message: `Kustomization ${ks.key} is not expanded: ${this.roots.whyExternal(ref)}. What it applies is neither in the graph nor checked.`,
        file: ks.origin.file,
        line: ks.origin.line,
        object: refKey({ kind: 'Kustomization', namespace: ks.namespace, name: ks.name }),
      });
      return;
    }
    const other = this.roots.otherRef(ref);
    const tree = other ? await this.otherRef(ks, other) : null;
    let rel = this.roots.resolve(ks.path);
    if (!tree && !isDir(path.join(this.ctx.root, rel))) rel = this.roots.inferArtifactRoot(ref, ks.path, this.ctx.root) ?? rel;
    const abs = path.join(tree?.dir ?? this.ctx.root, rel);
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
    if (this.cluster.renderedRequests.has(rk)) return;
    this.cluster.renderedRequests.add(rk);
    if (putOffUnderGraph(this.ctx, abs, overlay.components)) {
      this.cluster.expansion.set(ks.key, 'deferred');
      this.scheduler.defer(abs, overlay.components ?? [], (r) => this.buildChild(ks, abs, overlay, rel, r));
      return;
    }
    await this.buildChild(ks, abs, overlay, rel, release);
  }

  private async buildChild(ks: FluxKustomization, abs: string, overlay: FluxOverlay, rel: string, release: () => void): Promise<void> {
    const own = buildPath(this.ctx, abs, overlay);
    prefetchChildren(this.ctx, this.roots, abs, overlay, { namespace: ks.namespace });
    const built = await own;
    if (!built.outcome.ok) {
      this.cluster.expansion.set(ks.key, 'build-failed');
      this.cluster.buildFailed(built, built.outcome.error, ks);
      return;
    }
    this.cluster.expansion.set(ks.key, 'built');
    await this.readOutput(built.outcome.objects, ks, rel, release);
  }

  /**
   * The ExternalArtifact a Kustomization reads, when an ArtifactGenerator of this cluster makes it from this
   * repository: materialized (see artifact-store.ts). Null when it is external; 'failed' when a problem was reported.
   */
  private async generatedArtifact(ks: FluxKustomization): Promise<MaterializedArtifact | 'failed' | null> {
    const ref = ks.sourceRef;
    const cluster = this.cluster;
    if (!cluster.findGenerator(ref)) await this.scheduler.lookEverywhere(() => !cluster.findGenerator(ref));
    const gen = cluster.findGenerator(ref);
    if (!gen) return null;
    const object = refKey({ kind: 'ArtifactGenerator', namespace: ref.namespace, name: gen.name });
    const { spec, problems } = parseGenerator(gen.raw);
    if (!spec || problems.length > 0) {
      cluster.problem({
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
    const sourceDir = this.roots.sourceDir(this.ctx.root);
    const roots = new Map(
      // A source is this repository when it is a root source of the cluster (of any kind: an OCI artifact pushed from
      // a folder of it is read from the source root) or a GitRepository of the same URL.
      spec.sources.map((s) => [s.alias, this.roots.inRepo({ kind: s.kind, name: s.name, namespace: s.namespace ?? ref.namespace }) ? sourceDir : null]),
    );
    const out = this.ctx.artifacts.get(`${ref.namespace}/${gen.name}`, artifact, roots);
    if (out.ok) {
      for (const w of out.warnings) {
        cluster.problem({ code: 'build-failed', severity: 'warning', message: `${object}, artifact ${artifact.name}: ${w}`, file: gen.origin.file, line: gen.origin.line, object });
      }
      return out.artifact;
    }
    if (out.external) return null;
    cluster.problem({
      code: 'build-failed',
      severity: 'error',
      message: `${object} cannot build artifact ${artifact.name} (read by ${ks.key}): ${out.problems.join('; ')}`,
      file: gen.origin.file,
      line: gen.origin.line,
      object,
    });
    return 'failed';
  }

  /** A tier whose spec.path is inside a generated artifact: built from the artifact's tree, as Flux builds it. */
  private async renderFromArtifact(ks: FluxKustomization, artifact: MaterializedArtifact, release: () => void): Promise<void> {
    const sub = normalizeRepoPath(ks.path ?? '');
    const abs = path.join(artifact.dir, sub);
    if (sub.includes('${') || path.relative(artifact.dir, abs).startsWith('..') || !isDir(abs)) {
      this.pathMissing(ks, `does not exist in the ${artifact.label}`);
      return;
    }
    await this.buildTier(ks, abs, this.cluster.rel(abs), release);
  }

  /**
   * A GitRepository of this repository at another ref than the root sync's: the repository's tree at that ref when
   * git has it (built from there), else null (built from the work tree). Said once per source.
   */
  private async otherRef(ks: FluxKustomization, spec: string): Promise<RefTree | null> {
    const ref = ks.sourceRef;
    const tree = await refTree(this.ctx, spec);
    const id = `GitRepository/${ref.namespace}/${ref.name}`;
    if (!this.notedRefs.has(id)) {
      this.notedRefs.add(id);
      const source = this.cluster.findObjectOrigin(ref.kind, ref.name, ref.namespace);
      this.cluster.problem({
        code: 'source-ref',
        severity: 'info',
        message:
          `${id} is this repository at ${spec}, not the ref the root sync reads, so Flux builds ${ks.key} (and any other Kustomization reading it) from that ref: ` +
          (tree ? `built from ${tree.ref} (commit ${tree.commit.slice(0, 12)}) here.` : `git here has no such ref, so it is built from the work tree, which may differ from what Flux applies (fetch the ref to check it).`),
        file: source?.file ?? ks.origin.file,
        line: source?.line ?? ks.origin.line,
        object: id,
      });
    }
    return tree;
  }

  /** A tier whose source is read from a local directory: spec.path is relative to that directory. */
  private async renderFromLocal(ks: FluxKustomization, local: LocalSource, release: () => void): Promise<void> {
    const sub = normalizeRepoPath(ks.path ?? '');
    const abs = path.join(local.dir, sub);
    if (sub.includes('${') || path.relative(local.dir, abs).startsWith('..') || !isDir(abs)) {
      this.pathMissing(ks, sub.includes('${') ? 'still holds a variable after postBuild substitution, so the path does not exist' : `does not exist in ${local.dir} (${local.from})`);
      return;
    }
    const rel = this.cluster.rel(abs);
    ks.repoPath = rel;
    await this.buildTier(ks, abs, rel, release);
  }

  private pathMissing(ks: FluxKustomization, why: string): void {
    this.cluster.expansion.set(ks.key, 'path-missing');
    this.cluster.problem({
      code: 'path-missing',
      severity: 'error',
      message: `Kustomization ${ks.key}: spec.path "${ks.path ?? ''}" ${why} (Flux: kustomization path not found)`,
      file: ks.origin.file,
      line: ks.origin.line,
      object: refKey({ kind: 'Kustomization', namespace: ks.namespace, name: ks.name }),
    });
  }
}
