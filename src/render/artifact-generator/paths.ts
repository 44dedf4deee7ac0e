// Go path helpers (filepath.Clean / Join / Dir on a POSIX system), and the path arithmetic of fluxcd/source-watcher
// at 825fa15 (v2.2.1) internal/builder/builder.go: calculateGlobDestination, sourceSelectionRoot.
import path from 'node:path';

export function goClean(p: string): string {
  const n = path.posix.normalize(p === '' ? '.' : p);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
}
export function goJoin(...parts: string[]): string {
  const kept = parts.filter((p) => p !== '');
  return kept.length === 0 ? '' : goClean(kept.join('/'));
}
export const goDir = (p: string): string => goClean(p.slice(0, p.lastIndexOf('/') + 1));
export const escapesRoot = (p: string): boolean => p === '..' || p.startsWith('../') || p.startsWith('/');
export const hasFsMeta = (p: string): boolean => /[*?[\\]/.test(p);
/** io/fs.ValidPath, which os.Root's FS() requires of every name. */
export const isValidFsPath = (p: string): boolean => p === '.' || p.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
export const containsGlobChars = (p: string): boolean => /[*?[\]]/.test(p);

export function sourceSelectionRoot(pattern: string): string {
  const parts: string[] = [];
  for (const part of goClean(pattern).split('/')) {
    if (containsGlobChars(part)) break;
    parts.push(part);
  }
  return parts.length === 0 ? '.' : goJoin(...parts);
}

export function calculateGlobDestination(pattern: string, match: string, destPath: string): string {
  if (pattern.endsWith('/**')) {
    const dirPrefix = pattern.slice(0, -3);
    if (match.startsWith(`${dirPrefix}/`)) return goJoin(destPath, match.slice(dirPrefix.length + 1));
  }
  return goJoin(destPath, match);
}
