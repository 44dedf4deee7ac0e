import { execa, type ResultPromise } from 'execa';
import path from 'node:path';
import { runCli } from '../../src/cli/main.js';
import type { Io } from '../../src/cli/io.js';
import { plainStyle } from '../../src/ui/style.js';

export const PROJECT = path.resolve(import.meta.dirname, '../..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** With -o json: the events, one per stdout line. */
  events: Record<string, unknown>[];
}

/** Runs the CLI in this process (the same code path as bin/standup.js), capturing what it prints. */
export async function standup(args: string[], env: Record<string, string> = {}, sofar?: { stdout: string; stderr: string }): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    // `sofar` sees the output as it comes: what a test shows when the run it waits on never ends.
    out: (t) => void ((stdout += t), sofar && (sofar.stdout += t)),
    err: (t) => void ((stderr += t), sofar && (sofar.stderr += t)),
    style: plainStyle,
    errStyle: plainStyle,
    isTTY: false,
    env: { ...process.env, CI: 'true', ...env },
    cwd: PROJECT,
  };
  const code = await runCli(args, io);
  const events = stdout.split('\n').flatMap((l) => {
    try {
      return l.startsWith('{') ? [JSON.parse(l) as Record<string, unknown>] : [];
    } catch {
      return []; // a pretty-printed document, not an event line
    }
  });
  return { code, stdout, stderr, events };
}

/**
 * The CLI as a separate process, so a test can interrupt or kill it. It runs the TypeScript source (as `npm run
 * standup` does), never dist/: a build older than the source under test would test stale code.
 */
export function standupProcess(args: string[]): ResultPromise<{ reject: false; all: true }> {
  return execa(process.execPath, ['--import', 'tsx', path.join(PROJECT, 'src/cli/main.ts'), ...args], { cwd: PROJECT, reject: false, all: true, env: { CI: 'true', NO_COLOR: '1' } });
}

/**
 * The standup CLI as its own process against a testbed (so it can be interrupted, and sops gets its environment).
 * The TypeScript source, as standupProcess runs it; tsx by path: the cwd is often a copy of the example repository,
 * where `--import tsx` would not resolve.
 */
export const standupProc = (t: { kubeconfigPath: string }, args: string[], cwd = PROJECT, env: Record<string, string> = {}) =>
  execa(process.execPath, ['--import', path.join(PROJECT, 'node_modules/tsx/dist/loader.mjs'), path.join(PROJECT, 'src/cli/main.ts'), ...args, '--kubeconfig', t.kubeconfigPath],
    { cwd, reject: false, all: true, env: { CI: 'true', NO_COLOR: '1', TSX_TSCONFIG_PATH: path.join(PROJECT, 'tsconfig.json'), ...env } });

/**
 * `standup` bounded by a deadline of the test's own: a run that never returns fails with what it printed so far, so
 * a hang says where it hung instead of ending in the test's timeout with nothing.
 */
export async function standupWithin(ms: number, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const sofar = { stdout: '', stderr: '' };
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const tail = (s: string) => s.trim().split('\n').slice(-20).join('\n');
      reject(new Error(`standup ${args.join(' ')} did not return within ${ms} ms\nstdout so far:\n${tail(sofar.stdout)}\nstderr so far:\n${tail(sofar.stderr)}`));
    }, ms);
  });
  try {
    return await Promise.race([standup(args, env, sofar), hung]);
  } finally {
    clearTimeout(timer);
  }
}
