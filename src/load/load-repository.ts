// Loads a repository into ClusterModels: reads tiers.yaml (or discovers the clusters), renders every cluster with the
// real kustomize and Flux's rules, and collects problems. The entry point of the folders that read a repository
// (repo, cache, discover, render).
//
// Debugging: STANDUP_DEBUG_KEEP=1 keeps the temp overlays and batches (their directory is under /dev/shm or $TMPDIR).
import path from 'node:path';
import type { StandupConfig } from '../model/config.js';
import { debug } from '../model/debug.js';
import { ConfigError } from '../model/errors.js';
import type { ClusterModel } from '../model/flux.js';
import { isError, sortProblems, type Problem } from '../model/problem.js';
import { findKustomize } from '../repo/find-kustomize.js';
import { isDir } from '../repo/fs-stat.js';
import { exportRevision, findGitRoot, type ExportedRevision } from '../repo/git.js';
import type { TextMemo } from '../repo/lazy-yaml.js';
import { readTiers, readTiersText } from '../repo/tiers-yaml.js';
import { kustomizeIdentity } from '../cache/build-cache.js';
import { memoFileFor } from '../cache/parse-memo.js';
import { cacheLocation, RenderCache } from '../cache/render-cache.js';
import type { ClusterEntry } from '../discover/cluster-entry.js';
import { discoverClusters, type Discovery } from '../discover/discover-clusters.js';
import { substitutionSemantics } from '../bootstrap/substitution-semantics.js';
import { buildPath } from '../render/build-path.js';
import { renderCluster } from '../render/cluster-renderer.js';
import { createRenderContext, type RenderContext, type RenderScope } from '../render/render-context.js';
import { LoadSession, type LoadStats } from './load-session.js';
import { localSourcesFromConfig, localSourcesFromFlags } from './local-sources.js';
import { parseSourceFlag } from './parse-source-flag.js';
import { selectClusters, type ClusterSelection } from './select-clusters.js';

export interface LoadOptions extends ClusterSelection {
  /** Repository directory; default: the git root of the current directory, or the current directory. */
  repo?: string;
  /**
   * The root sync's source, `KIND/NAMESPACE/NAME` (--source): overrides what tiers.yaml or discovery says, for every
   * selected cluster.
   */
  source?: string;
  /**
   * `--local-source` values: `KIND/NAMESPACE/NAME=DIR` or `URL=DIR` (DIR relative to the current directory), sources
   * read from a directory here; before tiers.yaml's localSources.
   */
  localSources?: string[];
  /** Read the repository at this git revision (exported to a temp dir), not the working tree. */
  rev?: string;
  /**
   * Called with tiers.yaml as soon as it is read, long before the tiers are rendered (`up` starts preflight with it),
   * with the repository's work tree and the load's parse memo (`up` reads its bootstrap files with them meanwhile).
   */
  onConfig?: (config: StandupConfig, at: { root: string; memo: TextMemo }) => void;
  /**
   * Called once the clusters' first kustomize builds have started (or the load ended before any): the moment for
   * other start-up work that needs the CPU, which would otherwise delay those processes' start.
   */
  onRendering?: () => void;
  /** Parallel kustomize processes; default os.availableParallelism(). */
  concurrency?: number;
  /**
   * The render cache's directory (see cache/render-cache.ts), or false / absent for none. The CLI passes the user's
   * ($XDG_CACHE_HOME/standup) unless --no-cache.
   */
  cache?: string | false;
  /**
   * 'all' (default) renders every tier. 'graph' renders only what can change the Kustomization graph (plan, graph):
   * leaf tiers' objects are left out unless a substitution or source lookup needs them.
   */
  scope?: RenderScope;
  /**
   * With scope 'graph': also build the leaf tiers that may hold a HelmRelease dependsOn on another tier's
   * HelmRelease, and those that may hold its target (render/scan-questions.ts), for `plan -o json`'s
   * implicitDependsOn.
   */
  helmOrders?: boolean;
  /** Progress of the kustomize builds (done of requested so far), for a progress line on a terminal. */
  onProgress?: (done: number, total: number) => void;
}

export interface LoadedRepository {
  /** Absolute repository directory (the work tree's, also with --rev; files in models are relative to it). */
  root: string;
  /** tiers.yaml, validated; the empty configuration when there is none. */
  config: StandupConfig;
  /**
   * tiers.yaml's text as this load read and validated it (with --rev, the revision's), for its line numbers; null when
   * the repository has none.
   */
  configText: string | null;
  /** One model per selected cluster, in tiers.yaml order (discovered ones by entry path). */
  clusters: ClusterModel[];
  /** Everything found while loading (yaml-invalid, build-failed, path-missing, unresolved-substitution), sorted. */
  problems: Problem[];
  /** What the user should know about how the load was read (a source that had to be assumed), for stderr. */
  notices: string[];
  /** What the load did: builds, kustomize processes, render cache hits. */
  stats: LoadStats;
  /**
   * The parse memo this load used, for pure text -> value reads after it (the bootstrap reader): its results are
   * saved with the load's when the session closes.
   */
  memo: TextMemo;
}

/**
 * Loads the repository. `session` holds the load's work directory and parse memo (see load-session.ts); without one,
 * the load gets its own, closed when the load ends.
 */
export async function loadRepository(o: LoadOptions, session?: LoadSession): Promise<LoadedRepository> {
  if (!session) {
    const own = new LoadSession();
    try {
      return await loadRepository(o, own);
    } finally {
      own.close();
    }
  }
  const t0 = performance.now();
  const cwd = process.cwd();
  let root: string;
  if (o.repo !== undefined) {
    root = path.resolve(cwd, o.repo);
    if (!isDir(root)) throw new ConfigError('REPO_NOT_FOUND', `repository directory not found: ${o.repo}`, 'Pass --repo DIR with an existing directory.');
  } else {
    root = (await findGitRoot(cwd)) ?? cwd;
  }
  let exported: ExportedRevision | null = null;
  let readRoot = root;
  if (o.rev !== undefined) {
    const gitRoot = await findGitRoot(root);
    if (!gitRoot) throw new ConfigError('NOT_A_GIT_REPOSITORY', `--rev needs a git repository, and ${root} is not in one`);
    exported = await exportRevision(gitRoot, o.rev);
    readRoot = path.join(exported.dir, path.relative(gitRoot, root));
    if (!isDir(readRoot)) {
      await exported.cleanup();
      throw new ConfigError('REPO_NOT_FOUND', `${path.relative(gitRoot, root) || '.'} does not exist at revision ${o.rev}`);
    }
  }
  let work: string | null = null;
  try {
    const sourceFlag = o.source !== undefined ? parseSourceFlag(o.source) : null;
    const kustomize = findKustomize();
    work = session.makeWorkDir();
    const kustomizeId = o.cache ? kustomizeIdentity(kustomize.command) : null;
    // Without a sure identity for kustomize, nothing it printed before can be trusted to be what it prints now.
    const renderCache = o.cache && kustomizeId ? new RenderCache(cacheLocation(o.cache, session.env)) : null;
    const tiersYaml = readTiersText(readRoot);
    const memo = session.openMemo(renderCache && !renderCache.disabled ? memoFileFor(renderCache.dir, { root, tiersYaml }) : null);
    const ctx = createRenderContext({ ...o, root: readRoot, work, kustomize, memo, renderCache, kustomizeId: kustomizeId ?? '' });
    const { config, file } = await readTiers(readRoot, tiersYaml, memo);
    o.onConfig?.(config, { root, memo });
    for (const [provider, sets] of Object.entries(config.resourceSetInputs)) ctx.resourceSetInputs.set(provider, sets);
    // Relative to the work tree, also with --rev: a companion directory is read as it is now, not at the revision.
    ctx.localSources = [
      ...localSourcesFromFlags(o.localSources ?? [], cwd),
      ...(Object.keys(config.localSources).length > 0 ? localSourcesFromConfig(config.localSources, root, tiersYaml) : []),
    ];
    const cacheNotice = renderCache?.disabled ? [`render cache not used: ${renderCache.disabled}; pass --no-cache to silence this`] : [];
    const selected = await selectClusters(readRoot, config, o, cwd, (wanted, under) => discoverWith(ctx, wanted, under));
    let entries = selected.entries;
    if (sourceFlag) {
      const same = (e: ClusterEntry) => e.source.kind === sourceFlag.kind && e.source.name === sourceFlag.name && e.source.namespace === sourceFlag.namespace;
      entries = entries.map((e) => ({ ...e, source: sourceFlag, sourceUrl: same(e) ? e.sourceUrl : null, alsoSources: [], foundIn: null, how: 'flag' }));
    }
    debug(() => `load ${readRoot}${o.rev ? ` at ${o.rev} (${exported?.commit})` : ''}: ${file ?? 'no tiers.yaml'}, entries ${entries.map((e) => `${e.name}=${e.entry || '.'}`).join(', ')}, ` +
      `kustomize ${kustomize.command.join(' ')}, scope ${o.scope ?? 'all'}${o.helmOrders ? ' with HelmRelease orders' : ''}, render cache ${renderCache ? renderCache.disabled ?? renderCache.dir : 'off'}, work dir ${work} (STANDUP_DEBUG_KEEP=1 keeps it)`);
    const rendering = Promise.all(
      entries.map(async (e) => {
        const first = await renderCluster(ctx, e);
        if (!first.undefinedVariables) return first;
        // Whether an undefined variable fails the build depends on the kustomize-controller the cluster installs,
        // which the render itself shows (its install manifests, FluxInstance): render again with its semantics. The
        // builds are the first render's (one per path and overlay per load), so only the reading is done twice.
        return renderCluster(ctx, e, substitutionSemantics(readRoot, config, first.model, memo));
      }),
    );
    // The entries' first builds were asked for just now; the builder starts them in this turn's setImmediate, queued
    // before this one.
    if (o.onRendering) setImmediate(o.onRendering);
    const results = await rendering;
    // Saved now for a next load in this process, and again when the session closes with what was parsed after.
    memo.save();
    await renderCache?.flush();
    void renderCache?.maybeCollect(); // in the background: it never fails the load, and the process waits for it
    const stats: LoadStats = {
      spawned: ctx.builder.spawned,
      builds: ctx.seq.n,
      ms: performance.now() - t0,
      cacheHits: renderCache?.stats.hits ?? 0,
      cacheMisses: renderCache?.stats.misses ?? 0,
      uncached: ctx.seq.uncached,
    };
    session.stats = stats;
    debug(() => `load done in ${stats.ms.toFixed(0)} ms: ${stats.builds} builds in ${stats.spawned} kustomize processes (${stats.cacheHits} from the render cache, ${stats.uncached} not cacheable)`);
    const problems = sortProblems([...selected.problems, ...results.flatMap((r) => r.problems)]);
    if (o.path !== undefined) {
      const c = results[0]!.model;
      if (c.kustomizations.length === 0 && !results[0]!.problems.some(isError)) {
        throw new ConfigError('NO_KUSTOMIZATION', `no Flux Kustomization under ${o.path}`,
          'Pass --path with a folder that holds Flux Kustomizations: the entry a root sync reconciles (e.g. clusters/dev), or a folder of tiers.');
      }
    }
    return {
      root,
      config,
      configText: tiersYaml,
      clusters: results.map((r) => r.model),
      problems,
      notices: [...cacheNotice, ...results.flatMap(({ model: c }) =>
        c.rootSource?.how === 'assumed'
          ? [
              `cluster ${c.name}: no root sync in the repository reconciles ${c.entry || '.'} (no gotk-sync.yaml, FluxInstance, ` +
                `flux-instance HelmRelease or Kustomization of its own names it), so its Kustomizations are taken to read this ` +
                `repository as ${c.rootSource.ref.kind}/${c.rootSource.ref.namespace}/${c.rootSource.ref.name}; pass --source KIND/NAMESPACE/NAME to name another`,
            ]
          : [],
      ), ...results.flatMap(({ model: c }) => (c.rootSource?.sourceRoot?.inferred ? [`cluster ${c.name}: ${c.rootSource.sourceRoot.why}`] : []))],
      stats,
      memo,
    };
  } finally {
    if (work) session.removeWorkDir(work);
    await exported?.cleanup();
  }
}

/** Discovery builds through the render's queue and cache, so an entry built to read it is not built again. */
const discoverWith = (ctx: RenderContext, wanted?: ReadonlySet<string>, under?: string[]) =>
  discoverClusters({ root: ctx.root, build: (dir) => buildPath(ctx, dir, {}).then((b) => b.outcome), files: ctx.kustomizations, work: ctx.work, wanted, under, ignored: ctx.ignored, memo: ctx.memo, listings: ctx.listings, resourceSetInputs: ctx.resourceSetInputs });

/** Discovery alone, without rendering: the cluster entries of a repository and what kept one from being read. */
export async function discoverRepository(repo: string): Promise<Discovery> {
  const session = new LoadSession();
  const root = path.resolve(repo);
  const work = session.makeWorkDir();
  try {
    const memo = session.openMemo(null);
    return await discoverWith(createRenderContext({ root, work, kustomize: findKustomize(), memo, renderCache: null, kustomizeId: '' }));
  } finally {
    session.removeWorkDir(work);
    session.close();
  }
}
