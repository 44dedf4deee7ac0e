import { pickStyle, type Style } from '../ui/style.js';

/** Where commands write: data to `out` (stdout), everything for people to `err` (stderr), as flux does. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  style: Style;
  errStyle: Style;
  isTTY: boolean;
  /** stderr is a terminal: progress lines go there (never into a pipe or a CI log). */
  errIsTTY?: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * Ends the process now (a second Ctrl-C), after what was written has reached stdout and stderr. Only the process
   * io has it; in-process callers (tests) have nothing to end.
   */
  exitNow?: (code: number) => void;
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
  };
}

/** Whether the run is in CI (`CI` set to anything but false), where nothing is redrawn in place. */
export const inCI = (env: NodeJS.ProcessEnv): boolean => !!env.CI && env.CI !== 'false' && env.CI !== '0';
