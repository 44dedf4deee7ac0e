import { Command, Help, Option } from '@commander-js/extra-typings';
import { setDebugSink } from '../model/debug.js';
import { EXIT_CODES_HELP, type CliCommand, type CliContext } from './command.js';
import { checkCommand } from './commands/check.js';
import { completeWordsCommand, completionCommand } from './commands/completion.js';
import { crdsCommand } from './commands/crds.js';
import { diffCommand } from './commands/diff.js';
import { fixCommand } from './commands/fix.js';
import { explainCommand } from './commands/explain.js';
import { initCommand } from './commands/init.js';
import { graphCommand } from './commands/graph.js';
import { planCommand } from './commands/plan.js';
import { resetCommand } from './commands/reset.js';
import { resumeCommand } from './commands/resume.js';
import { statusCommand } from './commands/status.js';
import { upCommand } from './commands/up.js';
import { versionCommand } from './commands/version.js';
import type { Io } from './io.js';
import { collect, parseOutput, type Program } from './options.js';
import { packageInfo } from './package-info.js';

/** Every subcommand, in the order help lists them. */
export const COMMANDS: readonly CliCommand[] = [
  planCommand, graphCommand, checkCommand, fixCommand, diffCommand, upCommand, resumeCommand, crdsCommand, statusCommand, resetCommand,
  versionCommand, explainCommand, initCommand, completionCommand, completeWordsCommand,
];

/**
 * Builds the command tree: the program's own flags, then each command of COMMANDS. Settings made before the first
 * `.command()` are inherited by every subcommand (commander copies them at creation): usage errors reach main as
 * CommanderErrors (exit 2) instead of commander ending the process itself (exit 1), and every subcommand's help
 * lists the global flags.
 */
export function buildProgram(io: Io, setExit: (code: number) => void): Program {
  const program = new Command('standup')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .configureHelp(helpLayout())
    .showHelpAfterError('(run with --help for usage)')
    .description(
      'Bring a Flux cluster up in the order its git repository declares, and resume a stuck cold start.\n' +
        'The order (TIER_ORDER) is derived from spec.dependsOn of every Flux Kustomization, never kept by hand.',
    )
    .version(packageInfo().version, '-V, --version', 'print the client version (`standup version` also asks the cluster)')
    .addOption(new Option('--repo <dir>', 'the Flux repository (default: the git root of the current directory)'))
    .addOption(new Option('--cluster <name>', 'a cluster from tiers.yaml or discovered (repeatable; default: all)').argParser(collect))
    .addOption(new Option('--path <dir>', 'an entry path to read instead of a named cluster'))
    .addOption(new Option('--source <kind/ns/name>', 'the root sync\'s source, when the repository does not say it (e.g. GitRepository/flux-system/flux-system)'))
    .addOption(new Option('--local-source <ref=dir>', 'read a source from a directory here: KIND/NAMESPACE/NAME=DIR or URL=DIR, e.g. GitRepository/flux-system/flux-infra=../infra (repeatable)').argParser(collect))
    .addOption(new Option('--no-cache', 'render every kustomize build again; neither read nor write the render cache ($XDG_CACHE_HOME/standup)'))
    .addOption(new Option('-o, --output <format>', `output format: ${formatsHelp(COMMANDS)}`).argParser(parseOutput))
    .addOption(new Option('--verbose', 'debug logs on stderr: kustomize builds, git, API calls, timings'))
    .addHelpText('after', EXIT_CODES_HELP)
    .hook('preAction', (self) => {
      // A program option is taken anywhere on the line, so `check --verbose` lands here too (and check also lists
      // every tier of a folded finding): more detail on stdout, debug lines on stderr.
      if (!self.opts().verbose) return;
      setDebugSink((line) => io.err(io.errStyle.dim(`debug +${(performance.now() / 1000).toFixed(3)}s ${line}`) + '\n'));
    });

  const formats = new Map(COMMANDS.map((c) => [c.name, c.formats ?? []]));
  const cli: CliContext = { io, exit: setExit, formatsOf: (name) => formats.get(name) ?? [] };
  for (const c of COMMANDS) c.define(program.command(c.name, { hidden: c.hidden }), cli);
  return program;
}

/** The program's flags that only a command reading a repository uses. */
const REPOSITORY_FLAGS = ['repo', 'cluster', 'path', 'source', 'localSource', 'cache'];

/**
 * A command's help as kubectl and flux lay it out: its own flags under "Options" (-o among them, with the formats
 * this command takes), then under "Global Options" only the program's flags that apply to it (no -V, no -o, and no
 * repository flags for a command that reads none). The top-level help keeps every program flag.
 */
function helpLayout(): Partial<Help> {
  const byName = new Map(COMMANDS.map((c) => [c.name, c]));
  const own = (cmd: { name(): string; parent: unknown }) => (cmd.parent ? byName.get(cmd.name()) : undefined);
  return {
    showGlobalOptions: true,
    visibleOptions(this: Help, cmd) {
      const options = Help.prototype.visibleOptions.call(this, cmd);
      const formats = own(cmd)?.formats;
      if (!formats?.length) return options;
      const output = new Option('-o, --output <format>', `output format: ${formats.join(', ')} (default ${formats[0]})`);
      // Before -h, which commander puts last.
      return [...options.filter((o) => o.long !== '--help'), output, ...options.filter((o) => o.long === '--help')];
    },
    visibleGlobalOptions(this: Help, cmd) {
      const c = own(cmd);
      const options = Help.prototype.visibleGlobalOptions.call(this, cmd);
      if (!c) return options;
      return options.filter((o) => o.long !== '--version' && o.long !== '--output' && (c.readsRepository !== false || !REPOSITORY_FLAGS.includes(o.attributeName())));
    },
  };
}

/**
 * What -o takes, summed up for the program's help from the commands' own lists: the formats every command with -o
 * takes, then each command's others (commands with the same others together). A command whose own help explains
 * its formats is left out.
 */
export function formatsHelp(commands: readonly CliCommand[]): string {
  const lists = commands.filter((c) => c.formats?.length).map((c) => ({ name: c.name, formats: c.formats!, summed: !c.explainsFormats }));
  const common = lists[0]?.formats.filter((f) => lists.every((l) => l.formats.includes(f))) ?? [];
  const others = new Map<string, string[]>();
  for (const l of lists.filter((x) => x.summed)) {
    const own = l.formats.filter((f) => !common.includes(f)).join(', ');
    if (own) others.set(own, [...(others.get(own) ?? []), l.name]);
  }
  const names = (n: string[]) => (n.length > 1 ? `${n.slice(0, -1).join(', ')} and ${n.at(-1)}` : n[0]!);
  return [common.join(', '), ...[...others].map(([own, n]) => `${names(n)} also ${own}`)].join('; ');
}
