import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { lint } from '../../lint/index.js';
import { parseLegacyOrder } from '../../lint/rules/legacy-order.js';
import { ConfigError, ExitCode } from '../../model/errors.js';
import { sortProblems } from '../../model/problem.js';
import { coverageOf, renderProblemsText } from '../../ui/problems-text.js';
import type { Io } from '../io.js';
import { loadAndPlan } from '../load.js';
import { outputFormat, type GlobalOptions } from '../options.js';

export interface CheckOptions extends GlobalOptions {
  strict?: boolean;
  legacyOrder?: string;
}

/** `standup check`: every static problem at once. Exit 2 on any error (and on warnings with --strict). */
export async function check(o: CheckOptions, io: Io): Promise<number> {
  const format = outputFormat(o.output, ['text', 'json'] as const, 'text');
  const legacyOrder = o.legacyOrder ? await readLegacyOrder(o.legacyOrder, io.cwd) : undefined;
  const { repo, contexts } = await loadAndPlan(o, io);
  const problems = sortProblems([...repo.problems, ...lint({ clusters: contexts, config: repo.config, legacyOrder })]);
  io.out(format === 'json' ? JSON.stringify({ problems }, null, 2) + '\n' : renderProblemsText(problems, contexts.length, io.style, coverageOf(contexts.map((c) => c.cluster))));
  const failing = problems.some((p) => p.severity === 'error' || (o.strict && p.severity === 'warning'));
  return failing ? ExitCode.config : ExitCode.ok;
}

async function readLegacyOrder(file: string, cwd: string) {
  const full = path.resolve(cwd, file);
  let text: string;
  try {
    text = await readFile(full, 'utf8');
  } catch (e) {
    throw new ConfigError('LEGACY_ORDER_UNREADABLE', `cannot read --legacy-order ${file}: ${(e as Error).message}`,
      'Pass the script that holds TIER_ORDER=(...), or a file with one tier per line.');
  }
  const tiers = parseLegacyOrder(text);
  if (tiers.length === 0) {
    throw new ConfigError('LEGACY_ORDER_EMPTY', `${file} holds no TIER_ORDER=(...) array and no tier names`,
      'Pass the script that holds TIER_ORDER=(...), or a file with one tier per line.');
  }
  return { file: path.relative(cwd, full) || file, tiers };
}
