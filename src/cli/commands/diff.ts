import path from 'node:path';
import { ConfigError, ExitCode } from '../../model/errors.js';
import type { GraphDiff } from '../../plan/diff.js';
import type { ResolvedBase } from '../../repo/merge-base.js';
import type { DiffSides } from '../../ui/diff-markdown.js';
import type { UnorderedCluster } from '../../ui/unordered.js';
import type { Planned } from '../load-and-plan.js';
import type { CliCommand } from '../command.js';
import type { Io } from '../io.js';
import { flagsOf, isDataFormat, outputFormat, renderDocument, type GlobalOptions } from '../options.js';

export interface DiffOptions extends GlobalOptions {
  from?: string;
  to?: string;
  /** `--base` alone: the default branch; `--base REV`: that revision. Compared at the merge-base with --to. */
  base?: string | true;
  /** Exit 1 when the graph changed or the change adds an error, as `git diff --exit-code`. */
  exitCode?: boolean;
  /** `--no-fetch`: never fetch, even in a shallow checkout. */
  fetch?: boolean;
}

const FORMATS = ['text', 'json', 'yaml', 'markdown'] as const;

export const diffCommand: CliCommand = {
  name: 'diff',
  formats: FORMATS,
  define: (command, cli) => command
    .description('compare the graph of two clusters, of one cluster at two git revisions, or of a branch and its merge-base')
    .option('--from <rev>', 'the older revision (read from git, not the working tree)')
    .option('--to <rev>', 'the newer revision (default: HEAD)')
    .option('--base [rev]', 'compare with the merge-base of --to and REV (default: the default branch), as a pull request does')
    .option('--no-fetch', 'with --base in a shallow checkout: never fetch, say which git fetch is needed')
    .option('--exit-code', 'exit 1 when the graph changed or a revision adds an error (as git diff --exit-code), 0 when neither')
    .addHelpText('after', `
Besides tiers, edges and the levels that move (a tier that now starts later), a revision diff runs check on both
revisions and lists the problems the change adds and fixes (matched by fingerprint, as check --base does). It also lists objects that move from one Kustomization to another while the old
one has prune: true: Flux may delete and recreate them (the prune transient), and the message gives the safe move.

--base takes the default branch from the CI (GITHUB_BASE_REF in a pull request), else origin/HEAD, else main or
master. A shallow checkout (actions/checkout's default) lacks the base branch and the history down to the
merge-base: standup fetches them (git fetch --deepen in doubling steps), and says so on stderr; --no-fetch
prints the git fetch to run instead.

Examples:
  standup diff --from HEAD~1                    what the last commit changed, per cluster
  standup diff --base -o markdown               what a pull request changes (in a workflow: >> "$GITHUB_STEP_SUMMARY")
  standup diff --base --exit-code > /dev/null                   exit 1 if it changes the graph or adds an error`)
    .action(async (o, cmd) => cli.exit(await diff(flagsOf(o, cmd), cli.io))),
};

const USAGE = 'Compare two clusters (--cluster dev --cluster prod), one cluster at two revisions (--cluster prod --from main~1 [--to HEAD]), ' +
  'or the branch with where it left the default branch (--base).';

/**
 * `standup diff`: the graph of two clusters, or of one cluster at two git revisions (read from git, not the
 * working tree). Exit 0 whatever the difference unless --exit-code; automation reads `-o json`.
 */
export async function diff(o: DiffOptions, io: Io): Promise<number> {
  const format = outputFormat(o.output, FORMATS, 'text');
  if (o.base !== undefined && o.from !== undefined) throw new ConfigError('BAD_FLAG', '--base and --from both choose the older revision', `Pass one of them. ${USAGE}`);
  const [{ loadAndPlan, loadProgress, reportUnordered }, { diffPlans, isEmptyDiff, newErrors, renderDiffText }, { shareProgress }, ui] = await Promise.all([
    import('../load-and-plan.js'), import('../../plan/diff.js'), import('../../ui/progress.js'), import('../../ui/unordered.js'),
  ]);
  const sides: DiffSides[] = [];
  const unordered: UnorderedCluster[] = [];
  let base: ResolvedBase | undefined;
  const to = o.to ?? 'HEAD';
  let all: Planned['contexts'] = [];
  if (o.from !== undefined || o.base !== undefined) {
    if (o.base !== undefined) {
      const { resolveMergeBase } = await import('../../repo/merge-base.js');
      base = await resolveMergeBase(path.resolve(o.repo ?? '.'), {
        base: o.base === true ? undefined : o.base,
        head: to,
        fetch: o.fetch !== false,
        env: io.env,
        note: (m) => io.err(io.errStyle.dim(`${m}\n`)),
      });
    }
    const fromRev = base?.commit ?? o.from!;
    const fromLabel = base ? base.commit.slice(0, 12) : o.from!;
    // One progress line for both loads, which run at once.
    const progress = loadProgress(io);
    const [pa, pb] = shareProgress(progress, 2);
    const [a, b] = await Promise.all([loadAndPlan(o, io, fromRev, 'all', pa), loadAndPlan(o, io, to, 'all', pb)]).finally(() => progress.stop());
    all = b.contexts;
    unordered.push(...unbuilt(a, fromLabel), ...unbuilt(b, to));
    // check on both revisions: what the change breaks and fixes, by fingerprint.
    const { problemsChange } = await import('../diff-problems.js');
    const change = await problemsChange(a, b);
    for (const ctxA of a.contexts) {
      const ctxB = b.contexts.find((c) => c.cluster.name === ctxA.cluster.name);
      if (!ctxB || unordered.some((u) => u.name === ctxA.cluster.name)) continue;
      const d = diffPlans(ctxA, ctxB, { from: `${ctxA.cluster.name}@${fromLabel}`, to: `${ctxB.cluster.name}@${to}` });
      sides.push({ diff: { ...d, ...change(ctxA.cluster.name) }, from: ctxA, to: ctxB });
    }
  } else {
    if (o.to) throw new ConfigError('BAD_FLAG', '--to needs --from or --base', USAGE);
    if (o.cluster.length !== 2) throw new ConfigError('BAD_FLAG', `diff needs two clusters, got ${o.cluster.length}`, USAGE);
    const loaded = await loadAndPlan(o, io);
    all = loaded.contexts;
    unordered.push(...unbuilt(loaded));
    const [a, b] = o.cluster.map((name) => loaded.contexts.find((c) => c.cluster.name === name)!);
    if (unordered.length === 0) sides.push({ diff: diffPlans(a!, b!, { from: a!.cluster.name, to: b!.cluster.name }), from: a!, to: b! });
  }
  const diffs: GraphDiff[] = sides.map((s) => s.diff);
  if (isDataFormat(format)) {
    io.out(renderDocument(format, {
      ...(base ? { base: { ref: base.ref, commit: base.commit, head: to } } : {}),
      diffs,
      ...(unordered.length ? { unordered: ui.unorderedJson(unordered) } : {}),
    }));
  } else if (format === 'markdown') {
    const { renderDiffMarkdown } = await import('../../ui/diff-markdown.js');
    const md = sides.length ? renderDiffMarkdown(sides, base ? { ref: base.ref, commit: base.commit, head: to } : undefined) : '';
    io.out([md, unordered.length ? ui.renderUnorderedMarkdown(unordered) : ''].filter(Boolean).join('\n'));
  } else {
    if (base) io.err(io.errStyle.dim(`comparing with the merge-base of ${base.ref} and ${to}: ${base.commit.slice(0, 12)}\n`));
    io.out([diffs.map(renderDiffText).join('\n'), unordered.length ? ui.renderUnorderedText(unordered, io.style) : ''].filter(Boolean).join('\n'));
  }
  if (unordered.length) {
    reportUnordered(unordered, all, io);
    return ExitCode.config;
  }
  return o.exitCode && diffs.some((d) => !isEmptyDiff(d) || newErrors(d) > 0) ? ExitCode.failure : ExitCode.ok;
}

/**
 * Clusters whose entry does not build on a side: no graph to compare (a cycle still has one, and the diff names it
 * as a new problem). `at` names the revision in the mark.
 */
function unbuilt({ repo, contexts }: Planned, at?: string): UnorderedCluster[] {
  return contexts.flatMap((c) => {
    const problems = repo.problems.filter((p) => p.code === 'build-failed' && p.severity === 'error' && p.cluster === c.cluster.name && p.file === c.cluster.entry);
    return problems.length ? [{ name: at ? `${c.cluster.name}@${at}` : c.cluster.name, entry: c.cluster.entry, problems }] : [];
  });
}
