import { ConfigError, ExitCode } from '../../model/errors.js';
import { diffPlans, renderDiffText, type GraphDiff } from '../../plan/diff.js';
import type { Io } from '../io.js';
import { loadAndPlan } from '../load.js';
import { outputFormat, type GlobalOptions } from '../options.js';

export interface DiffOptions extends GlobalOptions {
  from?: string;
  to?: string;
}

const USAGE = 'Compare two clusters (--cluster dev --cluster prod) or one cluster at two revisions (--cluster prod --from main~1 [--to HEAD]).';

/**
 * `standup diff`: the graph of two clusters, or of one cluster at two git revisions (read from git, not the
 * working tree). Exit 0 whatever the difference; automation reads `-o json`.
 */
export async function diff(o: DiffOptions, io: Io): Promise<number> {
  const format = outputFormat(o.output, ['text', 'json'] as const, 'text');
  const diffs: GraphDiff[] = [];
  if (o.from) {
    const [a, b] = await Promise.all([loadAndPlan(o, io, o.from), loadAndPlan(o, io, o.to ?? 'HEAD')]);
    for (const ctxA of a.contexts) {
      const ctxB = b.contexts.find((c) => c.cluster.name === ctxA.cluster.name);
      if (!ctxB) continue;
      diffs.push(diffPlans(ctxA, ctxB, { from: `${ctxA.cluster.name}@${o.from}`, to: `${ctxB.cluster.name}@${o.to ?? 'HEAD'}` }));
    }
  } else {
    if (o.to) throw new ConfigError('BAD_FLAG', '--to needs --from', USAGE);
    if (o.cluster.length !== 2) throw new ConfigError('BAD_FLAG', `diff needs two clusters, got ${o.cluster.length}`, USAGE);
    const { contexts } = await loadAndPlan(o, io);
    const [a, b] = o.cluster.map((name) => contexts.find((c) => c.cluster.name === name)!);
    diffs.push(diffPlans(a!, b!, { from: a!.cluster.name, to: b!.cluster.name }));
  }
  io.out(format === 'json' ? JSON.stringify({ diffs }, null, 2) + '\n' : diffs.map(renderDiffText).join('\n'));
  return ExitCode.ok;
}
