// diff on two revisions: check on each, and the problems the newer one adds and fixes, per cluster, matched by
// fingerprint as `check --base` matches them.
import { fingerprintOf, matchProblems } from '../lint/fingerprint.js';
import type { GraphDiff } from '../plan/diff.js';
import { checkRepository } from './check-repository.js';
import type { Planned } from './load-and-plan.js';

/** For a cluster's name, its problemsAdded and problemsFixed from `older` to `newer`. */
export async function problemsChange(older: Planned, newer: Planned): Promise<(cluster: string) => Pick<GraphDiff, 'problemsAdded' | 'problemsFixed'>> {
  const [a, b] = await Promise.all([checkRepository(older.repo, older.contexts), checkRepository(newer.repo, newer.contexts)]);
  return (cluster) => {
    const mine = (ps: typeof a.kept) => ps.filter((p) => p.cluster === cluster);
    const known = mine(a.kept).map((p) => ({ ...p, fingerprint: fingerprintOf(p) }));
    const m = matchProblems(mine(b.kept), known);
    return {
      problemsAdded: m.added.map((p) => ({ ...p, fingerprint: fingerprintOf(p) })),
      problemsFixed: m.fixed.map(({ fingerprint, code, severity, object, message }) => ({ fingerprint, code, severity, object, message })),
    };
  };
}
