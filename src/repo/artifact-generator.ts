// ArtifactGenerator (source.extensions.fluxcd.io/v1beta1): which files each generated ExternalArtifact holds.
// Mirrors fluxcd/source-watcher at 825fa15 (v2.2.1):
//   api/v1beta1/artifactgenerator_types.go            CRD schema (patterns, enums, required fields)
//   internal/controller/artifactgenerator_validation.go validateSpec (duplicate aliases/names, revision alias)
//   internal/builder/builder.go                        applyCopyOperations, applyCopyOperation, applySingleSourceCopy,
//     applySingleFileCopy, applySingleDirectoryCopy, calculateGlobDestination, sourceSelectionRoot, copyFileWithRoots,
//     copyDirWithRoots, createDirRecursive, shouldExcludePath, shouldExclude
//   internal/builder/merge.go, extract.go              Merge / Extract strategies: reported, not mirrored
// A glob `from` goes through Go's io/fs.Glob + path.Match, so `**` is a plain `*` (one path segment) and `*` matches
// dotfiles; excludes go through doublestar v4.10.0 Match. Both matchers are ported below. The staged directory is
// archived with fluxcd/pkg artifact/storage SourceIgnoreFilter(nil, nil), which drops sourceignore's default patterns.
import { copyFileSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';

export interface ArtifactCopy { from: string; to: string; exclude?: string[]; strategy?: string }
export interface GeneratedArtifact { name: string; copy: ArtifactCopy[] }
export interface GeneratorSpec {
  sources: { alias: string; kind: string; name: string; namespace?: string }[];
  artifacts: GeneratedArtifact[];
}

// ---------------------------------------------------------------------------------------------------------------
// Spec parsing: the CRD's OpenAPI schema (enforced by the API server) plus the controller's validateSpec.

const API_VERSION = 'source.extensions.fluxcd.io/v1beta1';
const ALIAS_RE = /^[a-z0-9]([a-z0-9_-]*[a-z0-9])?$/;
const SOURCE_NAME_RE = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const NAMESPACE_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const REVISION_RE = /^@([a-z0-9]([a-z0-9_-]*[a-z0-9])?)$/;
const FROM_RE = /^@([a-z0-9]([a-z0-9_-]*[a-z0-9])?)\/(.*)$/;
const TO_RE = /^@(artifact)\/(.*)$/;
const KINDS = ['Bucket', 'GitRepository', 'OCIRepository', 'HelmChart', 'ExternalArtifact'];
const STRATEGIES = ['Overwrite', 'Merge', 'Extract'];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const runeLength = (s: string): number => [...s].length;

/** Parses spec from a raw ArtifactGenerator object; returns problems (strings) for what source-watcher would reject. */
export function parseGenerator(raw: unknown): { spec: GeneratorSpec | null; problems: string[] } {
  const problems: string[] = [];
  if (!isRecord(raw)) return { spec: null, problems: ['ArtifactGenerator: not an object'] };
  if (raw.kind !== 'ArtifactGenerator' || raw.apiVersion !== API_VERSION) {
    problems.push(`${String(raw.apiVersion)}/${String(raw.kind)}: expected ${API_VERSION} ArtifactGenerator`);
  }
  const spec = raw.spec;
  if (!isRecord(spec)) return { spec: null, problems: [...problems, 'spec: required object is missing'] };
  if (typeof spec.pathPattern === 'string' && spec.pathPattern !== '') {
    // Artifacts are then expanded per matching directory with {capture} placeholders (source-watcher 2.2).
    problems.push(`spec.pathPattern "${spec.pathPattern}": directory discovery is not supported by standup`);
    return { spec: null, problems };
  }
  if (!Array.isArray(spec.sources) || !Array.isArray(spec.artifacts)) {
    if (!Array.isArray(spec.sources)) problems.push('spec.sources: required list is missing');
    if (!Array.isArray(spec.artifacts)) problems.push('spec.artifacts: required list is missing');
    return { spec: null, problems };
  }

  const str = (obj: Record<string, unknown>, key: string, at: string, required: boolean): string | undefined => {
    const v = obj[key];
    if (v === undefined || v === null) {
      if (required) problems.push(`${at}.${key}: required`);
      return undefined;
    }
    if (typeof v !== 'string') {
      problems.push(`${at}.${key}: must be a string`);
      return undefined;
    }
    return v;
  };
  const check = (at: string, value: string, ok: boolean, rule: string): void => {
    if (!ok) problems.push(`${at} "${value}": ${rule}`);
  };
  const count = (at: string, n: number, min: number, max: number): void => {
    if (n < min) problems.push(`${at}: must have at least ${min} item${min === 1 ? '' : 's'}`);
    if (n > max) problems.push(`${at}: must have at most ${max} items`);
  };

  const sources: GeneratorSpec['sources'] = [];
  const aliases = new Set<string>();
  count('spec.sources', spec.sources.length, 1, 1000);
  spec.sources.forEach((s: unknown, i) => {
    const at = `spec.sources[${i}]`;
    if (!isRecord(s)) return void problems.push(`${at}: must be an object`);
    const alias = str(s, 'alias', at, true);
    const name = str(s, 'name', at, true);
    const kind = str(s, 'kind', at, true);
    const namespace = str(s, 'namespace', at, false);
    if (alias !== undefined) {
      check(`${at}.alias`, alias, ALIAS_RE.test(alias) && runeLength(alias) <= 63, `must match ${ALIAS_RE.source} (at most 63 characters)`);
      if (aliases.has(alias)) problems.push(`duplicate source alias '${alias}' found`);
      aliases.add(alias);
    }
    if (name !== undefined) check(`${at}.name`, name, SOURCE_NAME_RE.test(name) && runeLength(name) <= 253, `must match ${SOURCE_NAME_RE.source} (at most 253 characters)`);
    if (kind !== undefined) check(`${at}.kind`, kind, KINDS.includes(kind), `must be one of ${KINDS.join(', ')}`);
    if (namespace !== undefined) check(`${at}.namespace`, namespace, NAMESPACE_RE.test(namespace) && runeLength(namespace) <= 63, `must match ${NAMESPACE_RE.source} (at most 63 characters)`);
    if (alias === undefined || name === undefined || kind === undefined) return;
    sources.push(namespace === undefined ? { alias, kind, name } : { alias, kind, name, namespace });
  });

  const artifacts: GeneratedArtifact[] = [];
  const names = new Set<string>();
  count('spec.artifacts', spec.artifacts.length, 1, 1000);
  spec.artifacts.forEach((a: unknown, i) => {
    const at = `spec.artifacts[${i}]`;
    if (!isRecord(a)) return void problems.push(`${at}: must be an object`);
    const name = str(a, 'name', at, true);
    if (name !== undefined) {
      if (names.has(name)) problems.push(`duplicate artifact name '${name}' found`);
      names.add(name);
      check(`${at}.name`, name, DNS_SUBDOMAIN_RE.test(name) && name.length <= 253, 'artifact names must be valid Kubernetes object names (DNS subdomain)');
    }
    for (const key of ['revision', 'originRevision']) {
      const rev = str(a, key, at, false);
      if (rev === undefined) continue;
      check(`${at}.${key}`, rev, REVISION_RE.test(rev) && rev.length <= 64, 'must have the form @<alias>');
      // validateSpec checks only revision; an originRevision naming no source is ignored.
      if (key === 'revision' && REVISION_RE.test(rev) && !aliases.has(rev.slice(1))) {
        problems.push(`artifact ${name ?? `#${i}`} revision source alias '${rev.slice(1)}' not found`);
      }
    }
    if (!Array.isArray(a.copy)) return void problems.push(`${at}.copy: required list is missing`);
    count(`${at}.copy`, a.copy.length, 1, Infinity);
    const copy: ArtifactCopy[] = [];
    a.copy.forEach((c: unknown, j) => {
      const cat = `${at}.copy[${j}]`;
      if (!isRecord(c)) return void problems.push(`${cat}: must be an object`);
      const from = str(c, 'from', cat, true);
      const to = str(c, 'to', cat, true);
      const strategy = str(c, 'strategy', cat, false);
      if (from !== undefined) check(`${cat}.from`, from, FROM_RE.test(from) && runeLength(from) <= 1024, 'must have the form @<alias>/<glob> (at most 1024 characters)');
      if (to !== undefined) check(`${cat}.to`, to, TO_RE.test(to) && runeLength(to) <= 1024, 'must have the form @artifact/<path> (at most 1024 characters)');
      if (strategy !== undefined) check(`${cat}.strategy`, strategy, STRATEGIES.includes(strategy), `must be one of ${STRATEGIES.join(', ')}`);
      let exclude: string[] | undefined;
      if (c.exclude !== undefined && c.exclude !== null) {
        if (!Array.isArray(c.exclude) || !c.exclude.every((e) => typeof e === 'string')) {
          problems.push(`${cat}.exclude: must be a list of strings`);
        } else {
          count(`${cat}.exclude`, c.exclude.length, 0, 100);
          exclude = c.exclude as string[];
        }
      }
      if (from === undefined || to === undefined) return;
      copy.push({ from, to, ...(exclude ? { exclude } : {}), ...(strategy !== undefined ? { strategy } : {}) });
    });
    if (name !== undefined) artifacts.push({ name, copy });
  });

  return { spec: { sources, artifacts }, problems };
}

// ---------------------------------------------------------------------------------------------------------------
// Go's path.Match (Go 1.26 src/path/match.go), used by io/fs.Glob for `from` and by sourceignore for the archive.

class BadPattern extends Error {}

const codePointWidth = (s: string): number => ((s.codePointAt(0) ?? 0) > 0xffff ? 2 : 1);

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
function goMatch(pattern: string, name: string): boolean {
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

// ---------------------------------------------------------------------------------------------------------------
// doublestar v4.10.0 match.go / validate.go, used for `exclude` (validated with Match(p, "."), matched unvalidated).

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

function excludePatternIsValid(p: string): boolean {
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
function shouldExcludePath(filePath: string, basePath: string, patterns: readonly string[]): boolean {
  if (patterns.length === 0) return false;
  if (shouldExclude(filePath, patterns)) return true;
  const base = goClean(basePath);
  if (base === '.') return false; // relPath would equal filePath
  if (!filePath.startsWith(`${base}/`)) return false;
  return shouldExclude(filePath.slice(base.length + 1), patterns);
}

// ---------------------------------------------------------------------------------------------------------------
// Go path helpers (filepath.Clean / Join / Dir on a POSIX system).

function goClean(p: string): string {
  const n = path.posix.normalize(p === '' ? '.' : p);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
}
function goJoin(...parts: string[]): string {
  const kept = parts.filter((p) => p !== '');
  return kept.length === 0 ? '' : goClean(kept.join('/'));
}
const goDir = (p: string): string => goClean(p.slice(0, p.lastIndexOf('/') + 1));
const escapesRoot = (p: string): boolean => p === '..' || p.startsWith('../') || p.startsWith('/');
const hasFsMeta = (p: string): boolean => /[*?[\\]/.test(p);
/** io/fs.ValidPath, which os.Root's FS() requires of every name. */
const isValidFsPath = (p: string): boolean => p === '.' || p.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
const containsGlobChars = (p: string): boolean => /[*?[\]]/.test(p);

function sourceSelectionRoot(pattern: string): string {
  const parts: string[] = [];
  for (const part of goClean(pattern).split('/')) {
    if (containsGlobChars(part)) break;
    parts.push(part);
  }
  return parts.length === 0 ? '.' : goJoin(...parts);
}

function calculateGlobDestination(pattern: string, match: string, destPath: string): string {
  if (pattern.endsWith('/**')) {
    const dirPrefix = pattern.slice(0, -3);
    if (match.startsWith(`${dirPrefix}/`)) return goJoin(destPath, match.slice(dirPrefix.length + 1));
  }
  return goJoin(destPath, match);
}

// ---------------------------------------------------------------------------------------------------------------
// The source side: an alias's directory as source-controller's artifact holds it.

// sourceignore.ExcludeVCS: source-controller never archives these, so they are not in any source artifact.
const VCS_FILES = ['.gitignore', '.gitmodules', '.gitattributes'];
// sourceignore's default patterns, which SourceIgnoreFilter(nil, nil) drops from the generated artifact at any depth
// (ExcludeVCS, ExcludeExt, ExcludeCI, ExcludeExtra). The trailing-slash ones match directories only.
const ARCHIVE_DROPPED_NAMES = [
  ...VCS_FILES, '*.jpg', '*.jpeg', '*.gif', '*.png', '*.wmv', '*.flv', '*.tar.gz', '*.zip',
  '.travis.yml', '.gitlab-ci.yml', 'appveyor.yml', '.drone.yml', 'cloudbuild.yaml', 'codeship-services.yml',
  'codeship-steps.yml', '.goreleaser.yml', '.sops.yaml', '.flux.yaml',
];
const ARCHIVE_DROPPED_DIRS = ['.git', '.github', '.circleci'];

type Kind = 'file' | 'dir';
const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

class SourceTree {
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

// ---------------------------------------------------------------------------------------------------------------
// The staging side: the artifact directory source-watcher writes, as files (with their source) and directories.

class CopyError extends Error {}

class Staging {
  readonly files = new Map<string, string>();
  readonly dirs = new Set<string>(['.']);

  /** createDirRecursive: an existing file at p itself counts as "exists"; a file above it fails. */
  mkdirAll(p: string): void {
    if (p === '.' || p === '') return;
    if (escapesRoot(p)) throw new CopyError(`mkdir ${p}: path escapes from parent`);
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) {
      const ancestor = parts.slice(0, i).join('/');
      if (this.files.has(ancestor)) throw new CopyError(`mkdir ${p}: not a directory`);
      this.dirs.add(ancestor);
    }
    if (!this.files.has(p)) this.dirs.add(p);
  }

  /** Resolves a raw path as os.Root does: every component before the last must be an existing directory. */
  resolve(raw: string): string {
    if (raw.startsWith('/')) throw new CopyError(`${raw}: path escapes from parent`);
    const comps = raw.split('/').filter((c) => c !== '' && c !== '.');
    const stack: string[] = [];
    comps.forEach((c, i) => {
      if (c === '..') {
        if (stack.length === 0) throw new CopyError(`${raw}: path escapes from parent`);
        stack.pop();
        return;
      }
      if (i < comps.length - 1) {
        const p = [...stack, c].join('/');
        if (this.files.has(p)) throw new CopyError(`${raw}: not a directory`);
        if (!this.dirs.has(p)) throw new CopyError(`${raw}: no such file or directory`);
      }
      stack.push(c);
    });
    return stack.length === 0 ? '.' : stack.join('/');
  }

  kindOf(raw: string): Kind | null {
    try {
      const p = this.resolve(raw);
      return this.files.has(p) ? 'file' : this.dirs.has(p) ? 'dir' : null;
    } catch (e) {
      if (e instanceof CopyError) return null;
      throw e;
    }
  }

  /** copyRegularFileWithRoots: create the parent directories, then create (truncate) the file. */
  writeFile(raw: string, src: string): void {
    const dir = goDir(raw);
    try {
      this.mkdirAll(dir);
    } catch (e) {
      if (e instanceof CopyError) throw new CopyError(`failed to create destination directory: ${e.message}`);
      throw e;
    }
    const p = this.resolve(raw);
    if (this.dirs.has(p)) throw new CopyError(`open ${raw}: is a directory`);
    this.files.set(p, src);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// applyCopyOperation and its helpers.

const isTarball = (p: string): boolean => /\.(tar\.gz|tgz)$/i.test(p);

interface OpContext {
  op: ArtifactCopy;
  tree: SourceTree;
  staging: Staging;
  excludes: readonly string[];
  /** Things source-watcher does that standup does not reproduce. */
  unmirrored: (what: string) => void;
}

/** copyFileWithRoots: a directory is copied recursively (never merged); a file may be merged. */
function copyEntry(ctx: OpContext, srcPath: string, destPath: string, excludeBase: string): void {
  if (ctx.tree.stat(srcPath) === 'dir') return copyDir(ctx, srcPath, destPath, excludeBase);
  if (ctx.op.strategy === 'Merge') {
    const existing = ctx.staging.kindOf(destPath);
    if (existing === 'dir') throw new CopyError(`error reading YAML document: read ${destPath}: is a directory`);
    if (existing === 'file') {
      ctx.unmirrored(`Merge strategy: '${ctx.staging.resolve(destPath)}' is the YAML merge (Helm values rules) of its earlier content and '${srcPath}'; standup keeps '${srcPath}' unmerged`);
    }
  }
  ctx.staging.writeFile(destPath, ctx.tree.abs(srcPath));
}

/** copyDirWithRoots: fs.WalkDir in lexical order; excluded directories are skipped whole. */
function copyDir(ctx: OpContext, srcPath: string, destPath: string, excludeBase: string): void {
  ctx.staging.mkdirAll(destPath);
  const walk = (dir: string): void => {
    for (const e of ctx.tree.list(dir)) {
      const p = goJoin(dir, e.name);
      if (shouldExcludePath(p, excludeBase, ctx.excludes)) continue;
      const dest = goJoin(destPath, srcPath === '.' ? p : p.slice(srcPath.length + 1));
      if (e.kind === 'dir') {
        ctx.staging.mkdirAll(dest);
        walk(p);
      } else {
        ctx.staging.writeFile(dest, ctx.tree.abs(p));
      }
    }
  };
  walk(srcPath);
}

/** applySingleSourceCopy: `from` without glob characters behaves like cp / cp -r. */
function copySingleSource(ctx: OpContext, pattern: string, destRel: string, destEndsWithSlash: boolean): void {
  const srcPath = goClean(pattern);
  if (escapesRoot(srcPath)) throw new CopyError(`failed to stat source '${srcPath}': path escapes from parent`);
  const kind = ctx.tree.stat(srcPath);
  if (kind === 'missing') throw new CopyError(`source '${srcPath}' does not exist`);
  if (kind === 'notdir') throw new CopyError(`failed to stat source '${srcPath}': not a directory`);
  const base = path.posix.basename(srcPath);
  if (kind === 'dir') {
    if (ctx.op.strategy === 'Extract') throw new CopyError(`extract strategy is not supported for directories, got '${srcPath}'`);
    // The destination always exists, so like `cp -r dir dest` this makes dest/<dir>, slash or not.
    return copyEntry(ctx, srcPath, goJoin(destRel, base), srcPath);
  }
  if (shouldExcludePath(srcPath, '.', ctx.excludes)) return;
  if (ctx.op.strategy === 'Extract') {
    if (!isTarball(srcPath)) throw new CopyError(`extract strategy requires tarball file (.tar.gz or .tgz), got '${srcPath}'`);
    return ctx.unmirrored(`Extract strategy: the contents of tarball '${srcPath}' are not planned`);
  }
  const intoDir = destEndsWithSlash || ctx.staging.kindOf(destRel) === 'dir';
  copyEntry(ctx, srcPath, intoDir ? goJoin(destRel, base) : destRel, '.');
}

function applyCopyOperation(
  op: ArtifactCopy, aliasRoots: ReadonlyMap<string, string | null>, staging: Staging,
  unknownAliases: Set<string>, unmirrored: (what: string) => void,
): void {
  if (!op.from.startsWith('@')) throw new CopyError(`invalid copy source '${op.from}': source must start with '@'`);
  const slash = op.from.indexOf('/', 1);
  if (slash < 0) throw new CopyError(`invalid copy source '${op.from}': source format must be '@alias/pattern'`);
  const alias = op.from.slice(1, slash);
  const pattern = op.from.slice(slash + 1);
  if (!op.to.startsWith('@artifact/')) throw new CopyError(`invalid copy destination '${op.to}': destination must start with '@artifact/'`);
  const destRel = op.to.slice('@artifact/'.length);
  if (!aliasRoots.has(alias)) throw new CopyError(`source alias '${alias}' not found`);
  const excludes = op.exclude ?? [];
  for (const p of excludes) if (!excludePatternIsValid(p)) throw new CopyError(`invalid exclude pattern '${p}'`);
  const root = aliasRoots.get(alias);
  if (root === null || root === undefined) {
    unknownAliases.add(alias);
    return;
  }
  const ctx: OpContext = { op, tree: new SourceTree(root), staging, excludes, unmirrored };

  if (!containsGlobChars(pattern)) return copySingleSource(ctx, pattern, destRel, op.to.endsWith('/'));
  if (op.strategy === 'Extract') {
    // Extract globs with doublestar.Glob (recursive **) and unpacks every tarball matched.
    return unmirrored(`Extract strategy: tarballs matching '${pattern}' are not planned`);
  }
  let matches: string[];
  try {
    matches = ctx.tree.glob(pattern);
  } catch (e) {
    if (e instanceof BadPattern) throw new CopyError(`invalid glob pattern '${pattern}': syntax error in pattern`);
    throw e;
  }
  if (matches.length === 0) throw new CopyError(`no files match pattern '${pattern}' in source '${alias}'`);
  const excludeBase = sourceSelectionRoot(pattern);
  const kept = matches.filter((m) => !shouldExcludePath(m, excludeBase, excludes));
  if (kept.length === 0) throw new CopyError(`all files matching pattern '${pattern}' in source '${alias}' were excluded`);
  // A glob always copies into destRel as a directory, with or without a trailing slash.
  for (const match of kept) {
    const dest = calculateGlobDestination(pattern, match, destRel);
    try {
      copyEntry(ctx, match, dest, excludeBase);
    } catch (e) {
      if (e instanceof CopyError) throw new CopyError(`failed to copy file '${match}' to '${dest}': ${e.message}`);
      throw e;
    }
  }
}

/** SourceIgnoreFilter(nil, nil) matches every component of <staging>/<artifact name>/<dest>. */
function droppedByArchive(artifactName: string, dest: string): boolean {
  const comps = [artifactName, ...dest.split('/')];
  return comps.some((c, i) =>
    ARCHIVE_DROPPED_NAMES.some((p) => goMatch(p, c)) || (i < comps.length - 1 && ARCHIVE_DROPPED_DIRS.includes(c)));
}

/**
 * The files of one artifact: each destination path (posix, relative to the artifact root) and the absolute source
 * file it comes from. aliasRoots maps an alias to the absolute directory its source's artifact is (for a
 * GitRepository of this repository: the repository root; null = unknown/external source); it should hold every
 * alias of spec.sources, as an alias missing from it fails like an undeclared one. Directories only via the files
 * they hold. Symlinks and VCS files (.git/, .gitignore, …) under a root are treated as absent, as source-controller
 * never archives them; other .sourceignore rules are the caller's to apply to the root.
 *
 * When source-watcher would fail the build, files is empty and problems ends with its error (copying stops there,
 * as in applyCopyOperations). Other problems name what standup cannot reproduce (Merge onto an existing file,
 * Extract); planning continues past them. Operations from an unknown (null) alias are skipped and listed in
 * unknownAliases.
 */
export function planArtifact(
  artifact: GeneratedArtifact,
  aliasRoots: ReadonlyMap<string, string | null>,
): { files: { dest: string; src: string }[]; problems: string[]; unknownAliases: string[] } {
  const problems: string[] = [];
  const unknownAliases = new Set<string>();
  const staging = new Staging();
  if (aliasRoots.has(artifact.name)) {
    // Controller.reconcile downloads each source to <tmp>/<alias> and Build stages into <tmp>/<artifact name>.
    problems.push(`artifact '${artifact.name}': its name equals a source alias, so source-watcher stages it inside that source's download directory and it also holds every file of the source; standup does not reproduce this`);
  }
  for (const op of artifact.copy) {
    const unmirrored = (what: string): void => void problems.push(`artifact '${artifact.name}': copy from '${op.from}' to '${op.to}': ${what}`);
    try {
      applyCopyOperation(op, aliasRoots, staging, unknownAliases, unmirrored);
    } catch (e) {
      if (!(e instanceof CopyError)) throw e;
      problems.push(`${artifact.name} build failed: failed to apply copy operation from '${op.from}' to '${op.to}': ${e.message}`);
      return { files: [], problems, unknownAliases: [...unknownAliases] };
    }
  }
  const files = [...staging.files]
    .filter(([dest]) => !droppedByArchive(artifact.name, dest))
    .sort(([a], [b]) => byteOrder(a, b))
    .map(([dest, src]) => ({ dest, src }));
  return { files, problems, unknownAliases: [...unknownAliases] };
}

/**
 * Writes the planned files under destDir (copies, creating directories); returns a map absolute dest file ->
 * absolute src file, so origins can be mapped back to the repository.
 */
export function materializeArtifact(files: { dest: string; src: string }[], destDir: string): Map<string, string> {
  const root = path.resolve(destDir);
  const out = new Map<string, string>();
  for (const { dest, src } of files) {
    const target = path.resolve(root, dest);
    const rel = path.relative(root, target);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) throw new Error(`artifact file '${dest}' is outside ${root}`);
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(src, target);
    out.set(target, src);
  }
  return out;
}
