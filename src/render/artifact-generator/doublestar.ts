// doublestar v4.10.0 match.go / validate.go, used for `exclude` (validated with Match(p, "."), matched unvalidated),
// and the exclude helpers of fluxcd/source-watcher at 825fa15 (v2.2.1) internal/builder/builder.go: shouldExcludePath,
// shouldExclude.
import path from 'node:path';
import { BadPattern, codePointWidth } from './go-match.js';
import { goClean } from './paths.js';

function validateDoublestar(s: string): boolean {
  let altDepth = 0;
  outer: for (let i = 0; i < s.length; i++) {
    switch (s[i]) {
      case '\\':
        if (++i >= s.length) return false;
        continue;
      case '[':
        if (++i >= s.length) return false;
        if (s[i] === '^' || s[i] === '!') i++;
        if (i >= s.length || s[i] === ']') return false;
        for (; i < s.length; i++) {
          if (s[i] === '\\') i++;
          else if (s[i] === ']') continue outer;
        }
        return false;
      case '{':
        altDepth++;
        continue;
      case '}':
        if (altDepth === 0) return false;
        altDepth--;
        continue;
    }
  }
  return altDepth === 0;
}

function indexUnescaped(s: string, c: string): number {
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === c) return i;
  }
  return -1;
}

function indexAlt(s: string, stopAtComma: boolean): number {
  let alts = 1;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '{') alts++;
    else if (s[i] === '}') {
      if (--alts === 0 && !stopAtComma) return i;
    } else if (stopAtComma && s[i] === ',' && alts === 1) return i;
  }
  return -1;
}
const indexMatchedClosingAlt = (s: string): number => indexAlt(s, false);
const indexNextAlt = (s: string): number => indexAlt(s, true);

const runeAt = (s: string, i: number): [number, number] => (i < s.length ? [s.codePointAt(i) ?? 0, codePointWidth(s.slice(i))] : [0xfffd, 0]);
const SEP = 0x2f; // '/'

function isZeroLengthPattern(p: string, validate: boolean): boolean {
  if (p === '' || p === '*' || p === '**' || p === '/**' || p === '**/' || p === '/**/') return true;
  if (p[0] === '{') {
    const closing = indexMatchedClosingAlt(p.slice(1));
    if (closing === -1) throw new BadPattern();
    const closingIdx = closing + 1;
    let patIdx = 1;
    for (;;) {
      const comma = indexNextAlt(p.slice(patIdx, closingIdx));
      if (comma === -1) break;
      if (isZeroLengthPattern(p.slice(patIdx, patIdx + comma) + p.slice(closingIdx + 1), validate)) return true;
      patIdx += comma + 1;
    }
    return isZeroLengthPattern(p.slice(patIdx, closingIdx) + p.slice(closingIdx + 1), validate);
  }
  if (validate && !validateDoublestar(p)) throw new BadPattern();
  return false;
}

function doublestarMatch(
  pattern: string, name: string, validate: boolean,
  dsPatBt = -1, dsNameBt = -1, starPatBt = -1, starNameBt = -1, patIdx = 0, nameIdx = 0,
): boolean {
  const patLen = pattern.length;
  const nameLen = name.length;
  let startOfSegment = true;
  MATCH: while (nameIdx < nameLen) {
    if (patIdx < patLen) {
      switch (pattern[patIdx]) {
        case '*': {
          if (++patIdx < patLen && pattern[patIdx] === '*') {
            patIdx++;
            if (startOfSegment) {
              if (patIdx >= patLen) return true;
              const [r, w] = runeAt(pattern, patIdx);
              if (r === SEP) {
                patIdx += w;
                dsPatBt = patIdx;
                dsNameBt = nameIdx;
                starPatBt = -1;
                starNameBt = -1;
                continue MATCH;
              }
            }
          }
          startOfSegment = false;
          starPatBt = patIdx;
          starNameBt = nameIdx;
          continue MATCH;
        }
        case '?': {
          startOfSegment = false;
          const [r, w] = runeAt(name, nameIdx);
          if (r === SEP) break;
          patIdx++;
          nameIdx += w;
          continue MATCH;
        }
        case '[': {
          startOfSegment = false;
          if (++patIdx >= patLen) throw new BadPattern();
          const [nameRune, nameW] = runeAt(name, nameIdx);
          let matched = false;
          const negate = pattern[patIdx] === '!' || pattern[patIdx] === '^';
          if (negate) patIdx++;
          if (patIdx >= patLen || pattern[patIdx] === ']') throw new BadPattern();
          let last = 0x10ffff;
          while (patIdx < patLen && pattern[patIdx] !== ']') {
            let [r, w] = runeAt(pattern, patIdx);
            patIdx += w;
            if (last < 0x10ffff && r === 0x2d && patIdx < patLen && pattern[patIdx] !== ']') {
              if (pattern[patIdx] === '\\') patIdx++;
              [r, w] = runeAt(pattern, patIdx);
              patIdx += w;
              if (last <= nameRune && nameRune <= r) {
                matched = true;
                break;
              }
              last = 0x10ffff;
              continue;
            }
            if (r === 0x5c) {
              [r, w] = runeAt(pattern, patIdx);
              patIdx += w;
            }
            if (r === nameRune) {
              matched = true;
              break;
            }
            last = r;
          }
          if (matched === negate) {
            if (patIdx >= patLen) throw new BadPattern();
            break;
          }
          const closing = indexUnescaped(pattern.slice(patIdx), ']');
          if (closing === -1) throw new BadPattern();
          patIdx += closing + 1;
          nameIdx += nameW;
          continue MATCH;
        }
        case '{': {
          startOfSegment = false;
          const beforeIdx = patIdx;
          patIdx++;
          const closing = indexMatchedClosingAlt(pattern.slice(patIdx));
          if (closing === -1) throw new BadPattern();
          const closingIdx = closing + patIdx;
          const tail = pattern.slice(closingIdx + 1);
          for (;;) {
            const comma = indexNextAlt(pattern.slice(patIdx, closingIdx));
            if (comma === -1) break;
            const commaIdx = comma + patIdx;
            const alt = pattern.slice(0, beforeIdx) + pattern.slice(patIdx, commaIdx) + tail;
            if (doublestarMatch(alt, name, validate, dsPatBt, dsNameBt, starPatBt, starNameBt, beforeIdx, nameIdx)) return true;
            patIdx = commaIdx + 1;
          }
          const alt = pattern.slice(0, beforeIdx) + pattern.slice(patIdx, closingIdx) + tail;
          return doublestarMatch(alt, name, validate, dsPatBt, dsNameBt, starPatBt, starNameBt, beforeIdx, nameIdx);
        }
        case '\\':
          if (++patIdx >= patLen) throw new BadPattern();
        // falls through
        default: {
          const [pr, pw] = runeAt(pattern, patIdx);
          const [nr, nw] = runeAt(name, nameIdx);
          if (pr !== nr) {
            if (patIdx > 0 && pattern[patIdx - 1] === '\\') patIdx--;
            break;
          }
          patIdx += pw;
          nameIdx += nw;
          startOfSegment = pr === SEP;
          continue MATCH;
        }
      }
    }
    if (starPatBt >= 0) {
      const [r, w] = runeAt(name, starNameBt);
      if (r !== SEP) {
        starNameBt += w;
        patIdx = starPatBt;
        nameIdx = starNameBt;
        startOfSegment = false;
        continue;
      }
    }
    if (dsPatBt >= 0) {
      nameIdx = dsNameBt;
      while (nameIdx < nameLen) {
        const [r, w] = runeAt(name, nameIdx);
        nameIdx += w;
        if (r === SEP) {
          dsNameBt = nameIdx;
          patIdx = dsPatBt;
          startOfSegment = true;
          continue MATCH;
        }
      }
    }
    if (validate && patIdx < patLen && !validateDoublestar(pattern.slice(patIdx))) throw new BadPattern();
    return false;
  }
  return isZeroLengthPattern(pattern.slice(patIdx), validate);
}

export function excludePatternIsValid(p: string): boolean {
  try {
    doublestarMatch(p, '.', true);
    return true;
  } catch (e) {
    if (e instanceof BadPattern) return false;
    throw e;
  }
}

/** doublestar.MatchUnvalidated: an error (a pattern such as `{.,[}` gets past validation) is no match. */
function matchUnvalidated(pattern: string, name: string): boolean {
  try {
    return doublestarMatch(pattern, name, false);
  } catch (e) {
    if (e instanceof BadPattern) return false;
    throw e;
  }
}

function shouldExclude(filePath: string, patterns: readonly string[]): boolean {
  const base = path.posix.basename(filePath);
  return patterns.some((p) => matchUnvalidated(p, filePath) || (!p.includes('/') && matchUnvalidated(p, base)));
}

/** shouldExcludePath: the pattern may be anchored at the alias root or at the non-glob prefix of `from`. */
export function shouldExcludePath(filePath: string, basePath: string, patterns: readonly string[]): boolean {
  if (patterns.length === 0) return false;
  if (shouldExclude(filePath, patterns)) return true;
  const base = goClean(basePath);
  if (base === '.') return false; // relPath would equal filePath
  if (!filePath.startsWith(`${base}/`)) return false;
  return shouldExclude(filePath.slice(base.length + 1), patterns);
}
