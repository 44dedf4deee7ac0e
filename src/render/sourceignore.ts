// Which files of this repository source-controller leaves out of the artifact it serves (FLUX.md §5): every
// .sourceignore, scoped to its folder, and when there is none the default patterns (images, archives, CI folders,
// .sops.yaml and friends). kustomize-controller never sees those files: Flux's generated kustomization does not list
// them, and a build that reads one fails. Mirrors fluxcd/pkg sourceignore (sourceignore.go) and its gitignore matcher
// (pattern.go, matcher.go, from go-git), and source-controller's SourceIgnoreFilter, which matches each regular
// file's path with isDir false.
import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import path from 'node:path';
import type { Ignored } from '../repo/generated-kustomization.js';
import { BadPattern, goMatch } from './artifact-generator/go-match.js';

export const IGNORE_FILE = '.sourceignore';
const EXCLUDE_VCS = ['.git/', '.gitignore', '.gitmodules', '.gitattributes'];
const EXCLUDE_DEFAULTS = [
  ...['*.jpg', '*.jpeg', '*.gif', '*.png', '*.wmv', '*.flv', '*.tar.gz', '*.zip'],
  ...['.github/', '.circleci/', '.travis.yml', '.gitlab-ci.yml', 'appveyor.yml', '.drone.yml', 'cloudbuild.yaml', 'codeship-services.yml', 'codeship-steps.yml'],
  ...['**/.goreleaser.yml', '**/.sops.yaml', '**/.flux.yaml'],
];

interface Pattern {
  domain: string[];
  parts: string[];
  /** One matcher per part: Go's path.Match, or a plain comparison where the part allows it (most do). */
  matchers: ((name: string) => boolean | null)[];
  inclusion: boolean;
  dirOnly: boolean;
  isGlob: boolean;
}

export function parsePattern(p: string, domain: string[]): Pattern {
  let inclusion = false;
  if (p.startsWith('!')) {
    inclusion = true;
    p = p.slice(1);
  }
  if (!p.endsWith('\\ ')) p = p.replace(/ +$/, '');
  let dirOnly = false;
  if (p.endsWith('/')) {
    dirOnly = true;
    p = p.slice(0, -1);
  }
  const parts = p.split('/');
  return { domain: [...domain], parts, matchers: parts.map(compile), inclusion, dirOnly, isGlob: p.includes('/') };
}

const SPECIAL = /[*?[\\]/;

/** A name matcher equal to Go's path.Match(part, name) for one path segment (which holds no '/'). */
function compile(part: string): (name: string) => boolean | null {
  if (!SPECIAL.test(part)) return (name) => name === part;
  // `*` matches any run of non-separator characters: `*.png` is a suffix, `*` anything.
  if (part.startsWith('*') && !SPECIAL.test(part.slice(1))) {
    const suffix = part.slice(1);
    return (name) => name.endsWith(suffix);
  }
  return (name) => match(part, name);
}

const match = (pattern: string, name: string): boolean | null => {
  try {
    return goMatch(pattern, name);
  } catch (e) {
    if (e instanceof BadPattern) return null;
    throw e;
  }
};

function simpleNameMatch(p: Pattern, names: string[], isDir: boolean): boolean {
  for (let i = 0; i < names.length; i++) {
    const m = p.matchers[0]!(names[i]!);
    if (m === null) return false;
    if (!m) continue;
    if (p.dirOnly && !isDir && i === names.length - 1) return false;
    return true;
  }
  return false;
}

function globMatch(p: Pattern, names: string[], isDir: boolean): boolean {
  let matched = false;
  let canTraverse = false;
  let rest = names;
  for (let i = 0; i < p.parts.length; i++) {
    const part = p.parts[i]!;
    if (part === '') {
      canTraverse = false;
      continue;
    }
    if (part === '**') {
      if (i === p.parts.length - 1) break;
      canTraverse = true;
      continue;
    }
    if (part.includes('**')) return false;
    if (rest.length === 0) return false;
    if (canTraverse) {
      canTraverse = false;
      while (rest.length > 0) {
        const e = rest[0]!;
        rest = rest.slice(1);
        const m = p.matchers[i]!(e);
        if (m === null) return false;
        if (m) {
          matched = true;
          break;
        } else if (rest.length === 0) {
          matched = false;
        }
      }
    } else {
      const m = p.matchers[i]!(rest[0]!);
      if (!m) return false;
      matched = true;
      rest = rest.slice(1);
    }
  }
  if (matched && p.dirOnly && !isDir && rest.length === 0) matched = false;
  return matched;
}

/** 1: excluded, 2: included, 0: no match (go-git's MatchResult). */
function matchPattern(p: Pattern, names: string[], isDir: boolean): 0 | 1 | 2 {
  if (names.length <= p.domain.length) return 0;
  for (let i = 0; i < p.domain.length; i++) if (names[i] !== p.domain[i]) return 0;
  const rest = names.slice(p.domain.length);
  if (!(p.isGlob ? globMatch(p, rest, isDir) : simpleNameMatch(p, rest, isDir))) return 0;
  return p.inclusion ? 2 : 1;
}

/** Patterns of one .sourceignore text, comments and blank lines skipped. */
export function readPatterns(text: string, domain: string[]): Pattern[] {
  return text
    .split(/\r?\n/)
    .filter((s) => !s.startsWith('#') && s.trim().length > 0)
    .map((s) => parsePattern(s, domain));
}

export class SourceIgnore {
  private readonly patterns: Pattern[];
  /** The .sourceignore files found (repository-relative), for messages. */
  readonly files: string[];

  constructor(found: { file: string; patterns: Pattern[] }[]) {
    const ps = found.flatMap((f) => f.patterns);
    this.files = found.filter((f) => f.patterns.length > 0).map((f) => f.file);
    // SourceIgnoreFilter: with patterns of its own, only the VCS defaults stay; without, every default applies.
    const defaults = ps.length > 0 ? EXCLUDE_VCS : [...EXCLUDE_VCS, ...EXCLUDE_DEFAULTS];
    this.patterns = [...defaults.map((p) => parsePattern(p, [])), ...ps];
  }

  /**
   * Reads every .sourceignore under `root` (each scoped to its folder), as source-controller loads them. `listings`
   * keeps each folder's entries for the load's other walks (discovery), which then need not list them again.
   */
  static load(root: string, listings?: Map<string, Dirent[]>): SourceIgnore {
    const found: { file: string; patterns: Pattern[] }[] = [];
    const visit = (dir: string, domain: string[]) => {
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      listings?.set(dir, entries);
      // Read only where the listing has one: a failed read per folder (an exception each) costs more than the walk.
      if (entries.some((e) => e.name === IGNORE_FILE)) {
        try {
          found.push({ file: [...domain, IGNORE_FILE].join('/'), patterns: readPatterns(readFileSync(path.join(dir, IGNORE_FILE), 'utf8'), domain) });
        } catch {
          /* unreadable (a folder of that name): none here */
        }
      }
      for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        if (e.isDirectory() && e.name !== '.git') visit(path.join(dir, e.name), [...domain, e.name]);
      }
    };
    visit(root, []);
    return new SourceIgnore(found);
  }

  /** True when the file (repository-relative, '/'-separated) is not in the source artifact. */
  ignores(rel: string): boolean {
    const names = rel.split('/');
    for (let i = this.patterns.length - 1; i >= 0; i--) {
      const m = matchPattern(this.patterns[i]!, names, false);
      if (m !== 0) return m === 1;
    }
    return false;
  }

  /**
   * `ignores` by absolute path, once per path: false outside `root` (an artifact's own copy, a temp file), where
   * these patterns do not apply.
   */
  ignoredUnder(root: string): Ignored {
    const known = new Map<string, boolean>();
    return (abs) => {
      let r = known.get(abs);
      if (r === undefined) {
        const rel = path.relative(root, abs);
        r = !rel.startsWith('..') && !path.isAbsolute(rel) && this.ignores(rel.split(path.sep).join('/'));
        known.set(abs, r);
      }
      return r;
    };
  }

  /** What decides, for messages: the .sourceignore files, or source-controller's default patterns. */
  describe(): string {
    return this.files.length > 0 ? this.files.join(', ') : "source-controller's default ignore patterns (no .sourceignore)";
  }
}
