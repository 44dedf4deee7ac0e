import type { CommandUnknownOpts, Option } from '@commander-js/extra-typings';
import { ConfigError, ExitCode } from '../../model/errors.js';
import type { CliCommand } from '../command.js';
import type { CompletionSpec, FlagSpec } from '../completion-script.js';
import type { Io } from '../io.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

export const completionCommand: CliCommand = {
  name: 'completion',
  readsRepository: false,
  define: (command, cli) => command
    .description('print a shell completion script for bash, zsh or fish')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText('after', `
Examples:
  source <(standup completion bash)                      this shell; add the line to ~/.bashrc for every shell
  standup completion zsh > "\${fpath[1]}/_standup"        zsh, then restart it
  standup completion fish > ~/.config/fish/completions/standup.fish`)
    .action(async (shell, _o, cmd) => cli.exit(await completion(shell, specOf(cmd.parent!, cli.formatsOf), cli.io))),
};

/** `standup __complete clusters|contexts`: the words the completion scripts offer for --cluster and --context. */
export const completeWordsCommand: CliCommand = {
  name: '__complete',
  hidden: true,
  define: (command, cli) => command
    .argument('<what>', 'clusters or contexts')
    .option('--kubeconfig <file>')
    .action(async (what, o, cmd) => cli.exit(await completeWords(what, { ...cmd.optsWithGlobals(), ...o }, cli.io))),
};

/** `standup completion SHELL`: the script on stdout. */
export async function completion(shell: string, spec: CompletionSpec, io: Io): Promise<number> {
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw new ConfigError('BAD_ARGUMENT', `no completion for shell "${shell}"`, `Use one of: ${SHELLS.join(', ')}.`);
  }
  const { completionScript } = await import('../completion-script.js');
  io.out(completionScript(shell as (typeof SHELLS)[number], spec));
  return ExitCode.ok;
}

/** The command tree as completion sees it: visible commands and flags, with what -o takes per command. */
export function specOf(program: CommandUnknownOpts, formatsOf: (command: string) => readonly string[]): CompletionSpec {
  const help = program.createHelp();
  const flag = (o: Option): FlagSpec => ({ short: o.short, long: o.long, value: o.required || o.optional, description: o.description });
  const commands = help.visibleCommands(program);
  const globals = help.visibleOptions(program).map(flag);
  // After a command, the program's own --version and --help are not what one completes (the command has --help).
  const inherited = globals.filter((f) => f.long !== '--version' && f.long !== '--help');
  return {
    program: program.name(),
    globals,
    commands: commands.map((c) => ({
      name: c.name(),
      description: c.description(),
      flags: ownThenInherited(help.visibleOptions(c).map(flag), inherited),
      formats: [...formatsOf(c.name())],
      words: c.name() === 'completion' ? [...SHELLS] : c.name() === 'help' ? commands.map((x) => x.name()).filter((n) => n !== 'help') : [],
    })),
  };
}

/** A command's own flags, then the program's that it does not redefine (check has its own --verbose). */
function ownThenInherited(own: FlagSpec[], inherited: FlagSpec[]): FlagSpec[] {
  const taken = new Set(own.flatMap((f) => [f.short, f.long]).filter(Boolean));
  return [...own, ...inherited.filter((f) => !taken.has(f.long) && !taken.has(f.short))];
}

/**
 * `standup __complete clusters|contexts` (hidden): the words the scripts offer for --cluster and --context. Reads
 * tiers.yaml (or discovers the clusters) and the kubeconfig only; prints nothing rather than an error, since a
 * shell completing a word has no use for one.
 */
export async function completeWords(what: string, o: { repo?: string; kubeconfig?: string }, io: Io): Promise<number> {
  try {
    if (what === 'clusters') {
      const [{ findGitRoot }, { readConfig }, { discoverRepository }] = await Promise.all([
        import('../../repo/git.js'), import('../../repo/tiers-yaml.js'), import('../../load/load-repository.js'),
      ]);
      const root = o.repo ?? (await findGitRoot(io.cwd)) ?? io.cwd;
      const { config } = await readConfig(root);
      const names = Object.keys(config.clusters);
      io.out((names.length ? names : (await discoverRepository(root)).entries.map((e) => e.name)).map((n) => `${n}\n`).join(''));
    } else if (what === 'contexts') {
      const { loadKubeconfig } = await import('../../cluster/kubeconfig.js');
      io.out(loadKubeconfig({ kubeconfig: o.kubeconfig }).kc.getContexts().map((c) => `${c.name}\n`).join(''));
    }
  } catch {
    // nothing to offer
  }
  return ExitCode.ok;
}
