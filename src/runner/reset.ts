import { FLUX_KUSTOMIZATION, type K8sObject } from '../cluster/client.js';
import { AbortedError } from '../cluster/errors.js';
import { CliError, ExitCode } from '../model/errors.js';
import type { FluxKustomization } from '../model/flux.js';
import { inventoryObjects, type WithInventory } from '../status/inventory.js';
import type { Clock } from './clock.js';
import { abortError, WaitTimeoutError } from './errors.js';
import type { Emit } from './events.js';
import { drive, type RunResult, type RunScope } from './lifecycle.js';
import { rootPresent, setRootSuspended } from './root-sync.js';
import { instanceId, liveInstanceOwner, RECONCILE_ANNOTATION, suspendThroughInstance } from './flux-instance.js';
import { gate, step, type RunPart, type RunPlan } from './run-plan.js';
import { newRunState, preflightStep, upChecks, upWrites } from './run.js';
import { timeoutFor, type RunTarget } from './run-target.js';
import { deleteStepId } from './step-id.js';
import type { StepOutcome } from './steps.js';
import { retryTransient } from './writer.js';

export interface ResetOptions {
  emit: Emit;
  signal: AbortSignal;
  dryRun?: boolean;
  /** Stand the cluster up again afterwards (`reset --up`): the steps of `up`, after the teardown. */
  up?: boolean;
  /** For `--up`: the mirror, as for `up`. */
  sourceUrl?: string;
  force?: boolean;
  pollMs?: number;
  clock?: Clock;
}

/** The root sync, and every other Kustomization in reverse tier order: dependents go before what they depend on. */
function teardownOrder(t: RunTarget): { root: string | null; tiers: FluxKustomization[] } {
  const root = t.ctx.rootSync.key;
  const tiers = t.ctx.plan.kustomizations.filter((k) => k.key !== root).reverse().map((k) => t.ctx.graph.nodes.get(k.key)!);
  return { root, tiers };
}

/** Only a cluster tiers.yaml marks resettable may be torn down. Exit 4, like the context guard. */
export function assertResettable(t: RunTarget): void {
  if (!t.resettable) {
    throw new CliError('RESET_REFUSED', `cluster ${t.name} is not marked resettable in tiers.yaml; standup reset refuses to tear it down`, {
      hint: `If this really is a disposable cluster, set resettable: true under clusters.${t.name} in tiers.yaml.`,
    });
  }
}

export const resetQuestion = (t: RunTarget): string =>
  `Delete ${teardownOrder(t).tiers.length} Kustomizations, and everything they applied where prune is on, from cluster ${t.name} (context ${t.guard.actualContext}, ${t.guard.actualServer})?`;

/**
 * `standup reset`: only on a cluster marked resettable, behind the guard (the CLI asks for confirmation first).
 * Suspends the root sync (so it does not re-create what is deleted, and records that standup did), deletes every
 * tier in reverse order and waits for each finalizer, so that prune removes what the tier applied. The root stays
 * suspended: `up` resumes it (and `resume` takes back standup's own suspension). With --up, the steps of `up` follow.
 */
export function runReset(t: RunTarget, o: ResetOptions): Promise<RunResult> {
  return drive(planReset(t, o), { client: t.client, emit: o.emit, signal: o.signal, overallMs: t.timeouts.overallMs, clock: o.clock });
}

/** The parts of `reset` (and `reset --up`), in order. */
export function planReset(t: RunTarget, o: Omit<ResetOptions, 'emit' | 'signal' | 'clock'>): RunPlan {
  const { root, tiers } = teardownOrder(t);
  const dry = !!o.dryRun;
  const st = newRunState();
  const pruned = { namespaces: new Set<string>(), crds: new Set<string>() };
  let leftSuspended = false;
  const parts: RunPart[] = [
    gate(async () => assertResettable(t)),
    // With --up, what would stop the stand-up is found before the teardown, not after it.
    ...(o.up ? upChecks(t, o, st) : []),
    preflightStep(t, 'reset'),
    step({ id: 'suspend', kind: 'teardown', title: 'Suspend the root sync' }, async (s) => {
      if (!root) return { result: 'skipped', message: 'no root sync Kustomization in the plan' };
      const w = { client: t.client, emit: s.emit, id: 'suspend' as const, signal: s.signal, clock: s.clock, dryRun: dry };
      // A root sync a FluxInstance owns is suspended through it: otherwise the operator's next reconcile re-applies it.
      const owner = await retryTransient(() => liveInstanceOwner(t.client, t.ctx.rootSync), s.signal, s.clock);
      if (owner) {
        await suspendThroughInstance(w, owner, t.ctx.rootSync);
        leftSuspended = !dry;
        return { result: 'ok', message: dry ? `would disable ${instanceId(owner)}'s reconciliation and suspend ${root}` : `${instanceId(owner)} reconciliation disabled (${RECONCILE_ANNOTATION}: disabled), ${root} suspended` };
      }
      // A cluster Flux never synced (or that lost its root) has nothing to suspend: saying "suspended" would be false.
      if (!(await retryTransient(() => rootPresent(t.client, t.ctx.rootSync), s.signal, s.clock))) {
        return { result: 'skipped', message: `${root} is not on the cluster: nothing to suspend` };
      }
      await setRootSuspended(w, t.ctx.rootSync, true);
      leftSuspended = !dry;
      return { result: 'ok', message: dry ? `would suspend ${root}` : `${root} suspended` };
    }),
    ...tiers.map((k) =>
      step({ id: deleteStepId(k.key), kind: 'teardown', title: `Delete ${k.key}` }, async (s) => {
        const live = await retryTransient(() => t.client.find(ksRef(k)), s.signal, s.clock);
        const p = prunedObjects(live);
        for (const ns of p.namespaces) pruned.namespaces.add(ns);
        for (const c of p.crds) pruned.crds.add(c);
        return deleteAndWait(t, o, s, k, !!live);
      }),
    ),
    // Prune deletes Namespaces and CRDs in the background (a CRD's finalizer first deletes every object of its kind);
    // until they are gone, re-applying them fails ("object is being deleted"), so an `up` right after would stall.
    step({ id: 'namespaces', kind: 'teardown', title: 'Wait for pruned Namespaces and CRDs to be gone' }, (s) =>
      waitPrunedGone(t, o, s, [...pruned.namespaces].sort(), [...pruned.crds].sort())),
    ...(o.up ? upWrites(t, o, st) : []),
    gate(async (s) => {
      if (!o.up && leftSuspended) s.emit({ type: 'log', level: 'info', message: `the root sync ${root} stays suspended, so Flux does not re-create what was deleted; \`standup up\` resumes it and stands everything up again` });
    }),
  ];
  const done = (): string => {
    if (dry) return 'dry run: nothing was written';
    if (o.up) return `reset and stood up again: ${st.results.length} Kustomizations Ready`;
    return leftSuspended ? `reset done; the root sync ${root} is left suspended (\`standup up\` resumes it)` : 'reset done';
  };
  return {
    cluster: t.name,
    command: o.up ? 'reset --up' : 'reset',
    dryRun: dry,
    parts,
    done,
  };
}

const ksRef = (k: FluxKustomization) => ({ ...FLUX_KUSTOMIZATION, namespace: k.namespace, name: k.name });

async function deleteAndWait(t: RunTarget, o: Pick<ResetOptions, 'dryRun' | 'pollMs'>, s: RunScope, k: FluxKustomization, exists: boolean): Promise<StepOutcome> {
  const ref = ksRef(k);
  const dry = !!o.dryRun;
  const existed = exists && (await retryTransient(() => t.client.delete(ref, { propagationPolicy: 'Background', dryRun: dry }), s.signal, s.clock));
  s.emit({ type: 'change', id: deleteStepId(k.key), object: `Kustomization/${k.key}`, change: { kind: 'delete', existed }, dryRun: dry });
  if (!existed) return { result: 'skipped', message: 'already gone' };
  if (dry) return { result: 'ok', message: 'would delete it and wait for its finalizer (prune)' };
  // The finalizer runs kustomize-controller's prune; the object disappears once everything it applied is deleted.
  try {
    await t.client.waitDeleted(ref, { timeoutMs: timeoutFor(t.timeouts, k.key), signal: s.signal, pollMs: o.pollMs });
  } catch (e) {
    if (e instanceof AbortedError) throw abortError(s.signal);
    if (e instanceof CliError && e.exitCode === ExitCode.timeout) throw new WaitTimeoutError(`${k.key} is still being deleted (its finalizer has not finished pruning): ${e.message}`, [k.key], 'Run `standup reset` again once it is gone (kubectl get ks -A).');
    throw e;
  }
  return { result: 'ok', message: 'deleted, finalizer done' };
}

/** Namespaces and CustomResourceDefinitions in a Kustomization's inventory that its prune will delete. */
export function prunedObjects(live: K8sObject | undefined): { namespaces: string[]; crds: string[] } {
  const spec = live?.spec as { prune?: boolean } | undefined;
  if (!live || !spec?.prune) return { namespaces: [], crds: [] };
  const objects = inventoryObjects(live as WithInventory).filter((o) => !o.namespace);
  const names = (group: string, kind: string) => objects.filter((o) => o.group === group && o.kind === kind).map((o) => o.name);
  return { namespaces: names('', 'Namespace'), crds: names('apiextensions.k8s.io', 'CustomResourceDefinition') };
}

async function waitPrunedGone(t: RunTarget, o: Pick<ResetOptions, 'dryRun' | 'pollMs'>, s: RunScope, namespaces: string[], crds: string[]): Promise<StepOutcome> {
  const what = [namespaces.length ? `${namespaces.length} Namespaces` : '', crds.length ? `${crds.length} CRDs` : ''].filter(Boolean).join(' and ');
  if (!what) return { result: 'skipped', message: 'no Namespaces or CRDs pruned' };
  if (o.dryRun) return { result: 'ok', message: `would wait for ${[...namespaces, ...crds].join(', ')}` };
  const timeoutMs = timeoutFor(t.timeouts, 'namespaces');
  const refs = [
    ...namespaces.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', namespace: null, name })),
    ...crds.map((name) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', namespace: null, name })),
  ];
  try {
    await Promise.all(refs.map((ref) => t.client.waitDeleted(ref, { timeoutMs, signal: s.signal, pollMs: o.pollMs })));
  } catch (e) {
    if (e instanceof AbortedError) throw abortError(s.signal);
    if (e instanceof CliError && e.exitCode === ExitCode.timeout) {
      throw new WaitTimeoutError(`pruned objects still terminating: ${e.message} (is kube-controller-manager running? a CRD waits for every object of its kind to be deleted first)`, [...namespaces, ...crds]);
    }
    throw e;
  }
  return { result: 'ok', message: `${what} gone` };
}
