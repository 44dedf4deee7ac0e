// Which sources are this repository, for one cluster. The root sync's source (and the other root syncs of the same
// entry) is; so is a GitRepository with the same URL. Every other source is external: what a Kustomization reading it
// applies is neither rendered nor checked. Also where the source's root sits in the repository, which spec.paths are
// relative to.
import path from 'node:path';
import type { FluxKustomization, RootSource } from '../model/flux.js';
import type { BuiltObject } from '../repo/kustomize-output.js';
import type { LocalSource } from './render-context.js';
import { isDir } from '../repo/fs-stat.js';
import { normalizeRepoPath } from '../repo/repo-path.js';
import { FLUX_SOURCE_KINDS, type ClusterEntry, type SourceSpec } from '../discover/cluster-entry.js';
import { isFluxKustomization } from './flux-kustomization.js';
import type { Obj } from '../model/k8s.js';
import type { RenderedCluster } from './rendered-cluster.js';
import { sameGitUrl } from '../repo/git-url.js';
import { type NamespacedRef, refKey } from '../model/ref.js';

export class RootSources {
  /** The root sync's sources: Kustomizations reading one of them render from this repository. */
  private sources: SourceSpec[];
  private how: RootSource['how'];
  private foundIn: string | null;
  /**
   * The directory of this repository that the cluster's source serves as its root, repo-relative ('' = the
   * repository root). Flux resolves spec.path against the artifact root, so a Flux repository kept in a
   * subdirectory (the bundled example) has its paths relative to that subdirectory. Inferred from the root sync:
   * the entry path with the root Kustomization's own spec.path removed from its end.
   */
  private sourceRoot = '';
  /** The source root inferred from a tier's path (inferArtifactRoot), with why. */
  private placed: { dir: string; why: string; inferred: boolean } | null = null;

  constructor(
    private readonly cluster: RenderedCluster,
    private readonly entry: ClusterEntry,
  ) {
    this.sources = [{ ref: entry.source, url: entry.sourceUrl }, ...entry.alsoSources];
    this.how = entry.how;
    this.foundIn = entry.foundIn;
    if (entry.sourceRoot) this.sourceRoot = entry.sourceRoot.dir;
  }

  /** True when nothing named the root source (tiers.yaml, discovery, --source) and it is taken to be the default. */
  get assumed(): boolean {
    return this.how === 'assumed';
  }

  /** The root source as the model reports it. */
  rootSource(): RootSource {
    const [primary, ...also] = this.sources;
    return {
      ref: primary!.ref,
      url: primary!.url ?? this.sourceUrl(primary!.ref),
      how: this.how,
      foundIn: this.foundIn,
      also: also.map((a) => a.ref),
      ...(this.entry.sourceRoot ?? this.placed ? { sourceRoot: (this.entry.sourceRoot ?? this.placed)! } : {}),
    };
  }

  /**
   * No root sync names the entry (--path to a folder nothing in the repository syncs): a Kustomization in the entry's
   * own output whose spec.path reconciles the entry (a self-applying root, as `flux bootstrap` writes) is the root
   * sync, so the source it reads is this repository.
   */
  adoptRoot(items: BuiltObject[]): void {
    const entry = this.entry.entry;
    const own = items
      .filter((b) => isFluxKustomization(b.header))
      .map((b) => this.cluster.toKs(b, null, 'flux-system', entry))
      .filter((k) => sourceRootFor(entry, k.path) !== null)
      .sort((a, b) => sourceRootFor(entry, a.path)!.length - sourceRootFor(entry, b.path)!.length)[0];
    if (!own) return;
    this.sources = [{ ref: own.sourceRef, url: this.sourceUrl(own.sourceRef, items) }];
    this.how = 'self';
    this.foundIn = own.origin.file;
  }

  /** Root syncs in the entry's output: Kustomizations of this repository whose spec.path reconciles the entry itself. */
  rootsIn(items: BuiltObject[], dirRel: string): FluxKustomization[] {
    return items
      .filter((b) => isFluxKustomization(b.header))
      .map((b) => this.cluster.toKs(b, null, 'flux-system', dirRel))
      .filter((k) => this.inRepo(k.sourceRef, items) && sourceRootFor(this.entry.entry, k.path) !== null);
  }

  /** Takes the source root from the root syncs of the entry (the shortest one, when they disagree). */
  inferSourceRoot(roots: FluxKustomization[]): void {
    const inferred = this.inferredRoot(roots);
    if (inferred !== undefined) this.sourceRoot = inferred;
  }

  /** The source root the entry's root syncs imply (the shortest), unless tiers.yaml or discovery placed it. */
  private inferredRoot(roots: FluxKustomization[]): string | undefined {
    if (this.entry.sourceRoot) return undefined;
    return roots.map((r) => sourceRootFor(this.entry.entry, r.path)!).sort((a, b) => a.length - b.length)[0];
  }

  /**
   * A tier of the root source whose spec.path is not under the source root, when nothing placed that root (no root
   * sync in the entry, no FluxInstance, no tiers.yaml sourceRoot) and the source is an artifact (OCI, bucket) that
   * may hold a folder of the repository: the one folder above the entry that holds the path becomes the root.
   * Returns the new repo-relative path, or null.
   */
  inferArtifactRoot(ref: NamespacedRef, p: string | null, root: string): string | null {
    if (this.entry.sourceRoot || this.placed || this.sourceRoot !== '' || !this.isRootSource(ref) || (ref.kind !== 'OCIRepository' && ref.kind !== 'Bucket')) return null;
    const sub = normalizeRepoPath(p ?? '');
    if (sub === '' || sub.includes('${')) return null;
    const holders: string[] = [];
    for (let a = path.posix.dirname(this.entry.entry); a !== '.' && a !== ''; a = path.posix.dirname(a)) {
      if (isDir(path.join(root, a, sub))) holders.push(a);
    }
    if (holders.length !== 1) return null;
    const dir = holders[0]!;
    this.sourceRoot = dir;
    this.placed = {
      dir,
      inferred: true,
      why: `${ref.kind} ${ref.namespace}/${ref.name} is an artifact whose paths are not folders of the repository root; only ${dir}/ above the entry holds ` +
        `${sub}, so its paths are read from ${dir}/ (set sourceRoot: ${dir} for the cluster in tiers.yaml to say so)`,
    };
    return this.resolve(p);
  }

  /**
   * How resolve() will read spec.paths once inferSourceRoot has seen the entry's root syncs, for a guess made before
   * the entry is built (predicted-children.ts): `found` are the Kustomizations the entry's files declare.
   */
  resolverAfter(found: FluxKustomization[]): (p: string | null) => string {
    const roots = found.filter((k) => this.isRootSource(k.sourceRef) && sourceRootFor(this.entry.entry, k.path) !== null);
    const root = this.inferredRoot(roots) ?? this.sourceRoot;
    return (p) => underRoot(root, p);
  }

  /** The absolute directory the cluster's source serves as its root. */
  sourceDir(root: string): string {
    return path.join(root, this.sourceRoot);
  }

  /** A Flux spec.path of this cluster's source, as a repo-relative directory. */
  resolve(p: string | null): string {
    return underRoot(this.sourceRoot, p);
  }

  isRootSource(ref: NamespacedRef): boolean {
    return this.sources.some((s) => ref.kind === s.ref.kind && ref.name === s.ref.name && ref.namespace === s.ref.namespace);
  }

  /** A source is this repository when it is one of the entry's root sources, or a GitRepository with the same URL. */
  inRepo(ref: NamespacedRef, extra: BuiltObject[] = []): boolean {
    if (this.isRootSource(ref)) return true;
    if (ref.kind !== 'GitRepository') return false;
    const url = this.sourceUrl(ref, extra);
    if (!url) return false;
    return this.rootUrls(extra).some((u) => sameGitUrl(url, u));
  }

  /**
   * The ref a GitRepository of this repository reads when it is not the root source's: `branch release`,
   * `tag v1.2.0`; null when it is the same (or either is unknown). A GitRepository without spec.ref reads master.
   */
  otherRef(ref: NamespacedRef): string | null {
    if (ref.kind !== 'GitRepository' || this.isRootSource(ref)) return null;
    const mine = gitRefOf(this.cluster.findObject(ref.kind, ref.name, ref.namespace));
    const root = this.sources[0]!.ref;
    const theirs = root.kind === 'GitRepository' ? gitRefOf(this.cluster.findObject(root.kind, root.name, root.namespace)) : null;
    return mine && theirs && mine !== theirs ? mine : null;
  }

  /**
   * The local directory that stands for a source (--local-source, tiers.yaml localSources): one naming the source,
   * else one whose URL is the source's; null when none does.
   */
  localSource(ref: NamespacedRef, locals: readonly LocalSource[], extra: BuiltObject[] = []): LocalSource | null {
    const byRef = locals.find((l) => l.ref && l.ref.kind === ref.kind && l.ref.name === ref.name && l.ref.namespace === ref.namespace);
    if (byRef) return byRef;
    if (!locals.some((l) => l.url)) return null;
    const url = this.sourceUrl(ref, extra);
    return url ? (locals.find((l) => l.url && sameGitUrl(l.url, url)) ?? null) : null;
  }

  /** Why a source is not this repository, for the external-source problem. */
  whyExternal(ref: NamespacedRef): string {
    const id = `${ref.kind} ${ref.namespace}/${ref.name}`;
    const flag = refKey(ref);
    const declared = this.cluster.findObject(ref.kind, ref.name, ref.namespace);
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
        const gen = this.cluster.findGenerator(ref);
        return gen
          ? `${id} is made by ArtifactGenerator ${ref.namespace}/${gen.name} from a source that is not this repository`
          : `${id} is made by no ArtifactGenerator this cluster applies from git`;
      }
      default:
        return `${id} is not a source kind a Kustomization can read (${FLUX_SOURCE_KINDS.join(', ')})`;
    }
  }

  /** The URL (or bucket endpoint) of a source object this cluster applies, or null. */
  sourceUrl(ref: NamespacedRef, extra: BuiltObject[] = []): string | null {
    const o = this.cluster.findObject(ref.kind, ref.name, ref.namespace, extra);
    const url = o?.spec?.url ?? o?.spec?.endpoint;
    return typeof url === 'string' ? url : null;
  }

  /** The URLs this repository is known by: the root sources' (from discovery, else their objects in git). */
  private rootUrls(extra: BuiltObject[] = []): string[] {
    return this.sources.map((s) => s.url ?? this.sourceUrl(s.ref, extra)).filter((u): u is string => u !== null);
  }
}

/** What a GitRepository object checks out, as Flux reads spec.ref (commit, then name, semver, tag, branch). */
function gitRefOf(o: Obj | null): string | null {
  if (!o) return null;
  const r = (o.spec?.ref ?? {}) as Obj;
  for (const f of ['commit', 'name', 'semver', 'tag', 'branch']) if (typeof r[f] === 'string' && r[f]) return `${f} ${r[f]}`;
  return 'branch master';
}

/**
 * The source root that makes a root Kustomization with `spec.path` reconcile `entry`: `entry` minus `spec.path` at
 * its end ('' when they are equal), or null when `spec.path` is not a suffix of `entry`.
 */
/** A Flux spec.path read from the source root `root` (repo-relative), as a repo-relative directory. */
const underRoot = (root: string, p: string | null): string => normalizeRepoPath(path.posix.join(root, normalizeRepoPath(p ?? '')));

export function sourceRootFor(entry: string, specPath: string | null): string | null {
  const p = normalizeRepoPath(specPath ?? '');
  if (p === entry) return '';
  if (p === '' || !entry.endsWith(`/${p}`)) return null;
  return entry.slice(0, entry.length - p.length - 1);
}

export { sameGitUrl };
