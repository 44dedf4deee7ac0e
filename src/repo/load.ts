// Loads a repository into ClusterModels: reads tiers.yaml (or discovers the clusters), renders every cluster with the
// real kustomize and Flux's rules, and collects problems. The only module other code imports from src/repo.
//
// Debugging: STANDUP_DEBUG_KEEP=1 keeps the temp overlays and batches (their directory is under /dev/shm or $TMPDIR).
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, type Dirent } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { StandupConfig } from '../model/config.js';
import { debug } from '../model/debug.js';
import { ConfigError } from '../model/errors.js';
import type { ClusterModel } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import { sortProblems } from '../model/problem.js';
import { DEFAULT_SOURCE, discoverClusters, entryName, normalizeRepoPath, type ClusterEntry, type Discovery } from './discover.js';
import { exportRevision, findGitRoot, type ExportedRevision } from './git.js';
import { ArtifactStore } from './artifacts.js';
import { FluxScan } from './flux-scan.js';
import { HELM_DEPENDS_ON } from './helm-scan.js';
import { KustomizationFiles } from './kustomization-file.js';
import { Builder, findKustomize } from './kustomize.js';
import { OriginIndex } from './origin.js';
import { Prescreen } from './prescreen.js';
import { buildPath, renderCluster, type RenderContext } from './render.js';
import { parseSourceFlag } from './source-flag.js';
import { BuildInputs } from './build-inputs.js';
import { cacheLocation, RenderCache } from './render-cache.js';
import { SourceIgnore } from './sourceignore.js';
import { ParseMemo } from './parse-memo.js';
import { codeId } from './code-id.js';
import { createHash } from 'node:crypto';
import { isError } from '../model/problem.js';

export interface LoadOptions {
  /** Repository directory; default: the git root of the current directory, or the current directory. */
  repo?: string;
  /** Cluster names to load (all by default). */
  clusters?: string[];
  /** An entry directory (relative to the repository, or absolute) instead of named clusters. */
  path?: string;
  /**
   * The root sync's source, `KIND/NAMESPACE/NAME` (--source): overrides what tiers.yaml or discovery says, for every
   * selected cluster.
   */
  source?: string;
  /** Read the repository at this git revision (exported to a temp dir), not the working tree. */
  rev?: string;
  /** Parallel kustomize processes; default os.availableParallelism(). */
  concurrency?: number;
  /**
   * The render cache's directory (see render-cache.ts), or false / absent for none. The CLI passes the user's
   * ($XDG_CACHE_HOME/standup) unless --no-cache.
   */
  cache?: string | false;
  /**
   * 'all' (default) renders every tier. 'graph' renders only what can change the Kustomization graph (plan, graph):
   * leaf tiers' objects are left out unless a substitution or source lookup needs them.
   */
  scope?: 'all' | 'graph';
  /**
   * With scope 'graph': also build the leaf tiers that may hold a HelmRelease dependsOn on another tier's
   * HelmRelease, and those that may hold its target (helm-scan.ts), for `plan -o json`'s implicitDependsOn.
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
  /** Absolute path of tiers.yaml, or null. */
  configFile: string | null;
  /** One model per selected cluster, in tiers.yaml order (discovered ones by entry path). */
  clusters: ClusterModel[];
  /** Everything found while loading (yaml-invalid, build-failed, path-missing, unresolved-substitution), sorted. */
  problems: Problem[];
  /** What the user should know about how the load was read (a source that had to be assumed), for stderr. */
  notices: string[];
}

/** tiers.yaml (config.ts's CONFIG_FILE, which is not imported here: see readTiers). */
export const CONFIG_FILE = 'tiers.yaml';

/** Statistics of the last load in this process (kustomize processes spawned, builds requested); for benchmarks. */
/** uncached: builds the render cache cannot key (a remote base, an unknown field: build-inputs.ts). */
export const lastLoadStats = { spawned: 0, builds: 0, ms: 0, cacheHits: 0, cacheMisses: 0, uncached: 0 };

/** Overlays are hundreds of tiny files: keep them in RAM (/dev/shm) where there is one. */
function workBase(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    if (statSync('/dev/shm').isDirectory()) return '/dev/shm';
  } catch {
    /* fall through */
  }
  return os.tmpdir();
}

/**
 * Removing hundreds of overlay dirs takes a noticeable time on a busy disk; a detached `rm -rf` does it without
 * holding up the command. Falls back to removing in process where there is no `rm`.
 */
function removeLater(dir: string): void {
  try {
    const child = spawn('rm', ['-rf', dir], { detached: true, stdio: 'ignore' });
    child.on('error', () => rmSync(dir, { recursive: true, force: true }));
    child.unref();
  } catch {
    rmSync(dir, { recursive: true, force: true });
  }
}

const isDir = (p: string) => {
  try {
    return statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
};

export async function loadRepository(o: LoadOptions): Promise<LoadedRepository> {
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
    work = mkdtempSync(path.join(workBase(), 'standup-render-'));
    const ctx = renderContext(readRoot, work, kustomize, o, root);
    const { config, file } = await readTiers(readRoot, ctx.memo);
    const cacheNotice = ctx.renderCache?.disabled ? [`render cache not used: ${ctx.renderCache.disabled}; pass --no-cache to silence this`] : [];
    const discover = (wanted?: ReadonlySet<string>, under?: string[]) => discoverWith(ctx, wanted, under);
    const selected = await selectEntries(readRoot, config, o, cwd, discover);
    let entries = selected.entries;
    if (sourceFlag) {
      const same = (e: ClusterEntry) => e.source.kind === sourceFlag.kind && e.source.name === sourceFlag.name && e.source.namespace === sourceFlag.namespace;
      entries = entries.map((e) => ({ ...e, source: sourceFlag, sourceUrl: same(e) ? e.sourceUrl : null, alsoSources: [], foundIn: null, how: 'flag' }));
    }
    debug(() => `load ${readRoot}${o.rev ? ` at ${o.rev} (${exported?.commit})` : ''}: ${file ?? 'no tiers.yaml'}, entries ${entries.map((e) => `${e.name}=${e.entry || '.'}`).join(', ')}, ` +
      `kustomize ${kustomize.command.join(' ')}, scope ${o.scope ?? 'all'}${o.helmOrders ? ' with HelmRelease orders' : ''}, render cache ${ctx.renderCache ? ctx.renderCache.disabled ?? ctx.renderCache.dir : 'off'}, work dir ${work} (STANDUP_DEBUG_KEEP=1 keeps it)`);
    const results = await Promise.all(entries.map((e) => renderCluster(ctx, e)));
    lastLoadStats.spawned = ctx.builder.spawned;
    lastLoadStats.cacheHits = ctx.renderCache?.stats.hits ?? 0;
    lastLoadStats.uncached = ctx.seq.uncached;
    lastLoadStats.cacheMisses = ctx.renderCache?.stats.misses ?? 0;
    // Saved now for a next load in this process, and again at exit with what commands parsed after the load.
    ctx.memo.save();
    await ctx.renderCache?.flush();
    ctx.renderCache?.maybeCollect();
    lastLoadStats.builds = ctx.seq.n;
    lastLoadStats.ms = performance.now() - t0;
    debug(() => `load done in ${lastLoadStats.ms.toFixed(0)} ms: ${lastLoadStats.builds} builds in ${lastLoadStats.spawned} kustomize processes (${lastLoadStats.cacheHits} from the render cache, ${lastLoadStats.uncached} not cacheable)`);
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
      configFile: file ? path.join(root, CONFIG_FILE) : null,
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
      )],
    };
  } finally {
    if (work && !process.env.STANDUP_DEBUG_KEEP) removeLater(work);
    await exported?.cleanup();
  }
}

/**
 * @param root the directory read (the work tree, or an exported revision)
 * @param repoRoot the repository as the user names it, whose parse memo this load reads and writes
 */
/**
 * tiers.yaml, validated; from the parse memo when this text was validated before, so that its parser (yaml and zod,
 * ~130 ms to import) loads only for a configuration that changed. A configuration error is never kept.
 */
async function readTiers(root: string, memo: ParseMemo): Promise<{ config: StandupConfig; file: string | null }> {
  const file = path.join(root, CONFIG_FILE);
  let text: string | null;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return (await import('./config.js')).readConfig(root);
    text = null;
  }
  const how = text === null ? 'tiers.yaml absent' : 'tiers.yaml';
  let config = memo.peek<StandupConfig>(how, text ?? '');
  if (config === undefined) {
    config = text === null ? (await import('../model/config.js')).emptyConfig() : (await import('./config.js')).parseConfig(text, CONFIG_FILE);
    memo.put(how, text ?? '', config);
  }
  return { config, file: text === null ? null : file };
}

function renderContext(root: string, work: string, kustomize: ReturnType<typeof findKustomize>, o: Pick<LoadOptions, 'concurrency' | 'scope' | 'cache' | 'onProgress' | 'helmOrders'>, repoRoot = root): RenderContext {
  const builder = new Builder({ kustomize, work, concurrency: Math.max(1, o.concurrency ?? os.availableParallelism()), onProgress: o.onProgress });
  const kustomizeId = o.cache ? binaryId(kustomize.command) : null;
  // Without a sure identity for kustomize, nothing it printed before can be trusted to be what it prints now.
  const renderCache = o.cache && kustomizeId ? new RenderCache(cacheLocation(o.cache, process.env)) : null;
  // One memo per repository and standup build: two versions sharing the cache keep their own.
  const memoName = createHash('sha256').update(`${repoRoot}\u0000${codeId()}`).digest('hex').slice(0, 32);
  const memo = new ParseMemo(renderCache && !renderCache.disabled ? path.join(renderCache.dir, 'memo', `${memoName}.memo`) : null);
  const kustomizations = new KustomizationFiles(memo);
  const listings = new Map<string, Dirent[]>();
  const sourceIgnore = SourceIgnore.load(root, listings);
  const ignoredMemo = new Map<string, boolean>();
  const ignored = (abs: string) => {
    let r = ignoredMemo.get(abs);
    if (r === undefined) {
      const rel = path.relative(root, abs);
      r = !rel.startsWith('..') && !path.isAbsolute(rel) && sourceIgnore.ignores(rel.split(path.sep).join('/'));
      ignoredMemo.set(abs, r);
    }
    return r;
  };
  return {
    root,
    work,
    builder,
    origins: new OriginIndex(memo),
    cache: new Map(),
    prescreen: new Prescreen(kustomizations),
    seq: { n: 0, uncached: 0 },
    scope: o.scope ?? 'all',
    fluxScan: new FluxScan(kustomizations, ignored),
    sourceScans: new Map(),
    helmScan: o.helmOrders ? new FluxScan(kustomizations, ignored, HELM_DEPENDS_ON) : null,
    artifacts: new ArtifactStore(work),
    kustomizations,
    renderCache,
    inputs: new BuildInputs(kustomizations),
    kustomizeId: kustomizeId ?? '',
    sourceIgnore,
    ignored,
    memo,
    listings,
  };
}

/** The kustomize that renders, as the cache knows it: the command, and its binary's real path, size and mtime. */
function binaryId(command: readonly string[]): string | null {
  try {
    const real = realpathSync(command[0]!);
    const st = statSync(real);
    return JSON.stringify([real, st.size, st.mtimeMs, command.slice(1)]);
  } catch {
    return null;
  }
}

/** Discovery builds through the render's queue and cache, so an entry built to read it is not built again. */
const discoverWith = (ctx: RenderContext, wanted?: ReadonlySet<string>, under?: string[]) =>
  discoverClusters({ root: ctx.root, build: (dir) => buildPath(ctx, dir, {}).then((b) => b.outcome), files: ctx.kustomizations, work: ctx.work, wanted, under, ignored: ctx.ignored, memo: ctx.memo, listings: ctx.listings });

/** Discovery alone, without rendering: the cluster entries of a repository and what kept one from being read. */
export async function discoverRepository(repo: string): Promise<Discovery> {
  const root = path.resolve(repo);
  const work = mkdtempSync(path.join(workBase(), 'standup-render-'));
  try {
    return await discoverWith(renderContext(root, work, findKustomize(), {}));
  } finally {
    removeLater(work);
  }
}

/** The clusters to load: --path, else tiers.yaml's clusters, else discovered ones; filtered by --cluster. */
async function selectEntries(
  root: string,
  config: StandupConfig,
  o: LoadOptions,
  cwd: string,
  discover: (wanted?: ReadonlySet<string>, under?: string[]) => Promise<Discovery>,
): Promise<{ entries: ClusterEntry[]; problems: Problem[] }> {
  const configured = Object.entries(config.clusters);
  /** A cluster whose root source nothing names: the renderer looks for the entry's own root, else assumes the default. */
  const assumed = (name: string, entry: string, foundIn: string | null): ClusterEntry => ({ name, entry, source: DEFAULT_SOURCE, sourceUrl: null, alsoSources: [], foundIn, how: 'assumed' });
  /**
   * tiers.yaml clusters without a `source:` (and --path): the root sync that discovery finds for their path. A
   * cluster's bootstrap.sync names the folder of its root sync, so that folder is read first and the repository
   * only for the rest.
   */
  const infer = async (wanted: { name: string; entry: string; syncDir: string | null }[]): Promise<{ entries: ClusterEntry[]; problems: Problem[] }> => {
    const found = new Map<string, ClusterEntry>();
    const syncDirs = wanted.map((w) => w.syncDir).filter((d): d is string => d !== null && isDir(path.join(root, d)));
    if (syncDirs.length > 0) {
      for (const e of (await discover(new Set(wanted.map((w) => w.entry)), syncDirs.map((d) => path.join(root, d)))).entries) found.set(e.entry, e);
    }
    let problems: Problem[] = [];
    const rest = wanted.filter((w) => !found.has(w.entry));
    if (rest.length > 0) {
      const d = await discover(new Set(rest.map((w) => w.entry)));
      for (const e of d.entries) if (!found.has(e.entry)) found.set(e.entry, e);
      // What kept discovery from reading a root (a values file missing) matters when a cluster's source is assumed.
      if (rest.some((w) => !found.has(w.entry))) problems = d.problems;
    }
    const entries = wanted.map((w) => {
      const hit = found.get(w.entry);
      return hit ? { ...hit, name: w.name || hit.name } : assumed(w.name, w.entry, null);
    });
    return { entries, problems };
  };
  if (o.path !== undefined) {
    const abs = path.isAbsolute(o.path) ? o.path : path.resolve(root, o.path);
    const fromCwd = path.resolve(cwd, o.path);
    const dir = isDir(abs) ? abs : isDir(fromCwd) && !path.relative(root, fromCwd).startsWith('..') ? fromCwd : null;
    if (!dir) throw new ConfigError('PATH_NOT_FOUND', `entry path not found: ${o.path} (looked in ${root})`, 'Pass --path with a directory inside the repository.');
    const entry = normalizeRepoPath(path.relative(root, dir).split(path.sep).join('/'));
    // The same inference as without --path: tiers.yaml's source for this path, else the root sync that discovery
    // finds for it, else the entry's own root (see render.ts adoptRoot), else the default.
    const conf = configured.find(([, c]) => normalizeRepoPath(c.path) === entry);
    if (conf?.[1].source) return { entries: [fromConfig(conf[0], conf[1])], problems: [] };
    const r = await infer([{ name: conf?.[0] ?? '', entry, syncDir: conf?.[1].bootstrap?.sync ?? null }]);
    // Named as tiers.yaml names the path, else as discovery does, else after the folder.
    const e = r.entries[0]!;
    return { entries: [{ ...e, name: conf?.[0] ?? (e.how === 'assumed' ? entryName(entry) : e.name) }], problems: r.problems };
  }
  let entries: ClusterEntry[];
  let problems: Problem[] = [];
  if (configured.length > 0) {
    const r = await infer(configured.filter(([, c]) => !c.source).map(([name, c]) => ({ name, entry: normalizeRepoPath(c.path), syncDir: c.bootstrap?.sync ?? null })));
    entries = configured.map(([name, c]) => (c.source ? fromConfig(name, c) : r.entries.find((e) => e.name === name)!));
    problems = r.problems;
  } else {
    const d = await discover();
    entries = d.entries;
    problems = d.problems;
    if (entries.length === 0) {
      const why = problems.map((p) => `\n  ${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}`).join('');
      throw new ConfigError(
        'NO_CLUSTERS',
        `no clusters found in ${root}: there is no ${CONFIG_FILE}, no flux-system/gotk-sync.yaml, no root Kustomization that applies itself and no FluxInstance${why}`,
        `Add a ${CONFIG_FILE} with a clusters: section, or pass --path DIR.`,
      );
    }
  }
  if (o.clusters?.length) {
    const known = entries.map((e) => e.name);
    const unknown = o.clusters.filter((c) => !known.includes(c));
    if (unknown.length) {
      throw new ConfigError(
        'UNKNOWN_CLUSTER',
        `unknown cluster ${unknown.map((u) => `"${u}"`).join(', ')}; known clusters: ${known.join(', ')}`,
        configured.length ? `Clusters are declared in ${CONFIG_FILE}.` : 'Clusters were discovered from the repository; pass --path DIR for another entry.',
      );
    }
    entries = entries.filter((e) => o.clusters!.includes(e.name));
  }
  for (const e of entries) {
    if (!isDir(path.join(root, e.entry))) {
      throw new ConfigError('PATH_NOT_FOUND', `cluster "${e.name}": entry path ${e.entry || '.'} does not exist in ${root}`, `Fix clusters.${e.name}.path in ${CONFIG_FILE}.`);
    }
  }
  return { entries, problems };
}

function fromConfig(name: string, c: StandupConfig['clusters'][string]): ClusterEntry {
  return {
    name,
    entry: normalizeRepoPath(c.path),
    source: c.source ? { kind: c.source.kind, name: c.source.name, namespace: c.source.namespace } : DEFAULT_SOURCE,
    sourceUrl: null,
    alsoSources: [],
    foundIn: CONFIG_FILE,
    how: 'config',
  };
}
