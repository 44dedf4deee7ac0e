// A Kustomization's `healthCheckExprs` as kustomize-controller applies them in its health check (fluxcd/pkg
// runtime/cel status_reader.go and status_evaluator.go): an object whose GroupKind has an entry is judged by that
// entry's CEL instead of kstatus. Pure: the objects and the CEL engine are handed in.
//
// - Which entry: the one whose apiVersion's group and kind are the object's; else one with the group and no kind
//   (it covers the whole group). The version is not compared. Two entries for one GroupKind: newer controllers refuse
//   the Kustomization (InvalidCELExpression, which its Ready message says), older ones use the first; the first here.
// - How: status.observedGeneration and metadata.generation, both integers and different -> InProgress. Then
//   `inProgress`, `failed`, `current`, in that order (RFC 0009): the first that is true decides. None true ->
//   InProgress. An expression that fails (a field the object does not have yet) makes the status Unknown with that
//   error, and the health check keeps waiting.
// - The variables are the object's top-level fields (`metadata`, `spec`, `status`, ...), its integers CEL ints as
//   Kubernetes' unstructured objects give them to cel-go.
// No entry for the object: kstatus decides, as before (status/deployment.ts and Flux's own message).
import { evaluateBoolean, type CelEngine } from './cel.js';
import { parseInventoryId } from './inventory.js';
import { groupOf, refKey, type ObjRef } from '../model/ref.js';

export interface HealthCheckExpr {
  apiVersion: string;
  kind?: string;
  current: string;
  inProgress?: string;
  failed?: string;
}

export type ExprName = 'inProgress' | 'failed' | 'current';

/** kstatus' words, as Flux prints them. */
export type HealthStatus = 'Current' | 'InProgress' | 'Failed' | 'Unknown';

export interface HealthExprVerdict {
  /** The entry that judged the object (its index in spec.healthCheckExprs). */
  index: number;
  entry: HealthCheckExpr;
  status: HealthStatus;
  /** What decided: the generation check, the first true expression, none true, or an expression that failed. */
  by: 'generation' | ExprName | 'none' | 'error';
  /** Each expression evaluated, in order, and what it gave (null: it failed here, `error` says why). */
  steps: { name: ExprName; text: string; result: boolean | null; error?: string }[];
  /** For `generation`: the two numbers. */
  generation?: { generation: number; observed: number };
}

/** spec.healthCheckExprs of a Kustomization, the well-formed entries only (apiVersion and current strings). */
export function healthCheckExprsOf(ks: { spec?: unknown } | undefined): HealthCheckExpr[] {
  const list = (ks?.spec as { healthCheckExprs?: unknown } | undefined)?.healthCheckExprs;
  if (!Array.isArray(list)) return [];
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return list.flatMap((e: Record<string, unknown>) => {
    const apiVersion = str(e?.apiVersion);
    const current = str(e?.current);
    if (!apiVersion || !current) return [];
    const kind = str(e.kind);
    const inProgress = str(e.inProgress);
    const failed = str(e.failed);
    return [{ apiVersion, current, ...(kind ? { kind } : {}), ...(inProgress ? { inProgress } : {}), ...(failed ? { failed } : {}) }];
  });
}

/** The entry kustomize-controller uses for an object of this group and kind, with its index; null: kstatus decides. */
export function matchHealthCheckExpr(exprs: readonly HealthCheckExpr[], group: string, kind: string): { entry: HealthCheckExpr; index: number } | null {
  const exact = exprs.findIndex((e) => groupOf(e.apiVersion) === group && e.kind === kind);
  const index = exact >= 0 ? exact : exprs.findIndex((e) => groupOf(e.apiVersion) === group && !e.kind);
  return index >= 0 ? { entry: exprs[index]!, index } : null;
}

/** The object's health by one entry, as kustomize-controller's StatusEvaluator computes it. */
export function evaluateHealthExpr(cel: CelEngine, match: { entry: HealthCheckExpr; index: number }, obj: Record<string, unknown>): HealthExprVerdict {
  const { entry, index } = match;
  const base = { index, entry };
  const observed = (obj.status as { observedGeneration?: unknown } | undefined)?.observedGeneration;
  const generation = (obj.metadata as { generation?: unknown } | undefined)?.generation;
  if (Number.isInteger(observed) && Number.isInteger(generation) && observed !== generation) {
    return { ...base, status: 'InProgress', by: 'generation', steps: [], generation: { generation: generation as number, observed: observed as number } };
  }
  const vars = celInts(obj) as Record<string, unknown>;
  const steps: HealthExprVerdict['steps'] = [];
  const order: [ExprName, HealthStatus][] = [['inProgress', 'InProgress'], ['failed', 'Failed'], ['current', 'Current']];
  for (const [name, status] of order) {
    const text = entry[name];
    if (!text) continue;
    const r = evaluateBoolean(cel, text, vars);
    if (!r.ok) {
      steps.push({ name, text, result: null, error: r.error });
      return { ...base, status: 'Unknown', by: 'error', steps };
    }
    steps.push({ name, text, result: r.value });
    if (r.value) return { ...base, status, by: name, steps };
  }
  return { ...base, status: 'InProgress', by: 'none', steps };
}

/** Integers as CEL ints (bigint), the rest as is: what cel-go sees in an unstructured object. */
export function celInts(v: unknown): unknown {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(celInts);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, celInts(x)]));
  return v;
}

const shown = (text: string): string => {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > 100 ? `${t.slice(0, 97)}...` : t;
};

/**
 * The verdict in a few words: `InProgress by healthCheckExprs[0]: current \`status.phase == 'Ready'\` is false` (every
 * expression evaluated, the deciding one last).
 */
export function describeHealthExpr(v: HealthExprVerdict): string {
  const head = `${v.status} by healthCheckExprs[${v.index}] (${v.entry.kind ? `${v.entry.kind}.` : 'any kind of '}${groupOf(v.entry.apiVersion) || 'core'})`;
  if (v.by === 'generation') return `${head}: generation ${v.generation!.generation} not observed yet (status.observedGeneration ${v.generation!.observed})`;
  const parts = v.steps.map((s) => (s.result === null ? `${s.name} \`${shown(s.text)}\` failed: ${s.error}` : `${s.name} \`${shown(s.text)}\` is ${s.result}`));
  const tail = v.by === 'none' ? '; none is true, so InProgress' : '';
  return `${head}: ${parts.join(', ')}${tail}`;
}

/** An object a Kustomization's health check judges by one of its healthCheckExprs, and the apiVersion to read it at. */
export interface ExprTarget {
  /** `Kind/namespace/name` or `Kind/name`. */
  object: string;
  ref: ObjRef & { apiVersion: string };
  match: { entry: HealthCheckExpr; index: number };
}

interface KsLike {
  metadata?: { namespace?: string };
  spec?: unknown;
  status?: { inventory?: { entries?: { id: string; v?: string }[] } };
}

/**
 * The objects among `objects` (default: what the health check covers: the inventory with `wait: true`, else
 * spec.healthChecks) that a healthCheckExprs entry judges, at most `limit`. An object's group comes from the
 * inventory (ids carry it, entries the version); one not in it matches an entry of its kind.
 */
export function healthExprTargets(ks: KsLike | undefined, objects?: readonly ObjRef[], limit = 10): ExprTarget[] {
  const exprs = healthCheckExprsOf(ks);
  if (exprs.length === 0 || !ks) return [];
  const inventory = (ks.status?.inventory?.entries ?? []).flatMap((e) => {
    const o = parseInventoryId(e.id);
    return o ? [{ ...o, version: e.v ?? null }] : [];
  });
  const spec = (ks.spec ?? {}) as { wait?: boolean; healthChecks?: { apiVersion?: string; kind?: string; name?: string; namespace?: string }[] };
  const own = ks.metadata?.namespace ?? null;
  const wanted: (ObjRef & { group?: string; version?: string | null })[] = objects
    ? [...objects]
    : spec.wait
      ? inventory
      : (spec.healthChecks ?? []).flatMap((h) => (h.kind && h.name ? [{ kind: h.kind, name: h.name, namespace: h.namespace ?? own, ...(h.apiVersion ? { group: groupOf(h.apiVersion), version: h.apiVersion.slice(h.apiVersion.lastIndexOf('/') + 1) } : {}) }] : []));
  const out: ExprTarget[] = [];
  for (const w of wanted) {
    const inv = w.group !== undefined ? w : inventory.find((i) => i.kind === w.kind && i.name === w.name && (i.namespace ?? null) === (w.namespace ?? null));
    const byKind = exprs.find((e) => e.kind === w.kind);
    const group = inv?.group ?? (w.apiVersion ? groupOf(w.apiVersion) : byKind ? groupOf(byKind.apiVersion) : undefined);
    if (group === undefined) continue;
    const match = matchHealthCheckExpr(exprs, group, w.kind);
    if (!match) continue;
    const version = inv?.version;
    // The entry's group is the object's (that is how it matched), so its apiVersion reads the object too.
    const apiVersion = version ? (group ? `${group}/${version}` : version) : (w.apiVersion ?? match.entry.apiVersion);
    const ref = { kind: w.kind, namespace: w.namespace ?? null, name: w.name, apiVersion };
    out.push({ object: refKey(ref), ref, match });
    if (out.length >= limit) break;
  }
  return out;
}

/**
 * One line per target, `SealedSecret/ns/s: InProgress by healthCheckExprs[0] (...): ...`, from the live objects
 * (`get`: undefined when it does not exist). Null engine: the expressions are named, not evaluated.
 */
export function healthExprLines(cel: CelEngine | null, targets: readonly ExprTarget[], get: (t: ExprTarget) => Record<string, unknown> | undefined): string[] {
  return targets.map((t) => {
    const obj = get(t);
    if (!obj) return `${t.object}: not found (healthCheckExprs[${t.match.index}] judges it once it exists)`;
    if (!cel) return `${t.object}: judged by healthCheckExprs[${t.match.index}] (current \`${shown(t.match.entry.current)}\`), not evaluated here (CEL not loaded)`;
    return `${t.object}: ${describeHealthExpr(evaluateHealthExpr(cel, t.match, obj))}`;
  });
}
