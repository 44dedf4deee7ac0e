import { CommanderError } from '@commander-js/extra-typings';
import { CliError, ExitCode } from '../model/errors.js';
import { processIo, type Io } from './io.js';
import { buildProgram } from './program.js';

/** Runs the CLI and returns the exit code; never exits, so tests can call it. */
export async function runCli(argv: string[], io: Io = processIo()): Promise<number> {
  let code: number = ExitCode.ok;
  const program = buildProgram(io, (c) => (code = c)).exitOverride();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    return reportError(e, io);
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

// Only this entry point may end the process, and only when run as the program (not when imported by tests). The
// normal path sets the exit code and lets Node drain stdout and stderr: exiting at once cuts piped output at 64 KiB.
const invoked = process.argv[1] ?? '';
if (/(main\.ts|standup(\.js)?)$/.test(invoked)) {
  const io = processIo();
  io.exitNow = (code) => {
    process.exitCode = code;
    void Promise.all([drained(process.stdout), drained(process.stderr)]).then(() => process.exit(code));
  };
  process.exitCode = await runCli(process.argv.slice(2), io);
}
