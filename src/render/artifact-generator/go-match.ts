// Go's path.Match (Go 1.26 src/path/match.go), used by io/fs.Glob for `from` and by sourceignore for the archive.
// fluxcd/source-watcher (825fa15, v2.2.1) internal/builder/builder.go globs `from` with Go's io/fs.Glob + path.Match,
// so `**` is a plain `*` (one path segment) and `*` matches dotfiles.

export class BadPattern extends Error {}

export const codePointWidth = (s: string): number => ((s.codePointAt(0) ?? 0) > 0xffff ? 2 : 1);

function scanChunk(pattern: string): [boolean, string, string] {
  let star = false;
  while (pattern.startsWith('*')) {
    pattern = pattern.slice(1);
    star = true;
  }
  let inrange = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      if (i + 1 < pattern.length) i++;
    } else if (c === '[') inrange = true;
    else if (c === ']') inrange = false;
    else if (c === '*' && !inrange) return [star, pattern.slice(0, i), pattern.slice(i)];
  }
  return [star, pattern, ''];
}

function getEsc(chunk: string): [number, string] {
  if (chunk === '' || chunk[0] === '-' || chunk[0] === ']') throw new BadPattern();
  if (chunk[0] === '\\') {
    chunk = chunk.slice(1);
    if (chunk === '') throw new BadPattern();
  }
  const r = chunk.codePointAt(0) ?? 0;
  const rest = chunk.slice(codePointWidth(chunk));
  if (rest === '') throw new BadPattern();
  return [r, rest];
}

/** The rest of s after chunk matched its beginning, or null. */
function matchChunk(chunk: string, s: string): string | null {
  let failed = false;
  while (chunk.length > 0) {
    failed ||= s.length === 0;
    switch (chunk[0]) {
      case '[': {
        let r = 0;
        if (!failed) {
          r = s.codePointAt(0) ?? 0;
          s = s.slice(codePointWidth(s));
        }
        chunk = chunk.slice(1);
        let negated = false;
        if (chunk.startsWith('^')) {
          negated = true;
          chunk = chunk.slice(1);
        }
        let match = false;
        for (let nrange = 0; ; nrange++) {
          if (chunk.startsWith(']') && nrange > 0) {
            chunk = chunk.slice(1);
            break;
          }
          let lo: number;
          [lo, chunk] = getEsc(chunk);
          let hi = lo;
          if (chunk[0] === '-') [hi, chunk] = getEsc(chunk.slice(1));
          match ||= lo <= r && r <= hi;
        }
        failed ||= match === negated;
        break;
      }
      case '?':
        if (!failed) {
          failed = s[0] === '/';
          s = s.slice(codePointWidth(s));
        }
        chunk = chunk.slice(1);
        break;
      case '\\':
        chunk = chunk.slice(1);
        if (chunk === '') throw new BadPattern();
      // falls through
      default:
        if (!failed) {
          failed = chunk[0] !== s[0];
          s = s.slice(1);
        }
        chunk = chunk.slice(1);
    }
  }
  return failed ? null : s;
}

/** Go path.Match; throws BadPattern for a malformed pattern. */
export function goMatch(pattern: string, name: string): boolean {
  Pattern: while (pattern.length > 0) {
    const [star, chunk, rest] = scanChunk(pattern);
    pattern = rest;
    if (star && chunk === '') return !name.includes('/');
    const t = matchChunk(chunk, name);
    if (t !== null && (t.length === 0 || pattern.length > 0)) {
      name = t;
      continue;
    }
    if (star) {
      for (let i = 0; i < name.length && name[i] !== '/'; i++) {
        const t2 = matchChunk(chunk, name.slice(i + 1));
        if (t2 === null || (pattern.length === 0 && t2.length > 0)) continue;
        name = t2;
        continue Pattern;
      }
    }
    while (pattern.length > 0) {
      const [, c, r] = scanChunk(pattern);
      pattern = r;
      matchChunk(c, '');
    }
    return false;
  }
  return name.length === 0;
}
