// What the watches show of one ResourceSet and of what its static expansion says it generates, as the pure decision's
// view (rset-decision.ts). Never a request: the ResourceSets come from an on-demand watch, the Kustomizations and
// HelmReleases from LiveState's own.

import type { K8sObject } from '../cluster/client.js';
import type { FluxResourceSet } from '../model/flux.js';
import { parseRef } from '../model/ref.js';
import type { PlanContext } from '../plan/plan.js';
import type { LiveKustomization } from '../status/conditions.js';
import { kustomizationReadiness, type Readiness } from '../status/kustomization.js';
import { operatorReadiness, RECONCILE_ANNOTATION } from './flux-instance.js';
import type { LiveState } from './live-state.js';
import { resourceSetLine, type GeneratedView, type ResourceSetView } from './rset-decision.js';

export const RESOURCESET_KIND = { apiVersion: 'fluxcd.controlplane.io/v1', kind: 'ResourceSet' } as const;

/** How a tier of the run stands: ended Ready, ended otherwise, or not ended yet. */
export type TierStanding = 'done' | 'failed' | 'pending';

export interface ResourceSetLook {
  ctx: PlanContext;
  live: LiveState;
  /** How another tier (a Kustomization or ResourceSet of the plan) of this run stands; undefined: not in the run. */
  standing: (key: string) => TierStanding | undefined;
  /** A Kustomization's readiness as the run judges it (at its source's revision), else from the watch. */
  kustomization: (key: string) => Readiness;
  firstPass: boolean;
  timeoutMs: number;
}

const EXPANSION_UNKNOWN: Record<string, string> = {
  'build-failed': 'its templates did not render here (see `standup check`)',
  'inputs-unknown': 'its input providers are read at run time (tiers.yaml resourceSetInputs gives them)',
};

/** The view of `rs` now; undefined while the ResourceSet watch is still listing. */
export function observeResourceSet(rs: FluxResourceSet, x: ResourceSetLook): ResourceSetView | undefined {
  const all = x.live.watched({ ...RESOURCESET_KIND });
  if (all === undefined) return undefined;
  const live = (all?.get(`${rs.namespace}/${rs.name}`) ?? undefined) as LiveKustomization | undefined;
  const tierDeps = x.ctx.graph.deps.get(rs.key) ?? [];
  const standings = tierDeps.map((k) => [k, x.standing(k)] as const);
  const parentStanding = rs.parent !== null ? x.standing(rs.parent) : undefined;
  const resolved = x.ctx.graph.resourceSetDeps.get(rs.key) ?? [];
  return {
    key: rs.key,
    at: `${rs.origin.file}${rs.origin.line !== null ? `:${rs.origin.line}` : ''}`,
    readiness: operatorReadiness(live ?? null),
    exists: !!live,
    disabled: (live?.metadata.annotations?.[RECONCILE_ANNOTATION] ?? '').toLowerCase() === 'disabled',
    parent: rs.parent,
    parentDone: parentStanding === undefined || parentStanding === 'done',
    depsDone: standings.every(([, s]) => s === undefined || s === 'done'),
    depsFailed: [...standings.filter(([, s]) => s === 'failed').map(([k]) => k), ...(!live && parentStanding === 'failed' ? [rs.parent!] : [])],
    depsPending: standings.filter(([, s]) => s === 'pending').map(([k]) => k),
    otherDeps: resolved.filter((r) => r.tier === null).map((r) => `${r.target}${r.dep.ready ? ' Ready' : ''}`),
    generated: rs.expansion === 'built' ? generatedViews(rs, x) : { unknown: EXPANSION_UNKNOWN[rs.expansion] ?? rs.expansion },
    firstPass: x.firstPass,
    timeoutMs: x.timeoutMs,
  };
}

/** The generated Kustomizations and HelmReleases, with their readiness and their own dependsOn among them. */
function generatedViews(rs: FluxResourceSet, x: ResourceSetLook): GeneratedView[] {
  const mine = rs.generated.map(parseRef).filter((r) => r !== null && r.namespace !== null && (r.kind === 'Kustomization' || r.kind === 'HelmRelease'));
  const readiness = new Map<string, Readiness | null>();
  for (const r of mine) {
    const key = `${r!.namespace}/${r!.name}`;
    if (r!.kind === 'Kustomization') {
      const k = x.kustomization(key);
      readiness.set(`Kustomization/${key}`, k.state === 'not-found' ? null : k);
    } else {
      const hr = x.live.helmReleases.get(key);
      readiness.set(`HelmRelease/${key}`, hr ? kustomizationReadiness(hr as unknown as LiveKustomization) : null);
    }
  }
  return [...readiness.entries()].map(([ref, rd]) => ({
    ref,
    readiness: rd,
    after: dependsOnOf(ref, rs, x.ctx).filter((d) => readiness.has(d) && readiness.get(d)?.state !== 'ready'),
  }));
}

/** A generated object's own dependsOn, as `Kind/namespace/name` of the same kind (Flux orders only within a kind). */
function dependsOnOf(ref: string, rs: FluxResourceSet, ctx: PlanContext): string[] {
  const r = parseRef(ref)!;
  if (r.kind === 'Kustomization') return (ctx.graph.nodes.get(`${r.namespace}/${r.name}`)?.dependsOn ?? []).map((d) => `Kustomization/${d.key}`);
  const obj = ctx.cluster.objects.find((o) => o.owner === rs.key && o.kind === 'HelmRelease' && o.name === r.name && (o.namespace ?? rs.namespace) === r.namespace);
  const deps = ((obj?.raw as K8sObject | undefined)?.spec as { dependsOn?: { name?: unknown; namespace?: unknown }[] } | undefined)?.dependsOn;
  return (Array.isArray(deps) ? deps : []).filter((d) => typeof d?.name === 'string').map((d) => `HelmRelease/${typeof d.namespace === 'string' && d.namespace ? d.namespace : r.namespace}/${String(d.name)}`);
}

/** One ResourceSet as `status` shows it: Ready, or what it waits on now (rset-decision.ts's line). */
export interface ResourceSetStatus {
  key: string;
  level: number | null;
  ready: boolean;
  state: Readiness['state'];
  message: string;
}

/** The plan's ResourceSets as the watches show them; undefined while the ResourceSet watch is still listing. */
export function resourceSetStatuses(ctx: PlanContext, live: LiveState): ResourceSetStatus[] | undefined {
  const out: ResourceSetStatus[] = [];
  const ks = (key: string) => kustomizationReadiness(live.kustomizations.get(key));
  const rsReady = (key: string) => {
    const rs = ctx.graph.resourceSets.get(key);
    const all = live.watched({ ...RESOURCESET_KIND });
    return rs && all ? operatorReadiness((all.get(`${rs.namespace}/${rs.name}`) ?? null) as LiveKustomization | null).state === 'ready' : false;
  };
  const standing = (key: string): TierStanding | undefined =>
    ctx.graph.nodes.has(key) ? (ks(key).state === 'ready' ? 'done' : 'pending') : ctx.graph.resourceSets.has(key) ? (rsReady(key) ? 'done' : 'pending') : undefined;
  for (const p of ctx.plan.resourceSets ?? []) {
    const rs = ctx.graph.resourceSets.get(p.key);
    if (!rs) continue;
    const v = observeResourceSet(rs, { ctx, live, standing, kustomization: ks, firstPass: false, timeoutMs: Infinity });
    if (!v) return undefined;
    const ready = v.exists && v.readiness.state === 'ready';
    const waiting = v.depsPending.length && !v.exists ? `waiting for ${v.depsPending.join(', ')} (its dependsOn)` : resourceSetLine(v);
    out.push({ key: p.key, level: p.level, ready, state: v.exists ? v.readiness.state : 'not-found', message: v.disabled ? 'reconciliation disabled (fluxcd.controlplane.io/reconcile: disabled)' : ready ? v.readiness.message || 'Ready' : waiting });
  }
  return out;
}
