import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, ExitCode } from '../../model/errors.js';
import { PROBLEM_CODES, sortProblems, type Problem, type Severity } from '../../model/problem.js';
import type { CliCommand } from '../command.js';
import type { Io } from '../io.js';
import { collect, flagsOf, isDataFormat, outputFormat, renderDocument, type GlobalOptions } from '../options.js';
import { packageInfo } from '../package-info.js';
import { addSelectionFlags, NAMES_ARGUMENT, requireNames, selectionOf, type SelectionFlags } from '../selection.js';
import type { GateOptions, GateReport, OlderSide } from '../check-gate.js';

export interface CheckOptions extends GlobalOptions, GateOptions, SelectionFlags {
  /** Also write -o github's workflow commands to this file (the action: Markdown and annotations from one run). */
  annotations?: string;
  strict?: boolean;
  legacyOrder?: string;
  /** Show only problems at least this severe. */
  severity?: string;
  /** Show only these codes (repeatable). */
  code?: string[];
  verbose?: boolean;
}

const FORMATS = ['text', 'json', 'yaml', 'sarif', 'github', 'markdown'] as const;

export const checkCommand: CliCommand = {
  name: 'check',
  formats: FORMATS,
  explainsFormats: true,
  define: (command, cli) => addSelectionFlags(command
    .description('report every static problem at once: cycles, missing dependencies, runtime-created CRDs, drift')
    .argument('[names...]', `${NAMES_ARGUMENT}: their problems, and those of what they apply (every tier is still checked)`),
  'text: leave out the summary at the top, only the problems')
    .option('--strict', 'fail on warnings too')
    .option('--legacy-order <file>', 'compare a hand-kept TIER_ORDER (a script with TIER_ORDER=(...) or a list) with the graph')
    .option('--severity <level>', 'show only problems this severe or more: error, warning, info (default: all)')
    .option('--code <code>', 'show only problems with this code (repeatable)', collect)
    .option('--base [ref]', 'show and fail only on problems not present at the merge-base of HEAD and REF (default: the default branch)')
    .option('--no-fetch', 'with --base in a shallow checkout: never fetch, say which git fetch is needed')
    .option('--baseline <file>', 'show and fail only on problems not in this baseline file; entries no longer found are reported as fixed')
    .option('--annotations <file>', 'also write GitHub workflow commands (as -o github) to FILE, from the same run')
    .option('--baseline-write <file>', 'write every problem found to a baseline file (then exit 0)')
    .addHelpText('after', `
Output (-o): text (default), json, sarif (SARIF 2.1.0 for code scanning), github (workflow commands that
annotate a pull request), markdown (a PR comment or job summary).

Problem codes: cycle, missing-dependency, duplicate, runtime-crd, helmrelease-order, health-check-target,
unresolved-substitution, wait-dependency, cluster-drift, legacy-order, yaml-invalid, path-missing, build-failed,
external-source, source-ref, bootstrap-unreadable, ignore-unmatched, ignore-invalid. external-source is an info (a
tier whose source is not this repository, so it is not evaluated; never fails check), and so is source-ref (a tier
reading this repository at another branch or tag, built from that ref when git has it); the summary says how many
Kustomizations were evaluated.

runtime-crd knows what the bootstrap installs before Flux (helmfile releases and their hooks, bootstrap/
kustomize folders, tiers.yaml platform:), which charts ship which CRD groups, and the dependsOn graph: a
deadlock is an error, a race (converges only after retries) a warning. Suppress a finding with a reason in
tiers.yaml (ignore: [{code, object|tier|group, reason}]) or on the object
(annotation standup.io/ignore: "runtime-crd: installed by the NAS operator").

New-only gating: --base (in a pull request: against the merge-base with GITHUB_BASE_REF's branch) or --baseline
FILE show and fail only on problems the change introduces, and count the pre-existing ones. Problems are matched
by a fingerprint of what they are about (code, cluster, object, tier, CRD group, target), never by line, so edits
above a finding do not make it new. -o json gives each problem its "fingerprint", SARIF its partialFingerprints.

Examples:
  standup check                                       exit 2 on any error
  standup check --base                                only what this branch adds (exit 2 on a new error)
  standup check --baseline-write .standup-baseline.json   accept today's findings (commit the file)
  standup check --baseline .standup-baseline.json     then fail only on new ones
  standup check --severity error                      errors only
  standup check --code runtime-crd --verbose          every runtime-crd finding, every tier listed (and debug lines on stderr)
  standup check -o sarif > standup.sarif              upload with github/codeql-action/upload-sarif
  standup check -o github                             annotations in a GitHub Actions job (errors first, within GitHub's limits)
  standup check -n flux-system --no-header   only the problems of that namespace's Kustomizations, without the summary
  standup plan --no-header | awk '{print $2}' > order.txt && standup check --legacy-order order.txt   (a hand-kept list: what it misses)
  standup check -o json | jq '.problems[] | select(.severity=="error")'`)
    .action(async (names, o, cmd) => cli.exit(await check({ ...flagsOf(o, cmd), names }, cli.io))),
};

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/**
 * `standup check`: every static problem at once. Exit 2 on any error shown (and on warnings with --strict);
 * suppressed problems and those left out by --severity/--code never fail it.
 */
export async function check(o: CheckOptions, io: Io): Promise<number> {
  const format = outputFormat(o.output, FORMATS, 'text');
  const minSeverity = severityFlag(o.severity);
  const codes = codeFlags(o.code ?? []);
  const selection = selectionOf(o);
  const legacyOrder = o.legacyOrder ? await readLegacyOrder(o.legacyOrder, io.cwd) : undefined;
  const [{ loadAndPlan }, { checkRepository }, { bootstrapSummary }] = await Promise.all([
    import('../load-and-plan.js'), import('../check-repository.js'), import('../../lint/installers.js'),
  ]);
  const gate = await import('../check-gate.js');
  const mode = gate.gateMode(o);
  // The older side loads while the current one does; a failure there must not go unhandled meanwhile.
  const older: Promise<OlderSide> | undefined = mode === 'base' ? gate.loadMergeBaseProblems(o, io, path.resolve(io.cwd, o.repo ?? '.'), legacyOrder)
    : mode === 'baseline' ? gate.readBaseline(o.baseline!, io) : undefined;
  older?.catch(() => {});
  const { repo, contexts } = await loadAndPlan(o, io);
  const { bootstrap, kept, suppressed } = await checkRepository(repo, contexts, legacyOrder);
  let all = sortProblems(kept);
  let report: GateReport | undefined;
  if (mode) {
    ({ problems: all, report } = gate.applyGate(all, mode === 'write' ? await gate.writeBaseline(o.baselineWrite!, all, io) : await older!));
  }
  await requireNames(contexts.map((c) => c.cluster.kustomizations.map((k) => k.key)), contexts.map((c) => c.cluster.name), selection, 'plan', io);
  const { selectProblems } = await import('../../lint/select-problems.js');
  const selected = selectProblems(all, repo.clusters, selection);
  const problems = selected.filter((p) => RANK[p.severity] <= RANK[minSeverity] && (codes.length === 0 || codes.includes(p.code)));
  const installs = bootstrapSummary(repo.clusters, bootstrap);

  if (isDataFormat(format)) {
    const { fingerprintOf } = await import('../../lint/fingerprint.js');
    const { changedFiles: _, ...gateDoc } = report ?? {};
    io.out(renderDocument(format, {
      problems: problems.map((p) => ({ ...p, fingerprint: fingerprintOf(p) })),
      ...(report ? { gate: gateDoc } : {}),
      suppressed: sortProblems(suppressed),
      bootstrap: { installs: installs.map(({ name, groups, via, file, line }) => ({ name, groups, via, file, line })), platforms: bootstrap.platforms },
    }));
  } else if (format === 'sarif') {
    const { renderProblemsSarif } = await import('../../ui/problems-sarif.js');
    const toWorkspace = workspacePaths(repo.root, io);
    io.out(renderProblemsSarif(problems.map(toWorkspace), sortProblems(suppressed).map(toWorkspace) as typeof suppressed, packageInfo().version));
  } else if (format === 'github') {
    io.out(await githubCommands(problems, repo.root, report, io));
  } else if (format === 'markdown') {
    const [{ renderProblemsMarkdown }, { gateMarkdown }] = await Promise.all([import('../../ui/problems-markdown.js'), import('../../ui/problems-gate.js')]);
    io.out(renderProblemsMarkdown(problems, contexts.length, installs, suppressed.length, report ? gateMarkdown(report) : ''));
  } else {
    const [{ coverageOf, renderProblemsText }, { gateLines }] = await Promise.all([import('../../ui/problems-text.js'), import('../../ui/problems-gate.js')]);
    if (report && o.header !== false) io.out(gateLines(report, io.style).join('\n') + '\n');
    io.out(renderProblemsText(problems, contexts.length, io.style, {
      bootstrap: installs, suppressed: suppressed.length, hidden: all.length - problems.length, verbose: o.verbose,
      coverage: coverageOf(contexts.map((c) => c.cluster)), header: o.header !== false,
    }));
  }
  if (o.annotations) {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(path.resolve(io.cwd, o.annotations), await githubCommands(problems, repo.root, report, io));
  }
  const failing = problems.some((p: Problem) => p.severity === 'error' || (o.strict && p.severity === 'warning'));
  return failing ? ExitCode.config : ExitCode.ok;
}

/** -o github's workflow commands, with paths from the checkout root; with --base, files only where the change touched. */
async function githubCommands(problems: Problem[], repoRoot: string, report: GateReport | undefined, io: Io): Promise<string> {
  const { renderProblemsGithub } = await import('../../ui/problems-github.js');
  const toWorkspace = workspacePaths(repoRoot, io);
  if (report?.mode === 'base' && !report.changedFiles) report.changedFiles = await (await import('../../repo/merge-base.js')).changedSince(repoRoot, report.commit!);
  const changedFiles = report?.changedFiles?.map((file) => toWorkspace({ file } as Problem).file!);
  return renderProblemsGithub(problems.map(toWorkspace), { changedFiles });
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
  const { parseLegacyOrder } = await import('../../lint/rules/legacy-order.js');
  const tiers = parseLegacyOrder(text);
  if (tiers.length === 0) {
    throw new ConfigError('LEGACY_ORDER_EMPTY', `${file} holds no TIER_ORDER=(...) array and no tier names`,
      'Pass the script that holds TIER_ORDER=(...), or a file with one tier per line.');
  }
  return { file: path.relative(cwd, full) || file, tiers };
}
