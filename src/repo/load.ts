// Loads a repository into ClusterModels: reads tiers.yaml (or discovers the clusters), renders every cluster with the
// real kustomize and Flux's rules, and collects problems. The only module other code imports from src/repo.
//
// Debugging: STANDUP_DEBUG_KEEP=1 keeps the temp overlays and batches (their directory is under /dev/shm or $TMPDIR).
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { StandupConfig } from '../model/config.js';
import { debug } from '../model/debug.js';
import { ConfigError } from '../model/errors.js';
import type { ClusterModel } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import { sortProblems } from '../model/problem.js';
import { CONFIG_FILE, readConfig } from './config.js';
import { DEFAULT_SOURCE, discoverClusters, normalizeRepoPath, type ClusterEntry } from './discover.js';
import { exportRevision, findGitRoot, type ExportedRevision } from './git.js';
import { ArtifactStore } from './artifacts.js';
import { FluxScan } from './flux-scan.js';
import { KustomizationFiles } from './kustomization-file.js';
import { Builder, findKustomize } from './kustomize.js';
import { OriginIndex } from './origin.js';
import { Prescreen } from './prescreen.js';
import { renderCluster, type RenderContext } from './render.js';

export interface LoadOptions {
  /** Repository directory; default: the git root of the current directory, or the current directory. */
  repo?: string;
  /** Cluster names to load (all by default). */
  clusters?: string[];
  /** An entry directory (relative to the repository, or absolute) instead of named clusters. */
  path?: string;
  /** Read the repository at this git revision (exported to a temp dir), not the working tree. */
  rev?: string;
  /** Parallel kustomize processes; default os.availableParallelism(). */
  concurrency?: number;
  /**
   * 'all' (default) renders every tier. 'graph' renders only what can change the Kustomization graph (plan, graph):
   * leaf tiers' objects are left out unless a substitution or source lookup needs them.
   */
  scope?: 'all' | 'graph';
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
}

/** Statistics of the last load in this process (kustomize processes spawned, builds requested); for benchmarks. */
export const lastLoadStats = { spawned: 0, builds: 0, ms: 0 };

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
    return statSync(p).isDirectory();
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
    const { config, file } = await readConfig(readRoot);
    const entries = selectEntries(readRoot, config, o, cwd);
    const kustomize = findKustomize();
    work = mkdtempSync(path.join(workBase(), 'standup-render-'));
    const builder = new Builder({ kustomize, work, concurrency: Math.max(1, o.concurrency ?? os.availableParallelism()), onProgress: o.onProgress });
    debug(() => `load ${readRoot}${o.rev ? ` at ${o.rev} (${exported?.commit})` : ''}: ${file ?? 'no tiers.yaml'}, entries ${entries.map((e) => `${e.name}=${e.entry || '.'}`).join(', ')}, ` +
      `kustomize ${kustomize.command.join(' ')}, scope ${o.scope ?? 'all'}, work dir ${work} (STANDUP_DEBUG_KEEP=1 keeps it)`);
    const kustomizations = new KustomizationFiles();
    const ctx: RenderContext = { root: readRoot, work, builder, origins: new OriginIndex(), cache: new Map(), prescreen: new Prescreen(kustomizations), seq: { n: 0 }, scope: o.scope ?? 'all', fluxScan: new FluxScan(kustomizations), artifacts: new ArtifactStore(work) };
    const results = await Promise.all(entries.map((e) => renderCluster(ctx, e)));
    lastLoadStats.spawned = builder.spawned;
    lastLoadStats.builds = ctx.seq.n;
    lastLoadStats.ms = performance.now() - t0;
    debug(() => `load done in ${lastLoadStats.ms.toFixed(0)} ms: ${lastLoadStats.builds} builds in ${lastLoadStats.spawned} kustomize processes`);
    return {
      root,
      config,
      configFile: file ? path.join(root, CONFIG_FILE) : null,
      clusters: results.map((r) => r.model),
      problems: sortProblems(results.flatMap((r) => r.problems)),
    };
  } finally {
    if (work && !process.env.STANDUP_DEBUG_KEEP) removeLater(work);
    await exported?.cleanup();
  }
}

/** The clusters to load: --path, else tiers.yaml's clusters, else discovered ones; filtered by --cluster. */
function selectEntries(root: string, config: StandupConfig, o: LoadOptions, cwd: string): ClusterEntry[] {
  let entries: ClusterEntry[];
  if (o.path !== undefined) {
    const abs = path.isAbsolute(o.path) ? o.path : path.resolve(root, o.path);
    const fromCwd = path.resolve(cwd, o.path);
    const dir = isDir(abs) ? abs : isDir(fromCwd) && !path.relative(root, fromCwd).startsWith('..') ? fromCwd : null;
    if (!dir) throw new ConfigError('PATH_NOT_FOUND', `entry path not found: ${o.path} (looked in ${root})`, 'Pass --path with a directory inside the repository.');
    const entry = normalizeRepoPath(path.relative(root, dir).split(path.sep).join('/'));
    return [{ name: entry ? path.posix.basename(entry) : 'root', entry, source: DEFAULT_SOURCE, sourceUrl: null, foundIn: null }];
  }
  const configured = Object.entries(config.clusters);
  if (configured.length > 0) {
    entries = configured.map(([name, c]) => ({
      name,
      entry: normalizeRepoPath(c.path),
      source: c.source ? { kind: c.source.kind, name: c.source.name, namespace: c.source.namespace } : DEFAULT_SOURCE,
      sourceUrl: null,
      foundIn: CONFIG_FILE,
    }));
  } else {
    entries = discoverClusters(root);
    if (entries.length === 0) {
      throw new ConfigError(
        'NO_CLUSTERS',
        `no clusters found in ${root}: there is no ${CONFIG_FILE}, no flux-system/gotk-sync.yaml and no FluxInstance`,
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
  return entries;
}
