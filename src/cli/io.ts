import { createInterface } from 'node:readline/promises';
import type { LoadSession } from '../load/load-session.js';
import { pickStyle, type Style } from '../ui/style.js';

/** Where commands write: data to `out` (stdout), everything for people to `err` (stderr), as flux does. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  style: Style;
  errStyle: Style;
  /** stdout is a terminal. */
  isTTY: boolean;
  /** stderr is a terminal: progress lines go there (never into a pipe or a CI log). */
  errIsTTY?: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** stderr is a terminal (the live view draws there), with its size; absent when it is not one. */
  errTerminal?: { columns(): number; rows(): number };
  /** stdout's width when it is a terminal (status cuts MESSAGE to it). */
  columns?: () => number;
  /** Asks a question on the terminal: the answer, or null on Ctrl-C. Absent when stdin is not a terminal. */
  ask?: (question: string) => Promise<string | null>;
  /**
   * Ends the process now (a second Ctrl-C), after what was written has reached stdout and stderr. Only the process
   * io has it; in-process callers (tests) have nothing to end.
   */
  exitNow?: (code: number) => void;
  /**
   * Calls `handler` on each of these signals until the returned function is called. Only the process io has it
   * (src/cli/main.ts installs it, the one place that hooks the process); in-process callers (tests) get no signals.
   */
  onSignal?: (signals: readonly NodeJS.Signals[], handler: () => void) => () => void;
  /**
   * Calls `handler` once stdout or stderr can no longer be written (the reader of a pipe exited: EPIPE) until the
   * returned function is called; from then on `out` (or `err`) drops what it is given. Only the process io has it.
   */
  onOutputClosed?: (handler: (stream: 'stdout' | 'stderr') => void) => () => void;
  /** The command's repository loads (their parse memos and statistics); runCli closes it when the command ends. */
  loadSession?: LoadSession;
}

export function processIo(): Io {
  return {
    out: (t) => void process.stdout.write(t),
    err: (t) => void process.stderr.write(t),
    style: pickStyle(process.stdout),
    errStyle: pickStyle(process.stderr),
    isTTY: !!process.stdout.isTTY,
    errIsTTY: !!process.stderr.isTTY,
    env: process.env,
    cwd: process.cwd(),
    // A terminal that reports no size (0: a pty nobody sized) gets the classic 80x24.
    ...(process.stderr.isTTY ? { errTerminal: { columns: () => process.stderr.columns || 80, rows: () => process.stderr.rows || 24 } } : {}),
    ...(process.stdout.isTTY ? { columns: () => process.stdout.columns || 80 } : {}),
    ...(process.stdin.isTTY
      ? {
          ask: async (question: string) => {
            const rl = createInterface({ input: process.stdin, output: process.stderr });
            // readline takes Ctrl-C at a prompt for itself; without this it would pause stdin and never answer.
            const interrupted = new Promise<null>((resolve) => rl.once('SIGINT', () => resolve(null)));
            try {
              return await Promise.race([rl.question(question), interrupted]);
            } finally {
              rl.close();
            }
          },
        }
      : {}),
  };
}

/** Whether the run is in CI (`CI` set to anything but false), where nothing is redrawn in place. */
export const inCI = (env: NodeJS.ProcessEnv): boolean => !!env.CI && env.CI !== 'false' && env.CI !== '0';
