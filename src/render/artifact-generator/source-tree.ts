// The source side of an ArtifactGenerator copy: an alias's directory as source-controller's artifact holds it (no
// symlinks, no VCS files), listed, looked up and globbed as source-watcher's Go code does. Mirrors
// fluxcd/source-watcher at 825fa15 (v2.2.1) internal/builder/builder.go, and Go's io/fs.Glob.
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { BadPattern, goMatch } from './go-match.js';
import { goJoin, hasFsMeta, isValidFsPath } from './paths.js';

// sourceignore.ExcludeVCS: source-controller never archives these, so they are not in any source artifact.
export const VCS_FILES = ['.gitignore', '.gitmodules', '.gitattributes'];

export type Kind = 'file' | 'dir';
/** Go's string order: by bytes. */
export const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

export class SourceTree {
  constructor(private readonly root: string) {}

  abs(rel: string): string {
    return path.join(this.root, rel);
  }

  /** Entries of a directory in Go's ReadDir order; symlinks and other specials are absent (source-controller drops them). */
  list(rel: string): { name: string; kind: Kind }[] {
    let entries;
    try {
      entries = readdirSync(this.abs(rel), { withFileTypes: true });
    } catch {
      return [];
    }
    const out: { name: string; kind: Kind }[] = [];
    for (const e of entries) {
      const kind: Kind | null = e.isDirectory() ? 'dir' : e.isFile() ? 'file' : null;
      if (kind === null || VCS_FILES.includes(e.name) || (kind === 'dir' && e.name === '.git')) continue;
      out.push({ name: e.name, kind });
    }
    return out.sort((a, b) => byteOrder(a.name, b.name));
  }

  /** What a clean relative path is, resolving every component with lstat (never through a symlink). */
  stat(rel: string): Kind | 'missing' | 'notdir' {
    if (rel === '.') return 'dir';
    let cur = '';
    const parts = rel.split('/');
    for (const [i, part] of parts.entries()) {
      cur = cur === '' ? part : `${cur}/${part}`;
      let st;
      try {
        st = lstatSync(this.abs(cur));
      } catch (e) {
        return (e as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'notdir' : 'missing';
      }
      const kind: Kind | null = st.isDirectory() ? 'dir' : st.isFile() ? 'file' : null;
      if (kind === null || VCS_FILES.includes(part) || (kind === 'dir' && part === '.git')) return 'missing';
      if (i === parts.length - 1) return kind;
      if (kind === 'file') return 'notdir';
    }
    return 'missing';
  }

  /** io/fs.Glob (globWithLimit) over the artifact, including its quirks: `./a*` is cleaned to `.`, `a/./b*` matches nothing. */
  glob(pattern: string): string[] {
    goMatch(pattern, ''); // fs.Glob validates the whole pattern first
    if (!hasFsMeta(pattern)) {
      const k = isValidFsPath(pattern) ? this.stat(pattern) : 'missing';
      return k === 'file' || k === 'dir' ? [pattern] : [];
    }
    const cut = pattern.lastIndexOf('/') + 1;
    const file = pattern.slice(cut);
    const dir = cut === 0 ? '.' : pattern.slice(0, cut - 1); // cleanGlobPath
    if (!hasFsMeta(dir)) return this.globIn(dir, file);
    if (dir === pattern) throw new BadPattern();
    return this.glob(dir).flatMap((d) => this.globIn(d, file));
  }

  private globIn(dir: string, file: string): string[] {
    if (!isValidFsPath(dir) || this.stat(dir) !== 'dir') return [];
    return this.list(dir).filter((e) => goMatch(file, e.name)).map((e) => goJoin(dir, e.name));
  }
}
