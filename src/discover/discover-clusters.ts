// Finds a repository's cluster entry points and, for each, the root sync's source (what "this repository" is called
// inside the cluster). The same inference serves discovery (no tiers.yaml) and `--path` (see load/select-clusters.ts).
// Entries come from three strategies, each in its own file: root pairs (root-pairs.ts), overlays that patch a root
// (root-overlays.ts), and FluxInstance syncs (flux-instance.ts). Two roots that sync one path are one cluster whose
// sources are all this repository.
import path from 'node:path';

import type { Problem } from '../model/problem.js';
import { isDir } from '../repo/fs-stat.js';
import type { ClusterEntry, SourceSpec } from './cluster-entry.js';
import { DiscoveryScan, type DiscoverOptions, type Found } from './discovery-scan.js';
import { nameEntries } from './entry-names.js';
import { findFluxInstanceReleases, findFluxInstances } from './flux-instance.js';
import { placeArtifactRoots } from './artifact-root.js';
import { findResourceSetInstances } from './resourceset-instances.js';
import { findPatchedRoots } from './root-overlays.js';
import { findRootPairs } from './root-pairs.js';
import { leaveOutStaleTwins } from './stale-roots.js';
import type { NamespacedRef } from '../model/ref.js';

export interface Discovery {
  entries: ClusterEntry[];
  /** What stopped an entry from being read (a flux-instance values file missing), with file:line. */
  problems: Problem[];
}

export async function discoverClusters(o: DiscoverOptions): Promise<Discovery> {
  const scan = new DiscoveryScan(o);
  findPatchedRoots(scan, findRootPairs(scan));
  findFluxInstances(scan);
  findFluxInstanceReleases(scan);
  findResourceSetInstances(scan);
  await Promise.all(scan.builds);
  // Asked for given entries (tiers.yaml, --path), every root of them counts; else an old twin of the live root is not a cluster.
  const found = placeArtifactRoots(o.root, o.wanted ? scan.found : leaveOutStaleTwins(scan), scan.problems);
  return { entries: mergeFound(o.root, found), problems: scan.problems };
}

/** One entry per path: the first root with a URL (else the first) is the source, the others' sources are aliases. */
function mergeFound(root: string, found: Found[]): ClusterEntry[] {
  const byEntry = new Map<string, Found[]>();
  for (const f of found) {
    if (!isDir(path.join(root, f.entry))) continue;
    const list = byEntry.get(f.entry) ?? [];
    list.push(f);
    byEntry.set(f.entry, list);
  }
  const sameRef = (a: NamespacedRef, b: NamespacedRef) => a.kind === b.kind && a.name === b.name && a.namespace === b.namespace;
  const merged = [...byEntry.values()].map((list) => {
    const primary = list.find((f) => f.source.url) ?? list[0]!;
    const also: SourceSpec[] = [];
    for (const f of list) {
      if (sameRef(f.source.ref, primary.source.ref)) continue;
      if (!also.some((a) => sameRef(a.ref, f.source.ref))) also.push(f.source);
    }
    return { ...primary, also };
  });
  merged.sort((a, b) => a.entry.localeCompare(b.entry));
  return nameEntries(merged).map(({ name, f }) => ({
    name,
    entry: f.entry,
    source: f.source.ref,
    sourceUrl: f.source.url,
    alsoSources: f.also,
    foundIn: f.foundIn,
    how: 'discovered',
    ...(f.sourceRoot ? { sourceRoot: f.sourceRoot } : {}),
  }));
}
