// Where a FluxInstance's sync path lies in the repository. A GitRepository's artifact is the repository, so the
// path is relative to its root. An OCI artifact (or a bucket) holds whatever was pushed: CI often runs `flux push
// artifact --path=./kubernetes`, and the sync's `path: ./clusters/x` is then relative to that folder. When the path
// is not a folder of the repository, the artifact root is inferred: the one folder that holds the path (stderr says
// which and why; tiers.yaml sourceRoot says it outright). What cannot be placed is a warning naming the sync and why.
import path from 'node:path';
import type { Problem } from '../model/problem.js';
import { isDir, walkDirs } from '../repo/fs-stat.js';
import { CONFIG_FILE } from '../repo/tiers-yaml.js';
import type { Found } from './discovery-scan.js';

const ARTIFACT_KINDS = new Set(['OCIRepository', 'Bucket']);

/** `found` with each FluxInstance sync placed: its entry a folder of the repository, or left out with a problem. */
export function placeArtifactRoots(root: string, found: Found[], problems: Problem[]): Found[] {
  let dirs: string[] | null = null;
  const out: Found[] = [];
  for (const f of found) {
    if (!f.instance || isDir(path.join(root, f.entry))) {
      out.push(f);
      continue;
    }
    const { kind, namespace, name } = f.source.ref;
    const src = `${kind} ${namespace}/${name}${f.source.url ? ` (${f.source.url})` : ''}`;
    const warn = (why: string) =>
      problems.push({ code: 'path-missing', severity: 'warning', message: `${f.instance} syncs path "${f.entry}" from ${src}, ${why}`, file: f.foundIn, line: null, object: null, cluster: null });
    if (!ARTIFACT_KINDS.has(kind)) {
      warn(`which is not a folder of this repository, so it is not a cluster of it; if this repository is that source, pass --path with the folder the sync reads`);
      continue;
    }
    dirs ??= allDirs(root);
    const holders = f.entry === '' ? [] : dirs.filter((d) => d.endsWith(`/${f.entry}`));
    if (holders.length !== 1) {
      const which = holders.length === 0 ? 'no folder of this repository holds it' : `${holders.length} folders hold it (${holders.slice(0, 4).join(', ')})`;
      warn(
        `an artifact whose root is a folder of this repository, but ${which}; set clusters.NAME.path to the folder the sync reads and ` +
          `clusters.NAME.sourceRoot to the folder the artifact is pushed from in ${CONFIG_FILE}, or pass --path`,
      );
      continue;
    }
    const entry = holders[0]!;
    const dir = entry.slice(0, entry.length - f.entry.length - 1);
    const why =
      `${f.instance} (${f.foundIn}) syncs ./${f.entry} from ${src}, an artifact pushed from a folder of this repository: only ${dir}/ holds ` +
      `${f.entry}, so its paths are read from ${dir}/ (set sourceRoot: ${dir} for the cluster in ${CONFIG_FILE} to say so)`;
    out.push({ ...f, entry, sourceRoot: { dir, why, inferred: true } });
  }
  return out;
}

/** Every folder of the repository, repository-relative, '/'-separated, sorted. */
function allDirs(root: string): string[] {
  const out: string[] = [];
  walkDirs(root, (rel) => void (rel && out.push(rel)));
  return out.sort();
}
