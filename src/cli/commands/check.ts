import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { lint } from '../../lint/index.js';
import { bootstrapSummary } from '../../lint/installers.js';
import { parseLegacyOrder } from '../../lint/rules/legacy-order.js';
import { applySuppressions } from '../../lint/suppress.js';
import { ConfigError, ExitCode } from '../../model/errors.js';
import { PROBLEM_CODES, sortProblems, type Problem, type Severity } from '../../model/problem.js';
import { readBootstrap } from '../../repo/bootstrap.js';
import { renderProblemsGithub } from '../../ui/problems-github.js';
import { renderProblemsMarkdown } from '../../ui/problems-markdown.js';
import { renderProblemsSarif } from '../../ui/problems-sarif.js';
import { coverageOf, renderProblemsText } from '../../ui/problems-text.js';
import type { Io } from '../io.js';
import { loadAndPlan } from '../load.js';
import { isDataFormat, outputFormat, renderDocument, type GlobalOptions } from '../options.js';
import { packageInfo } from '../package-info.js';

export interface CheckOptions extends GlobalOptions {
  strict?: boolean;
  legacyOrder?: string;
  /** Show only problems at least this severe. */
  severity?: string;
  /** Show only these codes (repeatable). */
  code?: string[];
  verbose?: boolean;
}

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/**
 * `standup check`: every static problem at once. Exit 2 on any error shown (and on warnings with --strict);
 * suppressed problems and those left out by --severity/--code never fail it.
 */
export async function check(o: CheckOptions, io: Io): Promise<number> {
  const format = outputFormat(o.output, ['text', 'json', 'yaml', 'sarif', 'github', 'markdown'] as const, 'text');
  const minSeverity = severityFlag(o.severity);
  const codes = codeFlags(o.code ?? []);
  const legacyOrder = o.legacyOrder ? await readLegacyOrder(o.legacyOrder, io.cwd) : undefined;
  const { repo, contexts } = await loadAndPlan(o, io);
  const bootstrap = readBootstrap(repo.root, repo.config, repo.clusters, repo.problems);
  const found = [...repo.problems, ...bootstrap.problems, ...lint({ clusters: contexts, config: repo.config, legacyOrder, bootstrap, loadProblems: repo.problems })];
  // tiers.yaml's parser (yaml, zod) only when there is a tiers.yaml: a warm check of a repository without one never loads it.
  const ignoreLines = repo.configFile ? (await import('../../repo/config.js')).ignoreEntryLines(await readFile(repo.configFile, 'utf8')) : [];
  const { kept, suppressed } = applySuppressions(found, repo.config, repo.clusters, ignoreLines);
  const all = sortProblems(kept);
  const problems = all.filter((p) => RANK[p.severity] <= RANK[minSeverity] && (codes.length === 0 || codes.includes(p.code)));
  const installs = bootstrapSummary(repo.clusters, bootstrap);

  if (isDataFormat(format)) {
    io.out(renderDocument(format, {
      problems,
      suppressed: sortProblems(suppressed),
      bootstrap: { installs: installs.map(({ name, groups, via, file, line }) => ({ name, groups, via, file, line })), platforms: bootstrap.platforms },
    }));
  } else if (format === 'sarif') {
    const toWorkspace = workspacePaths(repo.root, io);
    io.out(renderProblemsSarif(problems.map(toWorkspace), sortProblems(suppressed).map(toWorkspace) as typeof suppressed, packageInfo().version));
  } else if (format === 'github') {
    io.out(renderProblemsGithub(problems.map(workspacePaths(repo.root, io))));
  } else if (format === 'markdown') {
    io.out(renderProblemsMarkdown(problems, contexts.length, installs, suppressed.length));
  } else {
    io.out(renderProblemsText(problems, contexts.length, io.style, {
      bootstrap: installs, suppressed: suppressed.length, hidden: all.length - problems.length, verbose: o.verbose,
      coverage: coverageOf(contexts.map((c) => c.cluster)),
    }));
  }
  const failing = problems.some((p: Problem) => p.severity === 'error' || (o.strict && p.severity === 'warning'));
  return failing ? ExitCode.config : ExitCode.ok;
}

/**
 * GitHub places annotations and code-scanning results by paths relative to the checkout (GITHUB_WORKSPACE, else the
 * directory standup runs in), while problems name files relative to the Flux repository, which may be a folder of it.
 */
function workspacePaths(repoRoot: string, io: Io): <P extends Problem>(p: P) => P {
  const prefix = path.relative(path.resolve(io.env.GITHUB_WORKSPACE ?? io.cwd), repoRoot).split(path.sep).join('/');
  if (!prefix || prefix.startsWith('..') || path.isAbsolute(prefix)) return (p) => p;
  return (p) => (p.file ? { ...p, file: `${prefix}/${p.file}` } : p);
}

function severityFlag(value: string | undefined): Severity {
  if (value === undefined) return 'info';
  if (value === 'error' || value === 'warning' || value === 'info') return value;
  throw new ConfigError('BAD_FLAG', `unknown --severity "${value}"`, 'Use one of: error, warning, info (each includes the more severe ones).');
}

function codeFlags(values: string[]): Problem['code'][] {
  const unknown = values.filter((v) => !(PROBLEM_CODES as readonly string[]).includes(v));
  if (unknown.length) {
    throw new ConfigError('BAD_FLAG', `unknown --code ${unknown.map((u) => `"${u}"`).join(', ')}`, `Known codes: ${PROBLEM_CODES.join(', ')}.`);
  }
  return values as Problem['code'][];
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
