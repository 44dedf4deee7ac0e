// Paths as Flux and the models name them: relative to the repository (or source) root, '/'-separated, '' for the root.
import path from 'node:path';

/** Normalises a Flux spec.path (`./a/b/`, `a//b`) to a root-relative posix path; '' is the root. */
export function normalizeRepoPath(p: string): string {
  const n = path.posix.normalize(`/${p.replace(/\\/g, '/')}`).replace(/^\/+/, '').replace(/\/+$/, '');
  return n === '.' ? '' : n;
}

/** `abs` relative to `root`, '/'-separated (a path outside `root` starts with `..`). */
export const repoRelative = (root: string, abs: string): string => path.relative(root, abs).split(path.sep).join('/');
