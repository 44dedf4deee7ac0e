// flux-operator ResourceSets as steps of a run: one step each, waited on beside the Kustomizations by converge
// (rset-decision.ts says when one starts, what its line names and how it ends). Which ones, and what they depend on,
// come from the plan's static model of them (src/resourceset's expansion).

import type { FluxResourceSet } from '../model/flux.js';
import type { PlanContext } from '../plan/plan.js';
import type { StepInfo } from './events.js';
import type { RunTarget } from './run-target.js';
import { resourceSetStepId } from './step-id.js';
import type { StepTracker } from './steps.js';

/** The plan's ResourceSets, in plan order. */
export function plannedResourceSets(ctx: PlanContext): FluxResourceSet[] {
  return (ctx.plan.resourceSets ?? []).flatMap((p) => {
    const rs = ctx.graph.resourceSets.get(p.key);
    return rs ? [rs] : [];
  });
}

export const resourceSetSteps = (t: RunTarget): StepInfo[] => {
  const levels = new Map((t.ctx.plan.resourceSets ?? []).map((p) => [p.key, p.level]));
  return plannedResourceSets(t.ctx).map((rs) => ({
    id: resourceSetStepId(`${rs.namespace}/${rs.name}`),
    kind: 'resourceset',
    title: `ResourceSet ${rs.namespace}/${rs.name}`,
    level: levels.get(rs.key) ?? undefined,
    dependsOn: [...new Set([...(t.ctx.graph.deps.get(rs.key) ?? []), ...(rs.parent ? [rs.parent] : [])])],
  }));
};

/** --dry-run: what standup would wait for, each ResourceSet named with what it waits on first. */
export function dryRunResourceSets(ctx: PlanContext, steps: StepTracker): void {
  for (const rs of plannedResourceSets(ctx)) {
    const id = resourceSetStepId(`${rs.namespace}/${rs.name}`);
    if (steps.ended(id)) continue;
    const deps = ctx.graph.deps.get(rs.key) ?? [];
    const made = rs.generated.filter((g) => g.startsWith('Kustomization/') || g.startsWith('HelmRelease/'));
    steps.start(id);
    steps.end(id, 'skipped', `dry run: would wait for it to be Ready${deps.length ? ` once ${deps.join(', ')} ${deps.length > 1 ? 'are' : 'is'} Ready` : ''}${made.length ? `, with ${made.join(', ')}` : ''}`);
  }
}
