import { existsSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, ExitCode } from '../../model/errors.js';
import type { CliCommand } from '../command.js';
import type { Io } from '../io.js';
import { flagsOf, type GlobalOptions } from '../options.js';
import { packageInfo } from '../package-info.js';

export interface InitOptions extends GlobalOptions {
  force?: boolean;
}

export const initCommand: CliCommand = {
  name: 'init',
  define: (command, cli) => command
    .description('write a commented tiers.yaml from what standup finds in the repository')
    .option('--force', 'overwrite an existing tiers.yaml')
    .addHelpText('after', `
Writes tiers.yaml at the repository root: every cluster discovered (its entry path and root source), the Flux
install manifests beside it, the platform when the repository shows it, and the other keys as comments.

Examples:
  standup init --repo /path/to/flux-repo     then read it, pin each cluster's context, and run standup check`)
    .action(async (o, cmd) => cli.exit(await init(flagsOf(o, cmd), cli.io))),
};

/** `standup init`: tiers.yaml from discovery; refuses to overwrite one without --force (exit 2). */
export async function init(o: InitOptions, io: Io): Promise<number> {
  const [{ loadAndPlan }, { readPreFluxInstalls }, { initConfigText }, { parseConfig }] = await Promise.all([
    import('../load-and-plan.js'), import('../../bootstrap/pre-flux-installs.js'), import('../init-config.js'), import('../../repo/tiers-yaml-parser.js'),
  ]);
  const { repo } = await loadAndPlan(o, io, undefined, 'graph');
  const file = path.join(repo.root, 'tiers.yaml');
  if (existsSync(file) && !o.force) {
    throw new ConfigError('CONFIG_EXISTS', `${path.relative(io.cwd, file) || file} exists already`, 'Edit it, or pass --force to write it again from what standup finds.');
  }
  const bootstrap = readPreFluxInstalls(repo.root, repo.config, repo.clusters, repo.problems, repo.memo);
  const text = initConfigText({
    version: packageInfo().version,
    clusters: repo.clusters,
    platforms: bootstrap.platforms.filter((p) => p.from !== 'tiers.yaml'),
    exists: (f) => existsSync(path.join(repo.root, f)),
  });
  parseConfig(text, 'tiers.yaml'); // what init writes must pass the schema check reads it with
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
  io.err(`wrote ${path.relative(io.cwd, file) || file}: ${repo.clusters.length} cluster(s); pin each one's context, then run \`standup check\`\n`);
  return ExitCode.ok;
}
