// Flux installed by flux-operator: the FluxInstance is applied, waited on until Ready (which, with its default
// `wait: true`, covers its controllers and its root sync), and suspended or resumed through its own annotation.
// Semantics from flux-operator's code (research/flux-operator/FLUX-OPERATOR.md §1.1, §3): the operator reconciles only
// FluxInstance `flux` in its namespace; `fluxcd.controlplane.io/reconcile: disabled` stops its reconciler; the root
// sync it creates is `Kustomization/<ns>/<sync.name|ns>` reading `<sync.kind>/<ns>/<sync.name|ns>`.

import { FLUX_KUSTOMIZATION, type ClusterClient, type K8sObject } from '../cluster/client.js';
import { refKey, type ApiRef, type ObjRef } from '../model/ref.js';
import { NoKindError } from '../cluster/errors.js';
import { CliError } from '../model/errors.js';
import type { RootSync } from '../plan/plan.js';
import { findCondition, type LiveKustomization } from '../status/conditions.js';
import { humanDuration } from '../status/durations.js';
import { kustomizationReadiness } from '../status/kustomization.js';
import { summarizeActions } from './change.js';
import { systemClock, type Clock } from './clock.js';
import { abortError, WaitTimeoutError } from './errors.js';
import { rootSuspension, setRootSuspended, SUSPENDED_BY } from './root-sync.js';
import type { StepOutcome, StepTracker } from './steps.js';
import { waitFluxControllers } from './install.js';
import { apiWorkloads, describeWorkloads } from './workloads.js';
import { retryTransient, type Writer } from './writer.js';

export const FLUX_INSTANCE_API = 'fluxcd.controlplane.io/v1';
/** A FluxInstance's reference: always namespaced. */
export type InstanceRef = ApiRef & { namespace: string };
/** flux-operator's switch for its reconcilers (FluxInstance, ResourceSet): `disabled` stops them. */
export const RECONCILE_ANNOTATION = 'fluxcd.controlplane.io/reconcile';
/** The labels flux-operator puts on everything a FluxInstance installs, its root sync included. */
const OWNER_NAME = 'fluxcd.controlplane.io/name';
const OWNER_NAMESPACE = 'fluxcd.controlplane.io/namespace';
/** flux-operator's default `spec.components`. */
const DEFAULT_COMPONENTS = ['source-controller', 'kustomize-controller', 'helm-controller', 'notification-controller'];

/** The repository's FluxInstance, as read from the file tiers.yaml names. */
export interface InstanceManifest {
  file: string;
  object: K8sObject;
}

interface InstanceSpec {
  components?: string[];
  sync?: { kind?: string; url?: string; name?: string; path?: string };
}

const specOf = (fi: K8sObject): InstanceSpec => (fi.spec ?? {}) as InstanceSpec;
export const instanceRef = (fi: K8sObject): InstanceRef => ({ apiVersion: FLUX_INSTANCE_API, kind: 'FluxInstance', namespace: fi.metadata.namespace ?? 'flux-system', name: fi.metadata.name });
export const instanceId = (ref: InstanceRef): string => refKey(ref);

/** The root sync a FluxInstance's spec.sync creates (flux-operator's sync template), or null without spec.sync. */
export function instanceRootSync(fi: K8sObject): RootSync | null {
  const sync = specOf(fi).sync;
  if (!sync) return null;
  const ns = fi.metadata.namespace ?? 'flux-system';
  const name = sync.name ?? ns;
  return { key: `${ns}/${name}`, ks: { kind: 'Kustomization', namespace: ns, name }, source: { kind: sync.kind ?? 'GitRepository', namespace: ns, name } };
}

/** The FluxInstance with its sync pointed at a mirror: the operator owns the source, so this is where the URL holds. */
export function instanceWithMirror(fi: K8sObject, url: string): K8sObject {
  const spec = specOf(fi);
  return { ...fi, spec: { ...(fi.spec as object), sync: { ...spec.sync, url } } };
}

/** The controller Deployments the instance installs (one per component, in its namespace). */
export const instanceDeployments = (fi: K8sObject): ObjRef[] =>
  (specOf(fi).components ?? DEFAULT_COMPONENTS).map((name) => ({ kind: 'Deployment', namespace: fi.metadata.namespace ?? 'flux-system', name }));

/**
 * The FluxInstance that owns the live root Kustomization (by the operator's owner labels), or null when the root is
 * not there or not the operator's. Lets status, reset and resume act on any such cluster, however tiers.yaml installs Flux.
 */
export async function liveInstanceOwner(client: ClusterClient, root: RootSync): Promise<InstanceRef | null> {
  // Without a root in the plan, flux-operator's naming: the Kustomization is named like its source.
  const { namespace, name } = root.ks ?? root.source;
  const live = await orNoKind(() => client.find({ ...FLUX_KUSTOMIZATION, namespace, name }));
  const labels = live?.metadata.labels ?? {};
  if (!labels[OWNER_NAME] || !labels[OWNER_NAMESPACE]) return null;
  return { apiVersion: FLUX_INSTANCE_API, kind: 'FluxInstance', namespace: labels[OWNER_NAMESPACE], name: labels[OWNER_NAME] };
}

/**
 * Readiness of a flux-operator object (FluxInstance, ResourceSet) by the Kustomization rules. The operator records the
 * generation it saw only in its conditions (no status.observedGeneration), so the Ready condition's is used.
 */
export function operatorReadiness(live: LiveKustomization | undefined | null) {
  if (!live?.status || live.status.observedGeneration !== undefined) return kustomizationReadiness(live ?? null);
  const gen = findCondition(live.status.conditions, 'Ready')?.observedGeneration;
  return kustomizationReadiness({ ...live, status: { ...live.status, observedGeneration: gen } });
}

/** The result, or undefined when the kind does not exist (yet): Flux's CRDs come with the instance. */
async function orNoKind<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof NoKindError) return undefined;
    throw e;
  }
}

export interface InstanceSuspension {
  suspended: boolean;
  /** Who, from standup's annotation (`standup reset at …`), or null. */
  by: string | null;
}

export async function instanceSuspension(client: ClusterClient, ref: InstanceRef): Promise<InstanceSuspension> {
  const live = await client.find(ref);
  const a = live?.metadata.annotations ?? {};
  return { suspended: (a[RECONCILE_ANNOTATION] ?? '').toLowerCase() === 'disabled', by: a[SUSPENDED_BY] ?? null };
}

/**
 * Suspends or resumes the FluxInstance the way flux-operator's own `suspend`/`resume` do: its reconcile annotation
 * (and a new requestedAt on resume, so it reconciles at once). Under field manager `standup`, which the operator does
 * not take over.
 */
export async function setInstanceSuspended(o: Writer, ref: InstanceRef, suspend: boolean, by = 'standup reset'): Promise<void> {
  o.emit({ type: 'change', id: o.id, object: instanceId(ref), change: { kind: suspend ? 'suspend' : 'resume' }, dryRun: !!o.dryRun });
  if (o.dryRun) return;
  const at = new Date((o.clock ?? systemClock).now()).toISOString();
  const annotations = suspend
    ? { [RECONCILE_ANNOTATION]: 'disabled', [SUSPENDED_BY]: `${by} at ${at}` }
    : { [RECONCILE_ANNOTATION]: null, [SUSPENDED_BY]: null, 'reconcile.fluxcd.io/requestedAt': at };
  await retryTransient(() => o.client.patchMerge(ref, { metadata: { annotations } }, { fieldManager: 'standup' }), o.signal, o.clock);
}

/**
 * Reset's suspension through the FluxInstance: first the instance (so the operator does not re-apply what standup
 * then changes on the root), then the root Kustomization itself (so kustomize-controller stops applying the tiers).
 */
export async function suspendThroughInstance(o: Writer, ref: InstanceRef, root: RootSync): Promise<void> {
  await setInstanceSuspended(o, ref, true);
  await setRootSuspended(o, root, true);
}

/** `up` and `resume`: lifts a suspension of the instance (any, for up; standup's own, for resume) and of the root. */
export async function resumeThroughInstance(o: Writer, ref: InstanceRef, root: RootSync, onlyStandups: boolean): Promise<string[]> {
  const done: string[] = [];
  const fi = await retryTransient(() => instanceSuspension(o.client, ref), o.signal, o.clock);
  if (fi.suspended) {
    if (onlyStandups && !fi.by?.startsWith('standup')) {
      throw new CliError('ROOT_SUSPENDED', `${instanceId(ref)} has reconciliation disabled (${RECONCILE_ANNOTATION}: disabled, not by standup), so Flux is not kept installed`, {
        hint: `Enable it if that is safe (\`flux-operator resume instance ${ref.name} -n ${ref.namespace}\`), or run \`standup up\`, which resumes it.`,
      });
    }
    await setInstanceSuspended(o, ref, false);
    done.push(`${instanceId(ref)} resumed`);
  }
  // Before the instance has installed Flux there is no Kustomization kind, so no suspended root.
  const rs = (o.dryRun ? null : await retryTransient(() => orNoKind(() => rootSuspension(o.client, root)), o.signal, o.clock)) ?? { suspended: false, by: null };
  if (rs.suspended && onlyStandups && !rs.by?.startsWith('standup')) {
    throw new CliError('ROOT_SUSPENDED', `the root sync ${root.key} is suspended (not by standup), so no tier would ever change`, {
      hint: `Resume it if that is safe (\`flux resume ks ${root.key?.split('/')[1]} -n ${root.key?.split('/')[0]}\`), or run \`standup up\`, which resumes it.`,
    });
  }
  if (rs.suspended) {
    await setRootSuspended(o, root, false);
    done.push(`${root.key} resumed`);
  }
  return done;
}

export interface InstallInstanceOptions extends Writer {
  steps: StepTracker;
  instance: InstanceManifest;
  root: RootSync;
  timeoutMs: number;
  /** Apply the instance (up), or only wait for the one already there (resume). */
  apply: boolean;
  pollMs?: number;
}

/**
 * Applies the FluxInstance (server-side, field manager `standup`), lifts a suspension, and waits until the instance
 * is Ready and its controller Deployments are Available from their pods.
 */
export async function installInstance(o: InstallInstanceOptions): Promise<StepOutcome> {
  const ref = instanceRef(o.instance.object);
  const parts: string[] = [];
  if (o.apply && o.dryRun && !(await orNoKind(() => o.client.list({ apiVersion: FLUX_INSTANCE_API, kind: 'FluxInstance' })))) {
    // A dry run on a bare cluster: the FluxInstance kind arrives with the operator's install, which was not written.
    o.emit({ type: 'change', id: o.id, object: instanceId(ref), change: { kind: 'apply', action: 'created' }, dryRun: true });
    return { result: 'ok', message: `would create ${instanceId(ref)} (its CRD comes with flux-operator's install) and wait for it to be Ready` };
  }
  if (o.apply) {
    const results = await o.client.apply([o.instance.object], { fieldManager: 'standup', force: true, dryRun: o.dryRun });
    for (const r of results) o.emit({ type: 'change', id: o.id, object: r.id, change: { kind: 'apply', action: r.action }, dryRun: !!o.dryRun });
    parts.push(summarizeActions(results.map((r) => r.action), o.dryRun));
  }
  parts.push(...(await resumeThroughInstance(o, ref, o.root, !o.apply)));
  if (o.dryRun) return { result: 'ok', message: [...parts, `would wait for ${instanceId(ref)} to be Ready`].join('; ') };
  parts.push(await waitInstanceReady({ ...o, ref }));
  parts.push(await waitFluxControllers({ client: o.client, steps: o.steps, id: o.id, signal: o.signal, clock: o.clock, deployments: instanceDeployments(o.instance.object), file: o.instance.file, timeoutMs: o.timeoutMs }));
  return { result: 'ok', message: parts.join('; ') };
}

/**
 * Waits for the FluxInstance to be Ready at its current generation. Fails at once when the operator gives up on it
 * (Stalled: a build that cannot succeed, such as a version it does not embed) or a controller pod cannot start; a
 * timeout (exit 3) names the instance's last message and each controller's state.
 */
export async function waitInstanceReady(o: InstallInstanceOptions & { ref: InstanceRef }): Promise<string> {
  const clock: Clock = o.clock ?? systemClock;
  const deadline = clock.now() + o.timeoutMs;
  const deployments = instanceDeployments(o.instance.object);
  const what = instanceId(o.ref);
  for (;;) {
    if (o.signal.aborted) throw abortError(o.signal);
    const live = (await o.client.find(o.ref)) as LiveKustomization | undefined;
    const r = operatorReadiness(live);
    const stalled = findCondition(live?.status?.conditions, 'Stalled');
    if (r.state === 'ready') {
      const rev = (live?.status as { lastAppliedRevision?: string } | undefined)?.lastAppliedRevision;
      return `${what} Ready${rev ? ` (${rev.split('@')[0]})` : ''}`;
    }
    if (stalled?.status === 'True') {
      throw new CliError('FLUX_INSTALL_FAILED', `${what} (from ${o.instance.file}) cannot be installed: ${stalled.reason ?? r.reason}: ${stalled.message ?? r.message}`, {
        hint: `Fix the FluxInstance in ${o.instance.file} (flux-operator gave up on it: it will not retry this spec), then \`standup up\`.`,
      });
    }
    const pods = await describeWorkloads(apiWorkloads(o.client), deployments, Infinity);
    const dead = pods.filter((p) => p.terminal);
    if (dead.length > 0) {
      throw new CliError('FLUX_INSTALL_FAILED', `${what}: ${dead.map((p) => `${p.object}: ${p.line}`).join('; ')}`, {
        hint: `Check the controller images the FluxInstance in ${o.instance.file} installs (its distribution and kustomize.patches): the node must have them or be able to pull them. Then \`standup resume\`.`,
      });
    }
    o.steps.status(o.id, 'progressing', `${what}: ${live ? r.message || r.reason : 'waiting for flux-operator to see it'}`);
    if (clock.now() > deadline) {
      const laggards = pods.filter((p) => p.readiness.state !== 'current' && p.readiness.state !== 'not-found');
      throw new WaitTimeoutError(`${what} not Ready after ${humanDuration(o.timeoutMs)}: ${r.message || r.reason}${laggards.length ? `; ${laggards.map((p) => `${p.object}: ${p.line}`).join('; ')}` : ''}`, [what],
        'Check flux-operator\'s log (kubectl -n flux-system logs deploy/flux-operator), then `standup resume`.');
    }
    await clock.sleep(o.pollMs ?? 2000, o.signal);
  }
}

/** What `status` shows of the FluxInstance that owns the root sync. */
export interface InstanceStatus {
  object: string;
  ready: boolean;
  /** The instance's Ready message (or reason), or why it has none. */
  message: string;
  revision: string | null;
  suspended: boolean;
  suspendedBy: string | null;
}

/** The FluxInstance owning the live root sync, or null when the root is not the operator's. Reads only. */
export async function instanceStatus(client: ClusterClient, root: RootSync): Promise<InstanceStatus | null> {
  const ref = await liveInstanceOwner(client, root);
  if (!ref) return null;
  const live = (await client.find(ref)) as (LiveKustomization & { status?: { lastAppliedRevision?: string } }) | undefined;
  const a = live?.metadata.annotations ?? {};
  const r = operatorReadiness(live);
  return {
    object: instanceId(ref),
    ready: r.state === 'ready',
    message: live ? r.message || r.reason : 'not found (the root sync carries its labels, the instance is gone)',
    revision: live?.status?.lastAppliedRevision ?? null,
    suspended: (a[RECONCILE_ANNOTATION] ?? '').toLowerCase() === 'disabled',
    suspendedBy: a[SUSPENDED_BY] ?? null,
  };
}

/** One line for `status`: the instance, its state, and its suspension with who made it. */
export const instanceLine = (s: InstanceStatus): string =>
  `Flux from ${s.object}: ${s.ready ? 'Ready' : 'not Ready'}${s.revision ? ` (${s.revision.split('@')[0]})` : ''}${s.ready ? '' : `: ${s.message}`}` +
  (s.suspended ? `; reconciliation disabled${s.suspendedBy ? ` by ${s.suspendedBy}` : ''} (\`standup up\` or \`standup resume\` enables it)` : '');
