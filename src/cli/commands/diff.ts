import path from 'node:path';
import { ConfigError, ExitCode } from '../../model/errors.js';
import { diffPlans, isEmptyDiff, renderDiffText, type GraphDiff } from '../../plan/diff.js';
import { resolveMergeBase, type ResolvedBase } from '../../repo/merge-base.js';
import { renderDiffMarkdown, type DiffSides } from '../../ui/diff-markdown.js';
import type { Io } from '../io.js';
import { loadAndPlan, loadProgress } from '../load.js';
import { shareProgress } from '../../ui/progress.js';
import { isDataFormat, outputFormat, renderDocument, type GlobalOptions } from '../options.js';

export interface DiffOptions extends GlobalOptions {
  from?: string;
  to?: string;
  /** `--base` alone: the default branch; `--base REV`: that revision. Compared at the merge-base with --to. */
  base?: string | true;
  /** Exit 1 when the graph changed, as `git diff --exit-code`. */
  exitCode?: boolean;
  /** `--no-fetch`: never fetch, even in a shallow checkout. */
  fetch?: boolean;
}

const FORMATS = ['text', 'json', 'yaml', 'markdown'] as const;

const USAGE = 'Compare two clusters (--cluster dev --cluster prod), one cluster at two revisions (--cluster prod --from main~1 [--to HEAD]), ' +
  'or the branch with where it left the default branch (--base).';

/**
 * `standup diff`: the graph of two clusters, or of one cluster at two git revisions (read from git, not the
 * working tree). Exit 0 whatever the difference unless --exit-code; automation reads `-o json`.
 */
export async function diff(o: DiffOptions, io: Io): Promise<number> {
  const format = outputFormat(o.output, FORMATS, 'text');
  if (o.base !== undefined && o.from !== undefined) throw new ConfigError('BAD_FLAG', '--base and --from both choose the older revision', `Pass one of them. ${USAGE}`);
  const sides: DiffSides[] = [];
  let base: ResolvedBase | undefined;
  const to = o.to ?? 'HEAD';
  if (o.from !== undefined || o.base !== undefined) {
    if (o.base !== undefined) {
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
    for (const ctxA of a.contexts) {
      const ctxB = b.contexts.find((c) => c.cluster.name === ctxA.cluster.name);
      if (!ctxB) continue;
      sides.push({ diff: diffPlans(ctxA, ctxB, { from: `${ctxA.cluster.name}@${fromLabel}`, to: `${ctxB.cluster.name}@${to}` }), from: ctxA, to: ctxB });
    }
  } else {
    if (o.to) throw new ConfigError('BAD_FLAG', '--to needs --from or --base', USAGE);
    if (o.cluster.length !== 2) throw new ConfigError('BAD_FLAG', `diff needs two clusters, got ${o.cluster.length}`, USAGE);
    const { contexts } = await loadAndPlan(o, io);
    const [a, b] = o.cluster.map((name) => contexts.find((c) => c.cluster.name === name)!);
    sides.push({ diff: diffPlans(a!, b!, { from: a!.cluster.name, to: b!.cluster.name }), from: a!, to: b! });
  }
  const diffs: GraphDiff[] = sides.map((s) => s.diff);
  if (isDataFormat(format)) {
    io.out(renderDocument(format, { ...(base ? { base: { ref: base.ref, commit: base.commit, head: to } } : {}), diffs }));
  } else if (format === 'markdown') {
    io.out(renderDiffMarkdown(sides, base ? { ref: base.ref, commit: base.commit, head: to } : undefined));
  } else {
    if (base) io.err(io.errStyle.dim(`comparing with the merge-base of ${base.ref} and ${to}: ${base.commit.slice(0, 12)}\n`));
    io.out(diffs.map(renderDiffText).join('\n'));
  }
  return o.exitCode && diffs.some((d) => !isEmptyDiff(d)) ? ExitCode.failure : ExitCode.ok;
}
