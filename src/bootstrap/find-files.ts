// A bounded walk of the repository for the files a bootstrap reader looks at, in a stable order.
import { readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';

export interface FindFiles {
  /** How many folders deep the walk goes below the root. */
  maxDepth: number;
  /** A folder (by name) the walk does not enter. */
  skipDir: (name: string) => boolean;
  /** A file (absolute path) to keep. */
  keep: (abs: string) => boolean;
}

export function findFiles(root: string, o: FindFiles): string[] {
  const out: string[] = [];
  const go = (dir: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (depth < o.maxDepth && !o.skipDir(e.name)) go(p, depth + 1);
      } else if (e.isFile() && o.keep(p)) out.push(p);
    }
  };
  go(root, 0);
  return out;
}
