// The only module that runs git. Everything here is I/O at the edge; callers get plain paths.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { debug } from '../model/debug.js';
import { ConfigError } from '../model/errors.js';
import { runProcess } from './run-process.js';

/** Runs git in `cwd` and returns its result, never throwing on a non-zero exit (the caller decides what that means). */
export async function runGit(cwd: string, args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const t0 = performance.now();
  const r = await runProcess('git', args, { cwd });
  debug(() => `git ${args.join(' ')}: exit ${r.exitCode ?? 'none'} in ${(performance.now() - t0).toFixed(0)} ms${r.exitCode ? `: ${(r.stderr || r.error || '').trim().split('\n')[0]}` : ''}`);
  return { exitCode: r.exitCode ?? 1, stdout: r.stdout.trim(), stderr: (r.stderr || r.error || '').trim() };
}

/** The top of the git work tree that holds `dir`, or null when `dir` is not inside one (or git is missing). */
export async function findGitRoot(dir: string): Promise<string | null> {
  const r = await runGit(dir, ['rev-parse', '--show-toplevel']);
  return r.exitCode === 0 && r.stdout ? r.stdout : null;
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
  const parsed = await runGit(repo, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  if (parsed.exitCode !== 0 || !parsed.stdout) {
    throw new ConfigError('REV_NOT_FOUND', `git revision "${rev}" not found in ${repo}`, 'Pass a branch, tag or commit that exists in this repository.');
  }
  const commit = parsed.stdout;
  const dir = await mkdtemp(path.join(tmpdir(), 'standup-rev-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    await gitArchive(repo, commit, dir);
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
  await mkdir(dir, { recursive: true });
  try {
    await gitArchive(gitRoot, commit, dir);
    return true;
  } catch (e) {
    debug(() => `git archive ${commit} into ${dir} failed: ${(e as Error).message.split('\n')[0]}`);
    return false;
  }
}

/** `git archive --format=tar COMMIT | tar -x -C DIR`, run in `cwd`; rejects with the failing side's words. */
function gitArchive(cwd: string, commit: string, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const git = spawn('git', ['archive', '--format=tar', commit], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const tar = spawn('tar', ['-x', '-C', dir], { stdio: ['pipe', 'ignore', 'pipe'] });
    git.stdout.pipe(tar.stdin);
    // tar gone (failed) while git still writes: git's EPIPE is tar's failure, said through tar's exit below.
    tar.stdin.on('error', () => undefined);
    const said = { git: '', tar: '' };
    git.stderr.on('data', (d: Buffer) => void (said.git += d.toString()));
    tar.stderr.on('data', (d: Buffer) => void (said.tar += d.toString()));
    const ended = (name: 'git' | 'tar', p: ReturnType<typeof spawn>) =>
      new Promise<string | null>((done) => {
        p.on('error', (e) => done(`${name}: ${e.message}`));
        p.on('close', (code, signal) => done(code === 0 ? null : `${name} ${signal ? `killed by ${signal}` : `exited ${code}`}${said[name].trim() ? `: ${said[name].trim().split('\n')[0]}` : ''}`));
      });
    void Promise.all([ended('git', git), ended('tar', tar)]).then(([g, t]) => (g || t ? reject(new Error(g ?? t!)) : resolve()));
  });
}
