import { ConfigError, ExitCode } from '../../model/errors.js';
import type { CliCommand } from '../command.js';
import type { Io } from '../io.js';

export const explainCommand: CliCommand = {
  name: 'explain',
  readsRepository: false,
  define: (command, cli) => command
    .description('what a problem code of check means, and an example of the fix')
    .argument('[code]', 'a problem code, as check prints it (without one: every code)')
    .addHelpText('after', `
Examples:
  standup explain runtime-crd
  standup explain                       every code with its one-line summary`)
    .action(async (code) => cli.exit(await explain(code, cli.io))),
};

/** `standup explain CODE`: the text SARIF's rule help has, and an example of the fix; no code lists them all. */
export async function explain(code: string | undefined, io: Io): Promise<number> {
  const [{ CODE_HELP }, { CODE_FIXES }, { PROBLEM_CODES }, { nearNames }] = await Promise.all([
    import('../../lint/codes.js'), import('../../lint/code-fixes.js'), import('../../model/problem.js'), import('../../model/near.js'),
  ]);
  if (code === undefined) {
    const width = Math.max(...PROBLEM_CODES.map((c) => c.length));
    io.out(PROBLEM_CODES.map((c) => `${c.padEnd(width)}  ${CODE_HELP[c].summary}`).join('\n') + '\n');
    return ExitCode.ok;
  }
  if (!(PROBLEM_CODES as readonly string[]).includes(code)) {
    const near = nearNames(code, PROBLEM_CODES);
    throw new ConfigError('BAD_ARGUMENT', `unknown problem code "${code}"`,
      `${near.length ? `Did you mean ${near.join(' or ')}? ` : ''}\`standup explain\` lists them all.`);
  }
  const c = code as (typeof PROBLEM_CODES)[number];
  io.out(`${io.style.bold(c)}: ${CODE_HELP[c].summary}\n\n${CODE_HELP[c].help}\n\nExample of the fix:\n\n${CODE_FIXES[c].split('\n').map((l) => `  ${l}`).join('\n')}\n`);
  return ExitCode.ok;
}
