// `standup fix --context`: the merge precondition of a move, read from the cluster. Resources that leave a tier are
// deleted by that tier's prune when it reconciles the commit with the move, and the new tier applies them again only
// once the old one is Ready at that commit; so the old tier must be Ready at the current revision before the merge,
// or the resources stay deleted until it recovers. Reads only.
import type { FixPlan } from '../fix/fix-plan.js';
import type { ClusterFlags } from './cluster-flags.js';

/** One old tier's state on the cluster, and what it means for merging the move. */
export interface MergePrecondition {
  cluster: string;
  context: string;
  tier: string;
  /** The new tier the resources move to. */
  to: string;
  /** standup status's state (ready: Ready=True at the source's current revision). */
  state: string;
  reason: string;
  revision: string | null;
  ok: boolean;
  message: string;
}

/** The state of every tier the plan moves resources out of, on the cluster the flags select. */
export async function mergePreconditions(flags: ClusterFlags, plan: FixPlan, requestMs: number, env: NodeJS.ProcessEnv): Promise<MergePrecondition[]> {
  const [{ ensureReachable, readRunTarget }, { LiveState }, { statusRows }] = await Promise.all([
    import('./read-run-target.js'), import('../runner/live-state.js'), import('../ui/status-table.js'),
  ]);
  const t = await readRunTarget({ ...flags, timeout: undefined }, { bootstrap: 'none', checks: false, fallback: 'none', env }, requestMs);
  const moves = plan.moves.filter((m) => m.cluster === t.name);
  if (moves.length === 0) return [];
  await ensureReachable(t, requestMs);
  const controller = new AbortController();
  const live = new LiveState(t.client, controller.signal);
  try {
    await live.start();
    const rows = statusRows(t.ctx, live.kustomizations, (ks, key) => live.sourceOf(ks, t.ctx.graph.nodes.get(key)!.sourceRef));
    return moves.map((m) => {
      const row = rows.find((r) => r.key === m.from);
      const prunes = plan.costs.some((c) => c.cluster === m.cluster && c.from === m.from);
      const state = row?.state ?? 'not-found';
      const ok = state === 'ready';
      const at = row?.revision ? ` at ${row.revision}` : '';
      const message = ok
        ? `${m.from} is Ready${at}, the current revision: merging the move now ${prunes ? `deletes the resources once and ${m.to} applies them again one tier later` : 'moves the resources without deleting them (no prune)'}`
        : `${m.from} is not Ready at the current revision (${state}${row?.reason ? `, ${row.reason}` : ''}${row?.message ? `: ${row.message}` : ''}). ` +
          (prunes
            ? `If the move is merged now, ${m.from}'s prune deletes the resources when it reconciles the commit, and ${m.to} applies them again only once ${m.from} is Ready: until it recovers they do not exist. Make ${m.from} Ready first (standup resume), or merge with prune: false on it.`
            : `${m.to} applies the resources only once ${m.from} is Ready at the commit with the move; until then they stay as they are (no prune).`);
      return { cluster: t.name, context: t.guard.actualContext, tier: m.from, to: m.to, state, reason: row?.reason ?? '', revision: row?.revision ?? null, ok, message };
    });
  } finally {
    controller.abort();
  }
}
