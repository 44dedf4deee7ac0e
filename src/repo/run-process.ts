// Runs a program to completion with its output collected, on node:child_process directly: execa costs ~100 ms to
// import, more than a small kustomize build or `sops -d`, and every `up` starts a few of those.
import { spawn } from 'node:child_process';

export interface ProcessResult {
  /** null when it did not start or was killed by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Why the process did not start, if it did not: its message, and its code (ENOENT: not on PATH). */
  error: string | null;
  errorCode: string | null;
}

export function runProcess(bin: string, args: readonly string[], o: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let error: NodeJS.ErrnoException | null = null;
    const child = spawn(bin, args, { ...(o.env ? { env: o.env } : {}), ...(o.cwd ? { cwd: o.cwd } : {}), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) => (error = e));
    child.on('close', (exitCode, signal) =>
      resolve({ exitCode, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), error: error?.message ?? null, errorCode: error?.code ?? null }),
    );
  });
}
