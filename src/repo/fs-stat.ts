// File-system questions asked thousands of times per load, where a missing path is the common case and not an error.
import { lstatSync, readdirSync, statSync, type Dirent, type Stats } from 'node:fs';

/** The path's stats (links followed), or null when it does not exist or cannot be read. */
export function statSafe(p: string): Stats | null {
  try {
    return statSync(p, { throwIfNoEntry: false }) ?? null; // no exception for a missing path: it costs more than the stat
  } catch {
    return null;
  }
}

/** The path's own stats (a symbolic link is not followed), or null. */
export function lstatSafe(p: string): Stats | null {
  try {
    return lstatSync(p, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/** The names in a directory in lexical order (as Flux and kustomize walk it); none when it cannot be read. */
export function sortedNames(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

export const isDir = (p: string): boolean => statSafe(p)?.isDirectory() ?? false;

export const isFile = (p: string): boolean => statSafe(p)?.isFile() ?? false;

/**
 * Walks the folders below `root` (`.git` and `node_modules` aside), calling `visit` with each folder's path relative
 * to `root` ('/'-separated, '' for root) and its entries; `visit` returning true stops the walk.
 */
export function walkDirs(root: string, visit: (rel: string, entries: Dirent[]) => boolean | void): void {
  const stack: [string, string][] = [[root, '']];
  while (stack.length > 0) {
    const [abs, rel] = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      continue;
    }
    if (visit(rel, entries)) return;
    for (const e of entries) {
      if (e.isDirectory() && e.name !== '.git' && e.name !== 'node_modules') stack.push([`${abs}/${e.name}`, rel ? `${rel}/${e.name}` : e.name]);
    }
  }
}
