import { FLUX_SOURCE_API, type ClusterClient } from '../cluster/client.js';
import { CliError } from '../model/errors.js';

import { humanDuration } from '../status/durations.js';
import { shortRevision } from '../status/revision.js';
import { detectFight, sourceAppliers } from '../status/source-writers.js';
import { sourceReadiness } from '../status/source.js';
import { WaitTimeoutError } from './errors.js';
import { systemClock, type Clock } from './clock.js';
import type { Emit, StepId } from './events.js';
import type { LiveState } from './live-state.js';
import { requestReconcile } from './request-reconcile.js';
import type { StepTracker } from './steps.js';
import { refKey, type NamespacedRef } from '../model/ref.js';


/**
 * Throws when the source's spec keeps flipping between values (two writers applying it): every Kustomization
 * reading it is applied from either side in turn, so no Ready can be trusted. Names both writers.
 */
export function assertNoFight(live: LiveState, ref: NamespacedRef): void {
  const fight = detectFight(live.sightings(ref));
  if (!fight) return;
  const sides = fight.sides.map((s) => `${s.writers.join(' and ')} set${s.writers.length > 1 ? '' : 's'} ${s.url ?? 'another spec'}`);
  throw new CliError(
    'SOURCE_FIGHT',
    `${refKey(ref)} is being rewritten by two writers: ${sides.join('; ')}. Its spec changed ${fight.changes} times in ` +
      `${humanDuration(fight.overMs)}, so every Kustomization reading it is applied from either repository in turn and no revision can be trusted.`,
    { hint: 'Keep one writer: delete (or suspend) the Kustomization or tool that applies the other side (`kubectl get ks -A`, and the source\'s managedFields), then `standup resume`.' },
  );
}

/** How long standup watches a source that two Kustomizations apply, to see whether they fight over it. */
const SETTLE_MS = 15_000;

/**
 * Before a run reports success: when more than one Kustomization applies the root source (two root syncs, after the
 * cluster was switched to another repository), watch it for a while; if they fight, fail (naming both), else say so.
 */
export async function settleSource(o: { live: LiveState; ref: NamespacedRef; emit: Emit; signal: AbortSignal; clock?: Clock; settleMs?: number }): Promise<void> {
  const appliers = sourceAppliers(o.live.kustomizations.values(), o.ref);
  if (appliers.length < 2) return;
  const clock = o.clock ?? systemClock;
  const until = clock.now() + (o.settleMs ?? SETTLE_MS);
  while (clock.now() < until) {
    assertNoFight(o.live, o.ref);
    await o.live.changed(Math.max(1, Math.min(1000, until - clock.now())));
  }
  assertNoFight(o.live, o.ref);
  o.emit({ type: 'log', level: 'warn', message: `${refKey(o.ref)} is applied by ${appliers.length} Kustomizations (${appliers.join(', ')}); they agree for now, but one of them should not apply it` });
}

/**
 * Requests a fetch of the root source (like `flux reconcile --with-source`) and waits until source-controller has
 * handled the request and holds an artifact: the revision every tier is then judged against.
 */
export async function refreshSource(o: {
  client: ClusterClient;
  live: LiveState;
  ref: NamespacedRef;
  emit: Emit;
  steps: StepTracker;
  id: StepId;
  signal: AbortSignal;
  clock?: Clock;
  timeoutMs: number;
}): Promise<string> {
  const clock = o.clock ?? systemClock;
  const key = refKey(o.ref);
  const ref = { ...o.ref, apiVersion: FLUX_SOURCE_API };
  let value = '';
  const deadline = clock.now() + o.timeoutMs;
  let annotated = false;
  for (;;) {
    o.live.check();
    assertNoFight(o.live, o.ref);
    const src = o.live.sources.get(key);
    if (src && !annotated) {
      value = await requestReconcile(o, ref, new Date(clock.now()).toISOString());
      annotated = true;
    }
    const r = sourceReadiness(src);
    const handled = (src?.status as { lastHandledReconcileAt?: string } | undefined)?.lastHandledReconcileAt === value;
    if (annotated && handled && r.state === 'ready') return r.revision!;
    if (annotated && handled && r.state === 'failed') {
      throw new CliError('SOURCE_FAILED', `${key} failed to fetch: ${r.message}`, {
        hint: r.hasArtifact ? `It still serves ${shortRevision(r.revision)}; fix the source (URL, credentials), then \`standup resume\`.` : 'Fix the source (URL, credentials, branch), then `standup resume`.',
      });
    }
    if (r.state === 'suspended') {
      throw new CliError('SOURCE_SUSPENDED', `${key} is suspended`, { hint: `Run \`flux resume source ${o.ref.kind === 'GitRepository' ? 'git' : o.ref.kind.toLowerCase()} ${o.ref.name} -n ${o.ref.namespace}\`.` });
    }
    const line = src ? r.message || r.reason : 'not created yet';
    o.steps.status(o.id, r.state, line);
    if (clock.now() > deadline) throw new WaitTimeoutError(`${key} did not fetch a revision in time (${line})`, [key]);
    await o.live.changed(1000);
  }
}
