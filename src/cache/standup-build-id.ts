// What standup's own code is, for the render cache and the parse memo: what they store was computed by this code
// (kustomize's output read into objects, YAML parsed by this yaml library, tiers.yaml validated by this schema), so
// a different standup must not trust it. Run from src/ or the compiled dist/: the size and mtime of every module of
// the folders that read a repository and of src/model, and the yaml library's version, so a rebuild, an upgrade or an
// edit is a new id; run from the bundle the package ships: the id scripts/bundle.mjs computed from its content.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folders of src/ (or dist/) whose code decides what the cache and the memo hold. */
const FOLDERS = ['model', 'repo', 'cache', 'discover', 'render', 'render/artifact-generator', 'bootstrap', 'load'];

/** Set by scripts/bundle.mjs in the bundle the package ships, from the content of the code it holds. */
declare const __STANDUP_BUILD_ID__: string | undefined;

let id: string | undefined;

export function standupBuildId(): string {
  if (id !== undefined) return id;
  // In the bundle, the folders below are not beside this module: the id fixed at build time stands for them.
  if (typeof __STANDUP_BUILD_ID__ === 'string') return (id = __STANDUP_BUILD_ID__);
  const top = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
  const h = createHash('sha256');
  for (const dir of FOLDERS.map((f) => path.join(top, f))) {
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => /\.(js|ts)$/.test(n)).sort();
    } catch {
      names = [];
    }
    for (const n of names) {
      try {
        const st = statSync(path.join(dir, n));
        h.update(`${dir}/${n}\u0000${st.size}\u0000${st.mtimeMs}\n`);
      } catch {
        h.update(`${dir}/${n}\u0000?\n`);
      }
    }
  }
  try {
    h.update(`yaml ${(createRequire(import.meta.url)('yaml/package.json') as { version: string }).version}\n`);
  } catch {
    h.update('yaml ?\n');
  }
  id = h.digest('hex').slice(0, 32);
  return id;
}
