import { REQUESTED_AT } from '../status/conditions.js';
import { kustomizationReadiness } from '../status/kustomization.js';
import { shortRevision } from '../status/revision.js';
import { sourceReadiness } from '../status/source.js';
import type { PlanContext } from '../plan/plan.js';
import type { TierResult } from './converge.js';
import type { Emit } from './events.js';
import { tierStepId } from './step-id.js';
import type { LiveState } from './live-state.js';
import type { StepTracker } from './steps.js';
import { refKey } from '../model/ref.js';

/**
 * What `up --dry-run` and `resume --dry-run` would do after the writes they dry-ran: fetch the source, then ask Flux to
 * reconcile every tier not already Ready, each once what it depends on is Ready. Every tier of the plan is named,
 * in order, whether or not Flux (or the tier) exists yet. Writes nothing.
 */
export function dryRunTiers(o: { ctx: PlanContext; steps: StepTracker; emit: Emit; live: LiveState | null }): TierResult[] {
  const { graph, plan, rootSync } = o.ctx;
  const src = refKey(rootSync.source);
  o.steps.start('source');
  o.emit({ type: 'change', id: 'source', object: src, change: { kind: 'annotate', key: REQUESTED_AT }, dryRun: true });
  o.steps.end('source', 'skipped', `dry run: would ask for a fetch of ${src} and wait for its artifact`);
  return plan.kustomizations.map((k): TierResult => {
    const id = tierStepId(k.key);
    const live = o.live?.kustomizations.get(k.key);
    const node = graph.nodes.get(k.key)!;
    const source = sourceReadiness(o.live?.sourceOf(live, node.sourceRef));
    const r = kustomizationReadiness(live, { sourceRevision: source.revision ?? undefined });
    o.steps.start(id);
    if (r.state === 'ready') {
      o.steps.end(id, 'skipped', `already Ready at ${shortRevision(r.revision)}`);
      return { key: k.key, result: 'skipped', revision: r.revision };
    }
    const deps = graph.deps.get(k.key) ?? [];
    const when = deps.length ? `once ${deps.join(', ')} ${deps.length > 1 ? 'are' : 'is'} Ready` : !live && node.parent ? `once ${node.parent} has applied it` : 'right away';
    o.emit({ type: 'change', id, object: `Kustomization/${k.key}`, change: { kind: 'annotate', key: REQUESTED_AT }, dryRun: true });
    o.steps.end(id, 'skipped', `dry run: would ask Flux to reconcile it ${when}, then wait for Ready`);
    return { key: k.key, result: 'skipped', revision: r.revision };
  });
}
