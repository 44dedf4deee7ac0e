// The only module that runs git. Everything here is I/O at the edge; callers get plain paths.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { debug } from '../model/debug.js';
import { ConfigError } from '../model/errors.js';

type Execa = typeof import('execa');
let execaModule: Promise<Execa> | undefined;

/** execa, imported on the first git call: ~110 ms to import, which a load that runs no git never pays. */
const loadExeca = (): Promise<Execa> => (execaModule ??= import('execa'));

/** Runs git in `cwd` and returns its result, never throwing on a non-zero exit (the caller decides what that means). */
export async function runGit(cwd: string, args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const t0 = performance.now();
  const { execa } = await loadExeca();
  const r = await execa('git', args, { cwd, reject: false });
  debug(() => `git ${args.join(' ')}: exit ${r.exitCode ?? 'none'} in ${(performance.now() - t0).toFixed(0)} ms${r.exitCode ? `: ${String(r.stderr).trim().split('\n')[0]}` : ''}`);
  return { exitCode: r.exitCode ?? 1, stdout: String(r.stdout).trim(), stderr: String(r.stderr).trim() };
}

/** The top of the git work tree that holds `dir`, or null when `dir` is not inside one (or git is missing). */
export async function findGitRoot(dir: string): Promise<string | null> {
  const { execa } = await loadExeca();
  const r = await execa('git', ['rev-parse', '--show-toplevel'], { cwd: dir, reject: false });
  return r.exitCode === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

export interface ExportedRevision {
  /** A temp directory holding the tree of the revision (no .git). */
  dir: string;
  /** The full commit id the revision resolved to. */
  commit: string;
  cleanup(): Promise<void>;
}

/**
 * Writes the tree of `rev` into a fresh temp directory (`git archive REV | tar -x`), so the working tree is never
 * read or touched. The caller must call cleanup().
 */
export async function exportRevision(repo: string, rev: string): Promise<ExportedRevision> {
  const { execa } = await loadExeca();
  const parsed = await execa('git', ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { cwd: repo, reject: false });
  if (parsed.exitCode !== 0 || !parsed.stdout.trim()) {
    throw new ConfigError('REV_NOT_FOUND', `git revision "${rev}" not found in ${repo}`, 'Pass a branch, tag or commit that exists in this repository.');
  }
  const commit = parsed.stdout.trim();
  const dir = await mkdtemp(path.join(tmpdir(), 'standup-rev-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    await execa('git', ['archive', '--format=tar', commit], { cwd: repo }).pipe('tar', ['-x', '-C', dir]);
  } catch (e) {
    await cleanup();
    throw new ConfigError('REV_EXPORT_FAILED', `could not export revision "${rev}": ${(e as Error).message.split('\n')[0]}`, undefined, { cause: e });
  }
  return { dir, commit, cleanup };
}

/**
 * The commit the first of `refs` names in the git repository holding `dir` (`refs/heads/x`, `refs/tags/v1`, a
 * commit), with that repository's top directory; null when git has none of them (or `dir` is in no repository).
 */
export async function resolveRef(dir: string, refs: string[]): Promise<{ gitRoot: string; commit: string; ref: string } | null> {
  const gitRoot = await findGitRoot(dir);
  if (!gitRoot) return null;
  for (const ref of refs) {
    const r = await runGit(gitRoot, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
    if (r.exitCode === 0 && r.stdout) return { gitRoot, commit: r.stdout, ref };
  }
  return null;
}

/** Writes the tree of `commit` into `dir` (created; `git archive | tar -x`): false when git could not. */
export async function archiveInto(gitRoot: string, commit: string, dir: string): Promise<boolean> {
  const { execa } = await loadExeca();
  await mkdir(dir, { recursive: true });
  try {
    await execa('git', ['archive', '--format=tar', commit], { cwd: gitRoot }).pipe('tar', ['-x', '-C', dir]);
    return true;
  } catch (e) {
    debug(() => `git archive ${commit} into ${dir} failed: ${(e as Error).message.split('\n')[0]}`);
    return false;
  }
}
