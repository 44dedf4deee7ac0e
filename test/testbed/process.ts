import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Set once the process has exited. */
  readonly exit: ExitInfo | undefined;
  readonly exited: Promise<ExitInfo>;
  /** SIGTERM to the whole process group, SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<ExitInfo>;
}

export interface SpawnOptions {
  logFile: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

// Every live process group we started, so a dying host can still kill them
// synchronously (see killAllSync) instead of leaving orphans behind.
const live = new Set<number>();

export function livePids(): number[] {
  return [...live];
}

/** Last-resort cleanup for 'exit' handlers: synchronous, no waiting. */
export function killAllSync(): void {
  for (const pid of live) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  live.clear();
}

export function spawnManaged(name: string, bin: string, args: string[], opts: SpawnOptions): ManagedProcess {
  const fd = openSync(opts.logFile, 'a');
  let child: ChildProcess;
  try {
    // detached: own process group, so stop() reaches grandchildren too and a
    // Ctrl-C in the terminal goes to us, not straight to the servers.
    child = spawn(bin, args, {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: opts.env ?? process.env,
      cwd: opts.cwd,
    });
  } finally {
    closeSync(fd);
  }
  if (child.pid === undefined) throw new Error(`could not spawn ${bin}`);
  const pid = child.pid;
  live.add(pid);
  let exit: ExitInfo | undefined;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      live.delete(pid);
      resolve(exit);
    });
    child.on('error', () => {
      exit ??= { code: -1, signal: null };
      live.delete(pid);
      resolve(exit);
    });
  });

  const signalGroup = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      // group already gone
    }
  };

  return {
    name,
    pid,
    logFile: opts.logFile,
    get exit() {
      return exit;
    },
    exited,
    async stop(graceMs = 5000) {
      if (exit) {
        signalGroup('SIGKILL'); // stray grandchildren, if any
        return exit;
      }
      signalGroup('SIGTERM');
      const done = await Promise.race([exited, sleep(graceMs).then(() => undefined)]);
      if (done) {
        signalGroup('SIGKILL');
        return done;
      }
      signalGroup('SIGKILL');
      return exited;
    },
  };
}
