// What a Kustomization's healthCheckExprs say of the objects its health check waits on, for the three places a stuck
// tier is explained: `status`, the live line of up/resume, and the end-of-run diagnosis. The objects are read from the
// API (status) or the run's watches (a run); CEL is loaded only when a tier has healthCheckExprs and is stuck in its
// health check.
import type { LiveKustomization } from '../status/conditions.js';
import { celIfLoaded, loadCel } from '../status/cel.js';
import { healthExprLines, healthExprTargets, type ExprTarget } from '../status/health-exprs.js';
import type { Readiness } from '../status/kustomization.js';
import type { ObjRef } from '../model/ref.js';
import type { Look } from './live-state.js';

/**
 * The objects whose health is in question: those a failed health check named, all it covers while it runs (KC's
 * "Running health checks ..."), or null when the tier is not held by its health check.
 */
export function stuckInHealthCheck(r: Readiness): readonly ObjRef[] | 'all' | null {
  if (r.diagnosis?.type === 'health-check') return r.diagnosis.objects.length ? r.diagnosis.objects : 'all';
  if (r.state === 'failed' && r.reason === 'HealthCheckFailed') return 'all';
  if (r.state === 'progressing' && /running health checks/i.test(r.message)) return 'all';
  return null;
}

const targetsFor = (ks: LiveKustomization | undefined, r: Readiness): ExprTarget[] => {
  const objects = stuckInHealthCheck(r);
  return objects === null ? [] : healthExprTargets(ks, objects === 'all' ? undefined : objects);
};

/** `status`: each object read from the API (one GET each); an object that cannot be read is said so. */
export async function healthExprsFromApi(ks: LiveKustomization | undefined, r: Readiness, find: (ref: ObjRef & { apiVersion: string }) => Promise<unknown>): Promise<string[]> {
  const targets = targetsFor(ks, r);
  if (targets.length === 0) return [];
  const cel = await loadCel().catch(() => null);
  const objects = new Map<string, Record<string, unknown> | undefined>();
  const unreadable: string[] = [];
  for (const t of targets) {
    try {
      objects.set(t.object, (await find(t.ref)) as Record<string, unknown> | undefined);
    } catch (e) {
      unreadable.push(`${t.object}: not read (${e instanceof Error ? e.message.split('\n')[0] : String(e)}), so its healthCheckExprs[${t.match.index}] is not evaluated`);
    }
  }
  return [...healthExprLines(cel, targets.filter((t) => objects.has(t.object)), (t) => objects.get(t.object)), ...unreadable];
}

/**
 * A run: each object from the run's watches (of its kind and namespace, started on the first ask). Undefined while a
 * watch is still listing; CEL is loaded on the first ask and the expressions named until it is.
 */
export function healthExprsFromWatches(ks: LiveKustomization | undefined, r: Readiness, look: Look): string[] | undefined {
  const targets = targetsFor(ks, r);
  if (targets.length === 0) return [];
  const objects = new Map<string, Record<string, unknown> | undefined>();
  for (const t of targets) {
    const all = look({ apiVersion: t.ref.apiVersion, kind: t.ref.kind, ...(t.ref.namespace ? { namespace: t.ref.namespace } : {}) });
    if (all === undefined) return undefined;
    if (all === null) continue;
    objects.set(t.object, all.get(t.ref.namespace ? `${t.ref.namespace}/${t.ref.name}` : t.ref.name) as Record<string, unknown> | undefined);
  }
  return healthExprLines(celIfLoaded(), targets.filter((t) => objects.has(t.object)), (t) => objects.get(t.object));
}
