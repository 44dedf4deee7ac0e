// What Flux's generated kustomization lists for a directory that has no kustomization file of its own (FLUX.md §5).
import path from 'node:path';
import { lstatSafe, sortedNames } from './fs-stat.js';
import { hasKustomizationFile } from './kustomization-file.js';

/** A file source-controller leaves out of the artifact (render/sourceignore.ts), by absolute path. */
export type Ignored = (abs: string) => boolean;

/**
 * Flux's generator: walk `dir` recursively (lexical order, dotfiles included); a subdirectory with a kustomization
 * file is one resource and is not descended; every *.yaml / *.yml file is a resource; other files and symlinks are
 * ignored, and so is a file the source artifact does not hold (`ignored`).
 */
export function generatedResources(dir: string, ignored: Ignored = () => false): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of sortedNames(d)) {
      const p = path.join(d, n);
      // lstat: source-controller drops symlinks from the artifact, so Flux never sees them.
      const st = lstatSafe(p);
      if (!st) continue;
      if (st.isDirectory()) {
        if (hasKustomizationFile(p)) out.push(p);
        else walk(p);
      } else if (st.isFile() && (n.endsWith('.yaml') || n.endsWith('.yml')) && !ignored(p)) {
        out.push(p);
      }
    }
  };
  walk(dir);
  return out;
}
