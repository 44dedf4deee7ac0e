// Which files each generated ExternalArtifact holds, and writing them out. Mirrors fluxcd/source-watcher at 825fa15
// (v2.2.1):
//   internal/builder/builder.go            applyCopyOperations, applyCopyOperation, applySingleSourceCopy,
//     applySingleFileCopy, applySingleDirectoryCopy, copyFileWithRoots, copyDirWithRoots, createDirRecursive
//   internal/builder/merge.go, extract.go  Merge / Extract strategies: reported, not mirrored
// A glob `from` goes through Go's io/fs.Glob + path.Match (./go-match.ts); excludes go through doublestar v4.10.0
// Match (./doublestar.ts). The staged directory is archived with fluxcd/pkg artifact/storage
// SourceIgnoreFilter(nil, nil), which drops sourceignore's default patterns.
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { excludePatternIsValid, shouldExcludePath } from './doublestar.js';
import { BadPattern, goMatch } from './go-match.js';
import { calculateGlobDestination, containsGlobChars, escapesRoot, goClean, goDir, goJoin, sourceSelectionRoot } from './paths.js';
import { byteOrder, SourceTree, VCS_FILES, type Kind } from './source-tree.js';
import type { ArtifactCopy, GeneratedArtifact } from './spec.js';

// ---------------------------------------------------------------------------------------------------------------
// What the archive of the generated artifact leaves out.

// sourceignore's default patterns, which SourceIgnoreFilter(nil, nil) drops from the generated artifact at any depth
// (ExcludeVCS, ExcludeExt, ExcludeCI, ExcludeExtra). The trailing-slash ones match directories only.
const ARCHIVE_DROPPED_NAMES = [
  ...VCS_FILES, '*.jpg', '*.jpeg', '*.gif', '*.png', '*.wmv', '*.flv', '*.tar.gz', '*.zip',
  '.travis.yml', '.gitlab-ci.yml', 'appveyor.yml', '.drone.yml', 'cloudbuild.yaml', 'codeship-services.yml',
  'codeship-steps.yml', '.goreleaser.yml', '.sops.yaml', '.flux.yaml',
];
const ARCHIVE_DROPPED_DIRS = ['.git', '.github', '.circleci'];

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
