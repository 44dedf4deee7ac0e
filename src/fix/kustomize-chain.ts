// Which kustomization files list a file, and what the chain of them from the file up to its tier's folder does to
// the resources in it. A moved file leaves that chain: a namespace it set is carried over to the new folder; any
// other transformation (patches, labels, a name prefix, components, generators whose names it rewrites) is a hand
// edit, since the new folder would apply the resources without it.
import path from 'node:path/posix';
import { isMap, parseDocument } from 'yaml';
import type { RepoFiles } from './files.js';
import { UnsafeEdit } from './yaml-splice.js';

/** Keys of a kustomization that do nothing to the resources it lists, besides `namespace` (carried over). */
const INERT = new Set(['apiVersion', 'kind', 'metadata', 'resources', 'namespace', 'sortOptions', 'buildMetadata']);

const same = (a: string, b: string) => path.normalize(a).replace(/\/+$/, '') === path.normalize(b).replace(/\/+$/, '');

function parsed(files: RepoFiles, k: string): Record<string, unknown> | null {
  const text = files.text(k);
  if (text === null) return null;
  const doc = parseDocument(text, { uniqueKeys: false });
  return doc.errors.length > 0 || !isMap(doc.contents) ? null : (doc.toJS() as Record<string, unknown>);
}

/** The kustomization files whose `resources` list `file` (or the folder `file`), and the entry as written. */
export function referencesTo(files: RepoFiles, kustomizationFiles: readonly string[], file: string): { file: string; entry: string }[] {
  const out: { file: string; entry: string }[] = [];
  for (const k of kustomizationFiles) {
    const resources = parsed(files, k)?.resources;
    if (!Array.isArray(resources)) continue;
    for (const e of resources) {
      if (typeof e === 'string' && same(path.join(path.dirname(k), e), file)) out.push({ file: k, entry: e });
    }
  }
  return out;
}

/**
 * The namespace the kustomizations from `file` up to `tierDir` give its resources (the outermost one wins, as in
 * kustomize), or null; UnsafeEdit when one of them transforms the resources in another way.
 */
export function carriedOver(files: RepoFiles, kustomizationFiles: readonly string[], file: string, tierDir: string): string | null {
  let namespace: string | null = null;
  let target = file;
  for (let depth = 0; depth < 32; depth++) {
    const refs = referencesTo(files, kustomizationFiles, target);
    if (refs.length !== 1) break;
    const k = refs[0]!.file;
    const value = parsed(files, k) ?? {};
    const other = Object.keys(value).filter((key) => !INERT.has(key));
    if (other.length > 0) {
      throw new UnsafeEdit(`${k} sets ${other.join(', ')} for the resources it lists, so ${file} moved out of it would be applied without that: move it by hand where the same applies`);
    }
    if (typeof value.namespace === 'string') namespace = value.namespace;
    const dir = path.dirname(k);
    if (same(dir, tierDir) || !dir.startsWith(`${tierDir.replace(/\/+$/, '')}/`)) break;
    target = dir;
  }
  return namespace;
}
