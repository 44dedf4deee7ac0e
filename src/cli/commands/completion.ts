import type { Command, Option } from '@commander-js/extra-typings';
import { loadKubeconfig } from '../../cluster/kubeconfig.js';
import { ConfigError, ExitCode } from '../../model/errors.js';
import { readConfig } from '../../repo/config.js';
import { discoverRepository } from '../../repo/load.js';
import { findGitRoot } from '../../repo/git.js';
import { completionScript, type CompletionSpec, type FlagSpec } from '../completion.js';
import type { Io } from '../io.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/**
 * What `-o` accepts per command, for completion. test/cli/completion.test.ts checks it against what each command
 * really accepts, so the two cannot drift apart.
 */
export const OUTPUT_FORMATS: Record<string, string[]> = {
  plan: ['text', 'json', 'yaml', 'markdown'],
  graph: ['text', 'mermaid', 'dot', 'json', 'yaml'],
  check: ['text', 'json', 'yaml', 'sarif', 'github', 'markdown'],
  diff: ['text', 'json', 'yaml', 'markdown'],
  up: ['text', 'json', 'yaml'],
  resume: ['text', 'json', 'yaml'],
  crds: ['text', 'json', 'yaml'],
  status: ['text', 'wide', 'json', 'yaml'],
  reset: ['text', 'json', 'yaml'],
  version: ['text', 'json', 'yaml'],
};

/** `standup completion SHELL`: the script on stdout. */
export function completion(shell: string, program: Command, io: Io): number {
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw new ConfigError('BAD_ARGUMENT', `no completion for shell "${shell}"`, `Use one of: ${SHELLS.join(', ')}.`);
  }
  io.out(completionScript(shell as (typeof SHELLS)[number], specOf(program)));
  return ExitCode.ok;
}

/** The command tree as completion sees it: visible commands and flags, with what -o takes per command. */
export function specOf(program: Command): CompletionSpec {
  const help = program.createHelp();
  const flag = (o: Option): FlagSpec => ({ short: o.short, long: o.long, value: o.required || o.optional, description: o.description });
  const commands = help.visibleCommands(program as never) as unknown as Command[];
  const globals = help.visibleOptions(program as never).map((o) => flag(o as unknown as Option));
  // After a command, the program's own --version and --help are not what one completes (the command has --help).
  const inherited = globals.filter((f) => f.long !== '--version' && f.long !== '--help');
  return {
    program: program.name(),
    globals,
    commands: commands.map((c) => ({
      name: c.name(),
      description: c.description(),
      flags: ownThenInherited(help.visibleOptions(c as never).map((o) => flag(o as unknown as Option)), inherited),
      formats: OUTPUT_FORMATS[c.name()] ?? [],
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
      const root = o.repo ?? (await findGitRoot(io.cwd)) ?? io.cwd;
      const { config } = await readConfig(root);
      const names = Object.keys(config.clusters);
      io.out((names.length ? names : (await discoverRepository(root)).entries.map((e) => e.name)).map((n) => `${n}\n`).join(''));
    } else if (what === 'contexts') {
      io.out(loadKubeconfig({ kubeconfig: o.kubeconfig }).kc.getContexts().map((c) => `${c.name}\n`).join(''));
    }
  } catch {
    // nothing to offer
  }
  return ExitCode.ok;
}
