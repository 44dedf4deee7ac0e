// Server-side apply the way fluxcd/pkg ssa does it (manager_apply.go), independent of the transport: Flux's stages,
// a dry-run of every object of a stage before any write, drift detection against the live object, and no write at
// all for an unchanged object. node-client.ts supplies the requests.

import { apiRefOf, type ApplyAction, type ApplyOptions, type ApplyResult, type K8sObject } from './client.js';
import { ApplyError, NoKindError, type ClusterError } from './errors.js';
import { type ApiRef, refKey, groupOf } from '../model/ref.js';

/** The requests apply needs; every method throws ClusterErrors. */
export interface ApplyOps {
  /** The live object, or undefined; NoKindError when the kind is not served. */
  find(ref: ApiRef): Promise<K8sObject | undefined>;
  /** One SSA PATCH; `dryRun` = dryRun=All (evaluated, not persisted). */
  ssa(obj: K8sObject, o: ApplyOptions, dryRun: boolean): Promise<K8sObject>;
  waitEstablished(crdNames: string[], timeoutMs: number): Promise<void>;
  /** Normalizes anything thrown into a ClusterError, with the API Status reason when there was one. */
  toError(e: unknown, ref?: ApiRef): { error: ClusterError; statusReason?: string; statusMessage?: string };
  delay(ms: number): Promise<void>;
}

const DEF_KINDS = new Set(['CustomResourceDefinition', 'Namespace', 'ClusterRole']);
const isCrd = (o: { apiVersion: string; kind: string }): boolean =>
  o.kind === 'CustomResourceDefinition' && o.apiVersion.startsWith('apiextensions.k8s.io/');

/** Flux's apply stages (ssa ApplyAllStaged): CRDs/Namespaces/ClusterRoles, then `*Class` kinds, then the rest. */
export function applyStages(objects: readonly K8sObject[]): K8sObject[][] {
  const defs = objects.filter((o) => DEF_KINDS.has(o.kind));
  const classes = objects.filter((o) => !DEF_KINDS.has(o.kind) && o.kind.endsWith('Class'));
  const rest = objects.filter((o) => !DEF_KINDS.has(o.kind) && !o.kind.endsWith('Class'));
  return [defs, classes, rest].filter((s) => s.length > 0);
}

/** The object as compared for drift: without the fields every write or dry-run changes, and without status. */
export function comparable(o: K8sObject): unknown {
  const { status: _status, metadata, ...rest } = o;
  const { managedFields: _mf, resourceVersion: _rv, generation: _g, creationTimestamp: _ct, ...meta } = metadata;
  return { ...rest, metadata: meta };
}

/** Structural equality of JSON values; a key holding undefined counts as absent. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => deepEqual(ra[k], rb[k]));
}

/**
 * Applies `objects` in Flux's stages and returns each object's action in apply order. Within a stage every object is
 * dry-run first (a rejected one leaves the whole stage unwritten, as in Flux); the dry-run result is compared with
 * the live object and only drifted objects are written, so re-applying the same manifests writes nothing. Applied
 * CRDs are waited to Established before the next stage. Throws ApplyError carrying the results so far.
 */
export async function applyStaged(objects: readonly K8sObject[], o: ApplyOptions, ops: ApplyOps): Promise<ApplyResult[]> {
  const results: ApplyResult[] = [];
  const batchCrds = objects.filter(isCrd);
  const definedInBatch = (x: K8sObject) =>
    batchCrds.some((c) => {
      const spec = c.spec as { group?: string; names?: { kind?: string } } | undefined;
      return spec?.group === groupOf(x.apiVersion) && spec?.names?.kind === x.kind;
    });
  const namespacesInBatch = new Set(objects.filter((x) => x.kind === 'Namespace' && x.apiVersion === 'v1').map((x) => x.metadata.name));
  const fail = (ref: ApiRef, phase: 'dry-run' | 'apply' | 'wait', e: unknown) => {
    if (e instanceof ApplyError) return e;
    const { error, statusReason, statusMessage } = ops.toError(e, ref);
    const detail = error instanceof NoKindError ? error.message : (statusMessage ?? error.message);
    return new ApplyError(ref, phase, error.reason, detail, [...results], { status: error.status, statusReason, cause: error });
  };

  for (const stage of applyStages(objects)) {
    // The stage's reads and dry-runs run side by side (each object's GET beside its own dry-run), then its writes:
    // one object waits on no other, and a stage of two objects costs two round trips instead of six.
    const checked = await settleAll(stage, async (obj) => {
      const ref = apiRefOf(obj);
      const seen = await readAndDryRun(ops, obj, o, !o.dryRun && definedInBatch(obj));
      if ('failed' in seen) {
        const { error } = ops.toError(seen.failed, ref);
        // In a dry run, what the batch itself would create first cannot exist yet: report it as created.
        const needsBatch =
          (error instanceof NoKindError && definedInBatch(obj)) ||
          (error.reason === 'NotFound' && !!obj.metadata.namespace && namespacesInBatch.has(obj.metadata.namespace));
        if (o.dryRun && needsBatch) return { obj, action: 'created' as ApplyAction };
        throw fail(ref, 'dry-run', seen.failed);
      }
      const { live, dry } = seen;
      const action: ApplyAction = !live ? 'created' : deepEqual(comparable(dry), comparable(live)) ? 'unchanged' : 'configured';
      return { obj, action, result: dry as K8sObject | undefined };
    });
    // A rejected dry-run leaves the whole stage unwritten, as in Flux: the first rejection in apply order is said.
    const rejected = checked.find((c) => c.status === 'rejected');
    if (rejected) throw rejected.reason;
    const planned = checked.map((c) => (c as PromiseFulfilledResult<{ obj: K8sObject; action: ApplyAction; result?: K8sObject }>).value);
    const written = await settleAll(planned, async (p): Promise<ApplyResult> => {
      const ref = apiRefOf(p.obj);
      if (o.dryRun || p.action === 'unchanged') return { id: refKey(ref), ref, action: p.action, ...(p.result ? { object: p.result } : {}) };
      return { id: refKey(ref), ref, action: p.action, object: await ops.ssa(p.obj, o, false) };
    });
    // Every write that went through is a result, in apply order, even beside one that failed (the error carries them).
    for (const w of written) if (w.status === 'fulfilled') results.push(w.value);
    const refused = written.findIndex((w) => w.status === 'rejected');
    if (refused >= 0) throw fail(apiRefOf(planned[refused]!.obj), 'apply', (written[refused] as PromiseRejectedResult).reason);
    const crds = stage.filter(isCrd);
    if (!o.dryRun && crds.length > 0) {
      try {
        await ops.waitEstablished(crds.map((c) => c.metadata.name), o.crdTimeoutMs ?? 60_000);
      } catch (e) {
        throw fail(apiRefOf(crds[0]!), 'wait', e);
      }
    }
  }
  return results;
}

/**
 * The live object and the dry-run of `obj`, side by side (neither waits on the other), or what failed first. A kind
 * the batch has just defined is read first: its discovery may lag a moment (findRetrying), and the dry-run would not
 * wait for it.
 */
async function readAndDryRun(ops: ApplyOps, obj: K8sObject, o: ApplyOptions, justDefined: boolean): Promise<{ live: K8sObject | undefined; dry: K8sObject } | { failed: unknown }> {
  const ref = apiRefOf(obj);
  try {
    if (justDefined) {
      const live = await findRetrying(ops, ref, true);
      return { live, dry: await ops.ssa(obj, o, true) };
    }
    const [live, dry] = await Promise.allSettled([findRetrying(ops, ref, false), ops.ssa(obj, o, true)]);
    if (live.status === 'rejected') return { failed: live.reason };
    if (dry.status === 'rejected') return { failed: dry.reason };
    return { live: live.value, dry: dry.value };
  } catch (e) {
    return { failed: e };
  }
}

// Right after a CRD turns Established, discovery can lag for a moment: retry a kind the batch just defined.
async function findRetrying(ops: ApplyOps, ref: ApiRef, justDefined: boolean): Promise<K8sObject | undefined> {
  for (let i = 0; ; i++) {
    try {
      return await ops.find(ref);
    } catch (e) {
      if (!(e instanceof NoKindError) || !justDefined || i >= 10) throw e;
      await ops.delay(500);
    }
  }
}

/** At most this many requests of one stage in flight: the API server's and the client's limits stay far away. */
const STAGE_CONCURRENCY = 8;

/** `f` over `items`, at most STAGE_CONCURRENCY at a time, every outcome in the items' order. */
async function settleAll<T, R>(items: readonly T[], f: (item: T) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const out: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) {
      try {
        out[i] = { status: 'fulfilled', value: await f(items[i]!) };
      } catch (reason) {
        out[i] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(STAGE_CONCURRENCY, items.length) }, worker));
  return out;
}
