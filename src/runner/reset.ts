import { FLUX_KUSTOMIZATION, type K8sObject } from '../cluster/client.js';
import { AbortedError } from '../cluster/errors.js';
import { CliError, ExitCode } from '../model/errors.js';
import { splitKey } from '../model/ref.js';
import { inventoryObjects, type WithInventory } from '../status/inventory.js';
import { abortError, WaitTimeoutError } from './errors.js';
import type { Emit, StepInfo } from './events.js';
import { timeoutFor, type RunTarget } from './inputs.js';
import { drive, type RunResult, type RunScope } from './lifecycle.js';
import { preflight } from './preflight.js';
import { retryTransient } from './retry.js';
import { setRootSuspended } from './root-sync.js';
import { beforeWrites, runSteps, stepsFor, type RunOptions } from './run.js';
import type { StepOutcome } from './steps.js';

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
}

const deleteId = (key: string) => `delete:${key}`;

/** The root sync, and every other Kustomization in reverse tier order: dependents go before what they depend on. */
function teardownOrder(t: RunTarget): { root: string | null; tiers: string[] } {
  const root = t.ctx.rootSync.key;
  const tiers = t.ctx.plan.kustomizations.map((k) => k.key).filter((k) => k !== root).reverse();
  return { root, tiers };
}

function resetSteps(t: RunTarget, up: boolean): StepInfo[] {
  const { tiers } = teardownOrder(t);
  return [
    ...(up ? [{ id: 'check', kind: 'check' as const, title: 'Check the graph' }] : []),
    { id: 'preflight', kind: 'preflight', title: 'Preflight' },
    { id: 'suspend', kind: 'teardown', title: 'Suspend the root sync' },
    ...tiers.map((k): StepInfo => ({ id: deleteId(k), kind: 'teardown', title: `Delete ${k}` })),
    { id: 'namespaces', kind: 'teardown', title: 'Wait for pruned Namespaces and CRDs to be gone' },
    ...(up ? stepsFor(t, 'up').filter((x) => x.id !== 'preflight' && x.id !== 'check') : []),
  ];
}

/** Only a cluster tiers.yaml marks resettable may be torn down. Exit 4, like the context guard. */
export function assertResettable(t: RunTarget): void {
  if (!t.resettable) {
    throw new CliError('RESET_REFUSED', `cluster ${t.name} is not marked resettable in tiers.yaml; standup reset refuses to tear it down`, ExitCode.guard,
      `If this really is a disposable cluster, set resettable: true under clusters.${t.name} in tiers.yaml.`);
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
  const interruptedHint = 'Run `standup reset` again to finish the teardown, or `standup up` to stand the cluster up again.';
  return drive(
    { cluster: t.name, command: o.up ? 'reset --up' : 'reset', steps: resetSteps(t, !!o.up), dryRun: !!o.dryRun, client: t.client, emit: o.emit, signal: o.signal, overallMs: t.timeouts.overallMs, interruptedHint },
    async (s) => {
      assertResettable(t);
      // With --up, what would stop the stand-up is found before the teardown, not after it.
      const up: RunOptions = { emit: s.emit, signal: s.signal, dryRun: o.dryRun, sourceUrl: o.sourceUrl, force: o.force };
      const sync = o.up ? await beforeWrites(t, 'up', up, s) : [];
      await s.steps.run('preflight', async () => ({ result: 'ok', message: await preflight(t, 'reset', s.emit) }));
      await teardown(t, o, s);
      if (o.up) {
        const outcomes = await runSteps(t, 'up', up, s, sync);
        return o.dryRun ? 'dry run: nothing was written' : `reset and stood up again: ${outcomes.length} Kustomizations Ready`;
      }
      const root = t.ctx.rootSync.key;
      if (o.dryRun) return 'dry run: nothing was written';
      if (root) s.emit({ type: 'log', level: 'info', message: `the root sync ${root} stays suspended, so Flux does not re-create what was deleted; \`standup up\` resumes it and stands everything up again` });
      return root ? `reset done; the root sync ${root} is left suspended (\`standup up\` resumes it)` : 'reset done';
    },
  );
}

async function teardown(t: RunTarget, o: ResetOptions, s: RunScope): Promise<void> {
  const { root, tiers } = teardownOrder(t);
  const dry = !!o.dryRun;
  await s.steps.run('suspend', async () => {
    if (!root) return { result: 'skipped', message: 'no root sync Kustomization in the plan' };
    await setRootSuspended({ client: t.client, emit: s.emit, id: 'suspend', signal: s.signal, dryRun: dry }, t.ctx.rootSync, true);
    return { result: 'ok', message: dry ? `would suspend ${root}` : `${root} suspended` };
  });
  const pruned = { namespaces: new Set<string>(), crds: new Set<string>() };
  for (const key of tiers) {
    await s.steps.run(deleteId(key), async () => {
      const live = await retryTransient(() => t.client.find(ksRef(key)), s.signal);
      const p = prunedObjects(live);
      for (const ns of p.namespaces) pruned.namespaces.add(ns);
      for (const c of p.crds) pruned.crds.add(c);
      return deleteAndWait(t, o, s, key, !!live);
    });
  }
  // Prune deletes Namespaces and CRDs in the background (a CRD's finalizer first deletes every object of its kind);
  // until they are gone, re-applying them fails ("object is being deleted"), so an `up` right after would stall.
  await s.steps.run('namespaces', () => waitPrunedGone(t, o, s, [...pruned.namespaces].sort(), [...pruned.crds].sort()));
}

const ksRef = (key: string) => ({ ...FLUX_KUSTOMIZATION, ...splitKey(key) });

async function deleteAndWait(t: RunTarget, o: ResetOptions, s: RunScope, key: string, exists: boolean): Promise<StepOutcome> {
  const ref = ksRef(key);
  const dry = !!o.dryRun;
  const existed = exists && (await retryTransient(() => t.client.delete(ref, { propagationPolicy: 'Background', dryRun: dry }), s.signal));
  s.emit({ type: 'change', id: deleteId(key), object: `Kustomization/${key}`, action: existed ? 'deleted' : 'already gone', dryRun: dry });
  if (!existed) return { result: 'skipped', message: 'already gone' };
  if (dry) return { result: 'ok', message: 'would delete it and wait for its finalizer (prune)' };
  // The finalizer runs kustomize-controller's prune; the object disappears once everything it applied is deleted.
  try {
    await t.client.waitDeleted(ref, { timeoutMs: timeoutFor(t.timeouts, key), signal: s.signal, pollMs: o.pollMs });
  } catch (e) {
    if (e instanceof AbortedError) throw abortError(s.signal);
    if (e instanceof CliError && e.exitCode === ExitCode.timeout) throw new WaitTimeoutError(`${key} is still being deleted (its finalizer has not finished pruning): ${e.message}`, [key], 'Run `standup reset` again once it is gone (kubectl get ks -A).');
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

async function waitPrunedGone(t: RunTarget, o: ResetOptions, s: RunScope, namespaces: string[], crds: string[]): Promise<StepOutcome> {
  const what = [namespaces.length ? `${namespaces.length} Namespaces` : '', crds.length ? `${crds.length} CRDs` : ''].filter(Boolean).join(' and ');
  if (!what) return { result: 'skipped', message: 'no Namespaces or CRDs pruned' };
  if (o.dryRun) return { result: 'ok', message: `would wait for ${[...namespaces, ...crds].join(', ')}` };
  const timeoutMs = timeoutFor(t.timeouts, 'namespaces');
  const refs = [
    ...namespaces.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', name })),
    ...crds.map((name) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name })),
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
