import type { ClusterClient } from '../cluster/client.js';
import { CliError } from '../model/errors.js';
import { humanDuration } from '../status/durations.js';
import type { PodProblemKind } from '../status/pod.js';
import type { WorkloadReport } from '../status/workload.js';
import { abortError, WaitTimeoutError } from './errors.js';
import { summarizeActions } from './change.js';
import { systemClock, type Clock } from './clock.js';
import type { StepId } from './events.js';
import type { InstallManifests } from './run-target.js';
import type { StepOutcome, StepTracker } from './steps.js';
import { apiWorkloads, describeWorkloads } from './workloads.js';
import type { ObjRef } from '../model/ref.js';
import type { Writer } from './writer.js';

/** A pod problem that has not changed for this long is not going to heal on its own during a cold start. */
const STUCK_MS = 60_000;
// Problems a cold start does not outwait. A missing node or scheduler may still come, so those are waited out.
const STUCKABLE: ReadonlySet<PodProblemKind> = new Set(['image-pull', 'crash-loop', 'config', 'failed', 'unschedulable']);

/** The Deployments of the install manifests: the Flux controllers standup waits for before the sync. */
export const installDeployments = (m: InstallManifests): ObjRef[] =>
  m.objects.filter((o) => o.kind === 'Deployment' && o.apiVersion === 'apps/v1').map((o) => ({ kind: 'Deployment', namespace: o.metadata.namespace ?? 'flux-system', name: o.metadata.name }));

/**
 * Installs Flux from the repository: server-side applies the install manifests (gotk-components.yaml), then waits
 * for the controller Deployments in them to be Available (from their real pods).
 */
export async function installFlux(o: Writer & { steps: StepTracker; install: InstallManifests; timeoutMs: number }): Promise<StepOutcome> {
  o.steps.status(o.id, 'progressing', `applying the ${o.install.objects.length} objects of ${o.install.file}`);
  const results = await o.client.apply(o.install.objects, { fieldManager: 'standup', force: true, dryRun: o.dryRun });
  for (const r of results) o.emit({ type: 'change', id: o.id, object: r.id, change: { kind: 'apply', action: r.action }, dryRun: !!o.dryRun });
  const applied = summarizeActions(results.map((r) => r.action), o.dryRun);
  const deployments = installDeployments(o.install);
  if (o.dryRun) return { result: 'ok', message: `${applied}; would wait for ${deployments.length} controller Deployment(s) to be Available` };
  return { result: 'ok', message: `${applied}; ${await waitFluxControllers({ ...o, deployments, file: o.install.file })}` };
}

export interface WaitControllersOptions {
  client: ClusterClient;
  steps: StepTracker;
  id: StepId;
  signal: AbortSignal;
  deployments: readonly ObjRef[];
  /** The install manifests' file, named in every message. */
  file: string;
  timeoutMs: number;
  clock?: Clock;
  /** The pause between looks (2 s). */
  pollMs?: number;
  /** A pod problem unchanged this long fails the install (default 60 s); a never-pullable image fails at once. */
  stuckMs?: number;
}

/**
 * Waits until every controller Deployment is Available. Fails fast (exit 1) when a pod cannot start and will not by
 * waiting (the image can never be pulled, a problem unchanged for a minute), naming the Deployment, its pods' reason
 * and what to check; a timeout (exit 3) says the same about each laggard. Returns the line for the step's end.
 */
export async function waitFluxControllers(o: WaitControllersOptions): Promise<string> {
  const clock = o.clock ?? systemClock;
  const deadline = clock.now() + o.timeoutMs;
  const since = new Map<string, { line: string; at: number }>();
  for (;;) {
    if (o.signal.aborted) throw abortError(o.signal);
    const reports = await describeWorkloads(apiWorkloads(o.client), o.deployments, Infinity);
    const pending = reports.filter((r) => r.readiness.state !== 'current');
    if (pending.length === 0 && reports.length === o.deployments.length) return `${o.deployments.length} controller Deployment(s) Available`;
    const t = clock.now();
    for (const r of pending) {
      const s = since.get(r.object);
      if (!s || s.line !== r.line) since.set(r.object, { line: r.line, at: t });
    }
    const missing = pending.filter((r) => r.readiness.state === 'not-found');
    const stuck = pending.filter((r) => r.terminal || (r.problem !== null && STUCKABLE.has(r.problem) && t - since.get(r.object)!.at >= (o.stuckMs ?? STUCK_MS)));
    if (stuck.length > 0 && missing.length === 0) {
      throw new CliError('FLUX_INSTALL_FAILED', `Flux install from ${o.file} cannot start: ${describe(stuck)}`, { hint: hintFor(stuck, o.file, 'standup up') });
    }
    o.steps.status(o.id, 'progressing', pending.length ? `waiting for ${describe(pending)}` : 'waiting (the Deployments cannot be read right now)');
    if (t > deadline) {
      throw new WaitTimeoutError(`Flux install from ${o.file}: not Available after ${humanDuration(o.timeoutMs)}: ${describe(pending)}`, pending.map((r) => r.object), hintFor(pending, o.file, 'standup resume'));
    }
    await clock.sleep(o.pollMs ?? 2000, o.signal);
  }
}

const IMAGE: ReadonlySet<PodProblemKind | null> = new Set(['image-never-pull', 'image-pull']);

function hintFor(rs: readonly WorkloadReport[], file: string, then: string): string {
  const first = rs.find((r) => r.advice);
  const images = rs.some((r) => IMAGE.has(r.problem)) ? `Check the controller images named in ${file} (the node must have them, or be able to pull them). ` : '';
  return `${images}${first ? `Check: ${first.advice}. ` : ''}Then \`${then}\`.`;
}

const describe = (rs: readonly WorkloadReport[]) => rs.map((r) => `${r.object}: ${r.line}`).join('; ');
