import type { Io } from './io.js';
import type { NewCommand } from './options.js';

/** What a command's action gets besides its flags. */
export interface CliContext {
  io: Io;
  /** Hands the action's exit code to main. */
  exit(code: number): void;
  /** What -o takes per command (empty: no -o), for the completion scripts. */
  formatsOf(command: string): readonly string[];
}

/**
 * One subcommand of `standup`, defined in its own file under commands/: program.ts creates it by `name` (so it
 * inherits the program's settings and flags) and hands it to `define`, which adds its arguments, flags, help and
 * action. An action imports what it needs to run (the repository loader, the cluster client) when it runs, so that
 * `standup --help` does not load them.
 */
export interface CliCommand {
  name: string;
  /** Left out of help and completion (the words the completion scripts ask for). */
  hidden?: boolean;
  /** What -o takes: the action accepts exactly these, completion offers them, the program's -o help sums them up. */
  formats?: readonly string[];
  /** The command's own help explains each -o format, so the program's -o help leaves it out. */
  explainsFormats?: boolean;
  /**
   * false: the command reads no repository (explain, version, completion), so its help lists none of the program's
   * repository flags (--repo, --cluster, --path, --source, --local-source, --no-cache) among the global ones.
   */
  readsRepository?: boolean;
  define(command: NewCommand, cli: CliContext): void;
}

/** The commands that start with preflight: how long they wait for the API server, in their help (README says the same). */
export const CONNECT_HELP = `
Preflight waits 10s for the API server's first answer, saying after a moment which server it is connecting to
(STANDUP_CONNECT_TIMEOUT=30s waits longer); one that never answers (a VIP or load balancer with no live API server
behind it) ends the run with exit 1 before anything is written, as one that refuses connections does at once.
`;

export const EXIT_CODES_HELP = `
Exit codes:
  0    success
  1    a step failed (a tier Ready=False for a terminal reason, an apply rejected), or the API server cannot be reached
  2    bad input or configuration (a usage error too), \`check\` found errors, or \`fix\` left one for a hand edit
  3    a wait timed out (\`standup resume\` continues from there)
  4    refused: the context guard, a cluster not marked resettable, a reset not confirmed
  130  interrupted (\`standup resume\` finishes the job)`;
