import type { ClusterClient } from '../cluster/client.js';
import { realDelay } from '../cluster/watch.js';
import { CliError, ExitCode } from '../model/errors.js';
import { humanDuration } from '../status/durations.js';
import type { PodProblemKind } from '../status/pod.js';
import type { WorkloadReport } from '../status/workload.js';
import { abortError, WaitTimeoutError } from './errors.js';
import type { Emit } from './events.js';
import type { InstallManifests } from './inputs.js';
import { summarizeActions, type StepOutcome, type StepTracker } from './steps.js';
import { describeWorkloads, type WorkloadRef } from './workloads.js';

/** A pod problem that has not changed for this long is not going to heal on its own during a cold start. */
const STUCK_MS = 60_000;
// Problems a cold start does not outwait. A missing node or scheduler may still come, so those are waited out.
const STUCKABLE: ReadonlySet<PodProblemKind> = new Set(['image-pull', 'crash-loop', 'config', 'failed', 'unschedulable']);

/** The Deployments of the install manifests: the Flux controllers standup waits for before the sync. */
export const installDeployments = (m: InstallManifests): WorkloadRef[] =>
  m.objects.filter((o) => o.kind === 'Deployment' && o.apiVersion === 'apps/v1').map((o) => ({ kind: 'Deployment', namespace: o.metadata.namespace ?? 'flux-system', name: o.metadata.name }));

/**
 * Installs Flux from the repository: server-side applies the install manifests (gotk-components.yaml), then waits
 * for the controller Deployments in them to be Available (from their real pods).
 */
export async function installFlux(o: { client: ClusterClient; steps: StepTracker; emit: Emit; id: string; signal: AbortSignal; install: InstallManifests; timeoutMs: number; dryRun?: boolean }): Promise<StepOutcome> {
  const results = await o.client.apply(o.install.objects, { fieldManager: 'standup', force: true, dryRun: o.dryRun });
  for (const r of results) o.emit({ type: 'change', id: o.id, object: r.id, action: r.action, dryRun: !!o.dryRun });
  const applied = summarizeActions(results.map((r) => r.action), o.dryRun);
  const deployments = installDeployments(o.install);
  if (o.dryRun) return { result: 'ok', message: `${applied}; would wait for ${deployments.length} Deployments to be Available` };
  await waitDeploymentsAvailable({ ...o, deployments, what: 'the Flux controllers' });
  return { result: 'ok', message: `${applied}; ${deployments.length} Deployments Available` };
}

/**
 * Waits until every Deployment is Available. Fails fast (exit 1) when a pod cannot start and will not by waiting (the
 * image can never be pulled, a problem unchanged for a minute), naming the Deployment, its pods' reason and what to
 * check; a timeout (exit 3) says the same about each laggard.
 */
export async function waitDeploymentsAvailable(o: { client: ClusterClient; steps: StepTracker; id: string; signal: AbortSignal; deployments: readonly WorkloadRef[]; timeoutMs: number; what: string }): Promise<void> {
  const deadline = Date.now() + o.timeoutMs;
  const since = new Map<string, { line: string; at: number }>();
  for (;;) {
    if (o.signal.aborted) throw abortError(o.signal);
    const reports = await describeWorkloads(o.client, o.deployments);
    const pending = reports.filter((r) => r.readiness.state !== 'current');
    if (pending.length === 0 && reports.length === o.deployments.length) return;
    const now = Date.now();
    for (const r of pending) {
      const s = since.get(r.object);
      if (!s || s.line !== r.line) since.set(r.object, { line: r.line, at: now });
    }
    const missing = pending.filter((r) => r.readiness.state === 'not-found');
    const stuck = pending.filter((r) => r.terminal || (r.problem !== null && STUCKABLE.has(r.problem) && now - since.get(r.object)!.at >= STUCK_MS));
    if (stuck.length > 0 && missing.length === 0) {
      throw new CliError('INSTALL_FAILED', `${o.what} cannot start: ${describe(stuck)}`, ExitCode.failure, `Check: ${stuck[0]!.advice}; then \`standup up\` again.`);
    }
    o.steps.status(o.id, 'progressing', pending.length ? `waiting for ${pending.map((r) => `${r.object}: ${r.line}`).join('; ')}` : 'waiting (the Deployments cannot be read right now)');
    if (now > deadline) {
      throw new WaitTimeoutError(`${o.what} are not Available after ${humanDuration(o.timeoutMs)}: ${describe(pending)}`, pending.map((r) => r.object),
        `Check: ${pending.find((r) => r.advice)?.advice ?? 'kubectl get pods -n flux-system'}; then \`standup resume\`.`);
    }
    await realDelay(2000, o.signal);
  }
}

const describe = (rs: readonly WorkloadReport[]) => rs.map((r) => `${r.object} ${r.line}`).join('; ');
