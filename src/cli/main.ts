import { CommanderError } from '@commander-js/extra-typings';
import { setDebugSink } from '../model/debug.js';
import { CliError, ExitCode } from '../model/errors.js';
import { LoadSession } from '../load/load-session.js';
import { processIo, type Io } from './io.js';
import { buildProgram } from './program.js';

/** Runs the CLI and returns the exit code; never exits, so tests can call it. */
export async function runCli(argv: string[], io: Io = processIo()): Promise<number> {
  const session = io.loadSession ?? new LoadSession();
  if (!io.loadSession) io = { ...io, loadSession: session };
  let code: number = ExitCode.ok;
  const program = buildProgram(io, (c) => (code = c)).exitOverride();
  const debugSink = setDebugSink(null);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    return reportError(e, io);
  } finally {
    session.close(); // saves the parse memos with what the command parsed after its loads
    setDebugSink(debugSink); // --verbose lasts one command (tests run many in one process)
  }
}

function reportError(e: unknown, io: Io): number {
  if (e instanceof CommanderError) {
    // --help and --version arrive here as "errors" with exit code 0.
    return e.exitCode === 0 ? ExitCode.ok : ExitCode.config;
  }
  const s = io.errStyle;
  if (e instanceof CliError) {
    io.err(`${s.red('✗')} ${e.message}\n`);
    if (e.hint) io.err(`  ${s.dim(e.hint)}\n`);
    return e.exitCode;
  }
  io.err(`${s.red('✗')} internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  io.err('  This is a bug in standup; please report it with the command you ran.\n');
  return ExitCode.failure;
}

/** Resolves once everything written so far has been handed to the OS (a pipe's reader may be slow). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) return resolve();
    stream.write('', () => resolve());
  });
}

/**
 * The program: runs the CLI on process.argv and sets the exit code. Only this entry point may end the process, and
 * only through `exitNow` (a second Ctrl-C): the normal path sets the exit code and lets Node drain stdout and stderr,
 * since exiting at once cuts piped output at 64 KiB. bin/standup.js calls it; so does `tsx src/cli/main.ts`.
 */
export async function main(): Promise<void> {
  const io = processIo();
  io.exitNow = (code) => {
    process.exitCode = code;
    void Promise.all([drained(process.stdout), drained(process.stderr)]).then(() => process.exit(code));
  };
  io.onSignal = (signals, handler) => {
    for (const s of signals) process.on(s, handler);
    return () => {
      for (const s of signals) process.off(s, handler);
    };
  };
  hookClosedOutput(io);
  process.exitCode = await runCli(process.argv.slice(2), io);
}

/**
 * A closed stdout or stderr (`standup up -o json | head -5`: the reader exited, the next write fails with EPIPE)
 * ends that output quietly: the stream's error is taken here instead of crashing the process with a stack, later
 * writes to it are dropped, and whoever listens (a run, `status --watch`) ends as on Ctrl-C.
 */
function hookClosedOutput(io: Io): void {
  const closed = { stdout: false, stderr: false };
  const listeners = new Set<(stream: 'stdout' | 'stderr') => void>();
  const { out, err } = io;
  io.out = (t) => void (closed.stdout || out(t));
  io.err = (t) => void (closed.stderr || err(t));
  for (const name of ['stdout', 'stderr'] as const) {
    // Any error on an output (EPIPE, EIO from a terminal that went away) means nothing more can be written to it.
    process[name].on('error', () => {
      if (closed[name]) return;
      closed[name] = true;
      for (const l of listeners) l(name);
    });
  }
  io.onOutputClosed = (handler) => {
    listeners.add(handler);
    return () => void listeners.delete(handler);
  };
}

// Run directly (`npm run standup`, `node --import tsx src/cli/main.ts`); an import (tests, bin/standup.js) does not.
if (/main\.[cm]?[jt]s$/.test(process.argv[1] ?? '')) await main();
