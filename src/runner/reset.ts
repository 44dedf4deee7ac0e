import { FLUX_KUSTOMIZATION } from '../cluster/client.js';
import { CliError, ExitCode } from '../model/errors.js';
import { splitKey } from '../model/ref.js';
import { isRootSync } from '../plan/plan.js';
import { InterruptedError, WaitTimeoutError } from './errors.js';
import type { Emit, StepInfo } from './events.js';
import { preflight } from './preflight.js';
import { runCommand, stepsFor } from './run.js';
import type { Session } from './session.js';
import { runStep } from './step.js';
import { retryTransient } from './retry.js';
import type { TierOutcome } from './converge.js';

export interface ResetOptions {
  emit: Emit;
  signal: AbortSignal;
  dryRun?: boolean;
  /** Asks the operator; resolves true to go ahead. Called after the guard, before any write. */
  confirm?: (question: string) => Promise<boolean>;
  up?: boolean;
  pollMs?: number;
}

const deleteId = (key: string) => `delete:${key}`;

/** The root sync, and every other Kustomization in reverse tier order: dependents go before what they depend on. */
export function teardownOrder(s: Session): { root: string | null; tiers: string[] } {
  const root = [...s.ctx.graph.nodes.values()].find((k) => isRootSync(k, s.ctx.cluster.entry))?.key ?? null;
  const tiers = s.ctx.plan.kustomizations.map((k) => k.key).filter((k) => k !== root).reverse();
  return { root, tiers };
}

export function resetSteps(s: Session, up: boolean): StepInfo[] {
  const { tiers } = teardownOrder(s);
  return [
    { id: 'preflight', kind: 'preflight', title: 'Preflight' },
    { id: 'suspend', kind: 'teardown', title: 'Suspend the root sync' },
    ...tiers.map((k): StepInfo => ({ id: deleteId(k), kind: 'teardown', title: `Delete ${k}` })),
    { id: 'namespaces', kind: 'teardown', title: 'Wait for pruned Namespaces to terminate' },
    ...(up ? [{ id: 'unsuspend', kind: 'teardown' as const, title: 'Resume the root sync' }, ...stepsFor(s, 'resume').filter((x) => x.id !== 'preflight')] : []),
  ];
}

/**
 * `standup reset`: only on a cluster marked resettable, behind the guard and a confirmation. Suspends the root sync
 * (so it does not re-create what is deleted), deletes every tier in reverse order and waits for each finalizer, so
 * that prune removes what the tier applied; then, with --up, resumes the root and stands everything up again.
 */
export async function runReset(s: Session, o: ResetOptions): Promise<TierOutcome[]> {
  assertResettable(s);
  await runStep(o.emit, 'preflight', async () => ({ result: 'ok', message: await preflight(s, 'reset') }));
  const { root, tiers } = teardownOrder(s);
  if (o.confirm && !o.dryRun && !(await o.confirm(resetQuestion(s)))) {
    throw new CliError('RESET_DECLINED', 'reset cancelled; nothing was changed', ExitCode.failure);
  }
  await runStep(o.emit, 'suspend', async () => {
    if (!root) return { result: 'skipped', message: 'no root sync Kustomization found in the plan' };
    await patchSuspend(s, o, root, true);
    return { result: 'ok', message: `${root} suspended` };
  });
  const namespaces = new Set<string>();
  for (const key of tiers) {
    await runStep(o.emit, deleteId(key), async () => {
      for (const ns of await prunedNamespaces(s, key)) namespaces.add(ns);
      return deleteAndWait(s, o, key);
    });
  }
  // Prune deletes Namespaces in the background; until they are gone, re-applying them fails, so wait here.
  await runStep(o.emit, 'namespaces', () => waitNamespacesGone(s, o, [...namespaces].sort()));
  if (!o.up) return [];
  await runStep(o.emit, 'unsuspend', async () => {
    if (!root) return { result: 'skipped', message: 'no root sync' };
    await patchSuspend(s, o, root, false);
    return { result: 'ok', message: `${root} resumed` };
  });
  return runCommand(s, 'resume', { emit: o.emit, signal: o.signal, dryRun: o.dryRun, skipPreflight: true });
}

/** Only a cluster tiers.yaml marks resettable may be torn down. Exit 4, like the context guard. */
export function assertResettable(s: Session): void {
  if (!s.entry?.resettable) {
    throw new CliError('RESET_REFUSED', `cluster ${s.name} is not marked resettable in tiers.yaml; standup reset refuses to tear it down`, ExitCode.guard,
      `If this really is a disposable cluster, set resettable: true under clusters.${s.name} in tiers.yaml.`);
  }
}

export const resetQuestion = (s: Session): string =>
  `Delete ${teardownOrder(s).tiers.length} Kustomizations, and everything they applied where prune is on, from cluster ${s.name} (context ${s.kube.context}, ${s.kube.server})?`;

async function patchSuspend(s: Session, o: ResetOptions, key: string, suspend: boolean): Promise<void> {
  const { namespace, name } = splitKey(key);
  // null removes the field, so the spec from git (which has no suspend) owns it again.
  const patch = { spec: { suspend: suspend ? true : null } };
  o.emit({ type: 'change', id: suspend ? 'suspend' : 'unsuspend', object: `Kustomization/${key}`, action: suspend ? 'suspended' : 'resumed', dryRun: !!o.dryRun });
  if (!o.dryRun) await retryTransient(() => s.client.patchMerge({ ...FLUX_KUSTOMIZATION, namespace, name }, patch), o.signal);
}

async function deleteAndWait(s: Session, o: ResetOptions, key: string) {
  const { namespace, name } = splitKey(key);
  const ref = { ...FLUX_KUSTOMIZATION, namespace, name };
  const existed = await s.client.delete(ref, { propagationPolicy: 'Background', dryRun: o.dryRun });
  o.emit({ type: 'change', id: deleteId(key), object: `Kustomization/${key}`, action: existed ? 'deleted' : 'already gone', dryRun: !!o.dryRun });
  if (!existed) return { result: 'skipped' as const, message: 'already gone' };
  if (o.dryRun) return { result: 'ok' as const, message: 'would delete' };
  const deadline = Date.now() + s.timeoutFor(key);
  // The finalizer runs kustomize-controller's prune; the object disappears once everything it applied is deleted.
  for (;;) {
    if (o.signal.aborted) throw new InterruptedError();
    if ((await retryTransient(() => s.client.find(ref), o.signal)) === undefined) return { result: 'ok' as const, message: 'deleted, finalizer done' };
    if (Date.now() > deadline) throw new WaitTimeoutError(`${key} is still being deleted (its finalizer has not finished pruning)`, [key]);
    await new Promise((r) => setTimeout(r, o.pollMs ?? 1000));
  }
}

/** Namespaces in a Kustomization's inventory (ids `_<name>__Namespace`) that its prune will delete. */
async function prunedNamespaces(s: Session, key: string): Promise<string[]> {
  const { namespace, name } = splitKey(key);
  const live = await s.client.find({ ...FLUX_KUSTOMIZATION, namespace, name });
  const spec = live?.spec as { prune?: boolean } | undefined;
  if (!live || !spec?.prune) return [];
  const entries = ((live.status as { inventory?: { entries?: { id: string }[] } } | undefined)?.inventory?.entries ?? []);
  return entries.map((e) => /^_([^_]+)__Namespace$/.exec(e.id)?.[1]).filter((n): n is string => !!n);
}

async function waitNamespacesGone(s: Session, o: ResetOptions, names: string[]) {
  if (names.length === 0) return { result: 'skipped' as const, message: 'no Namespaces pruned' };
  if (o.dryRun) return { result: 'ok' as const, message: `would wait for ${names.join(', ')}` };
  const deadline = Date.now() + s.timeoutFor('namespaces');
  for (;;) {
    if (o.signal.aborted) throw new InterruptedError();
    const left = [];
    for (const name of names) {
      if (await retryTransient(() => s.client.find({ apiVersion: 'v1', kind: 'Namespace', name }), o.signal)) left.push(name);
    }
    if (left.length === 0) return { result: 'ok' as const, message: `${names.length} Namespaces gone` };
    o.emit({ type: 'step-status', id: 'namespaces', state: 'progressing', message: `terminating: ${left.join(', ')}` });
    if (Date.now() > deadline) throw new WaitTimeoutError(`Namespaces still terminating: ${left.join(', ')} (is kube-controller-manager running?)`, left);
    await new Promise((r) => setTimeout(r, o.pollMs ?? 1000));
  }
}
