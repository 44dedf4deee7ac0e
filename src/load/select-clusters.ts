// Which clusters a load renders: the --path entry, else tiers.yaml's clusters, else the discovered ones; filtered
// by --cluster. A cluster whose root source tiers.yaml does not name gets the one discovery finds for its path.
import path from 'node:path';
import type { StandupConfig } from '../model/config.js';
import { ConfigError } from '../model/errors.js';
import type { Problem } from '../model/problem.js';
import { isDir } from '../repo/fs-stat.js';
import { normalizeRepoPath, repoRelative } from '../repo/repo-path.js';
import { CONFIG_FILE } from '../repo/tiers-yaml.js';
import { DEFAULT_SOURCE, type ClusterEntry } from '../discover/cluster-entry.js';
import type { Discovery } from '../discover/discover-clusters.js';
import { entryName } from '../discover/entry-names.js';

/** What the user selected (LoadOptions' part of it). */
export interface ClusterSelection {
  /** Cluster names to load (all by default). */
  clusters?: string[];
  /** An entry directory (relative to the repository, or absolute) instead of named clusters. */
  path?: string;
}

/** Discovery: only the entries `wanted` (all when absent), only under these folders (absolute; all when absent). */
export type Discover = (wanted?: ReadonlySet<string>, under?: string[]) => Promise<Discovery>;

/** The clusters to load: --path, else tiers.yaml's clusters, else discovered ones; filtered by --cluster. */
export async function selectClusters(
  root: string,
  config: StandupConfig,
  o: ClusterSelection,
  cwd: string,
  discover: Discover,
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
      const e = hit ? { ...hit, name: w.name || hit.name } : assumed(w.name, w.entry, null);
      const conf = w.name ? config.clusters[w.name] : undefined;
      return conf?.sourceRoot !== undefined ? { ...e, sourceRoot: configuredRoot(conf.sourceRoot) } : e;
    });
    return { entries, problems };
  };
  if (o.path !== undefined) {
    const abs = path.isAbsolute(o.path) ? o.path : path.resolve(root, o.path);
    const fromCwd = path.resolve(cwd, o.path);
    const dir = isDir(abs) ? abs : isDir(fromCwd) && !path.relative(root, fromCwd).startsWith('..') ? fromCwd : null;
    if (!dir) throw new ConfigError('PATH_NOT_FOUND', `entry path not found: ${o.path} (looked in ${root})`, 'Pass --path with a directory inside the repository.');
    const entry = normalizeRepoPath(repoRelative(root, dir));
    // The same inference as without --path: tiers.yaml's source for this path, else the root sync that discovery
    // finds for it, else the entry's own root (see render/root-sources.ts adoptRoot), else the default.
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
    ...(c.sourceRoot !== undefined ? { sourceRoot: configuredRoot(c.sourceRoot) } : {}),
  };
}

const configuredRoot = (dir: string): NonNullable<ClusterEntry['sourceRoot']> => ({ dir: normalizeRepoPath(dir), why: `${CONFIG_FILE} sourceRoot`, inferred: false });
