// The last part of up and resume (and of reset --up): fetch the root source, then wait for every tier, on one set of
// watches that also serve the HelmRelease requests beside them.

import { refKey } from '../model/ref.js';
import { CliError } from '../model/errors.js';
import { converge, type TierResult } from './converge.js';
import { dryRunTiers } from './dry-run.js';
import type { StepId, StepInfo } from './events.js';
import { HelmRequester } from './helm-requester.js';
import { additiveCel, anyReadyExpr, describeAdditiveCel } from './feature-gates.js';
import type { RunScope } from './lifecycle.js';
import { LiveState } from './live-state.js';
import { fluxCrdsPresent } from './preflight.js';
import { rootSuspension, setRootSuspended, SUSPENDED_BY } from './root-sync.js';
import { liveInstanceOwner, resumeThroughInstance } from './flux-instance.js';
import { timeoutFor, type RunTarget } from './run-target.js';
import { refreshSource, settleSource } from './source.js';
import { tierStepId } from './step-id.js';

/** The steps this part drives: the source, then one per Kustomization of the plan. */
export const tierSteps = (t: RunTarget): StepInfo[] => [
  { id: 'source', kind: 'source', title: 'Fetch source' },
  ...t.ctx.plan.kustomizations.map((k): StepInfo => ({ id: tierStepId(k.key), kind: 'tier', title: k.key, level: k.level ?? undefined, dependsOn: k.dependsOn })),
];

/** Waits for the source and every tier (`up`, `resume`); with --dry-run, says what it would ask for. */
export async function waitForTiers(t: RunTarget, mode: 'up' | 'resume', dryRun: boolean, s: RunScope): Promise<TierResult[]> {
  const { steps, emit, signal, clock } = s;
  const fluxThere = (await fluxCrdsPresent(t.client)).missing.length === 0;
  // The watches live as long as these steps: stopped when they end, however they end.
  const watching = new AbortController();
  const liveSignal = AbortSignal.any([signal, watching.signal]);
  const live = fluxThere ? new LiveState(t.client, liveSignal, clock) : null;
  let helm: { requests: HelmRequester; done: Promise<void> } | null = null;
  try {
    await live?.start(kindsReadAtOnce(t));
    if (dryRun) return dryRunTiers({ ctx: t.ctx, steps, emit, live });
    if (!live) throw new CliError('FLUX_GONE', `Flux's CRDs are gone from ${t.guard.actualContext}`, { hint: 'Run `standup up` to install Flux again.' });
    // Beside the tier waits, on the same watches: HelmReleases turned away for a dependency are asked again at once.
    // Releases the root sync applies (not a tier) report under the source step, which waits on the root source.
    const owners = new Map<string, StepId>(t.ctx.plan.kustomizations.map((k) => [k.key, tierStepId(k.key)]));
    if (t.ctx.rootSync.key && !owners.has(t.ctx.rootSync.key)) owners.set(t.ctx.rootSync.key, 'source');
    // A readyExpr replaces the Ready check unless the controllers' AdditiveCELDependencyCheck is on: read it, and say
    // what was taken when nothing said.
    const gates = anyReadyExpr(t.ctx.cluster.objects) ? await additiveCel(t.client, t.additiveCel) : null;
    if (gates) emit({ type: 'log', level: 'info', message: describeAdditiveCel(gates) });
    const requests = new HelmRequester({ client: t.client, live, emit, steps: owners, clock, ...(gates ? { additiveCel: gates.helm.on } : {}) });
    helm = { requests, done: requests.run(liveSignal) };
    return await waitTiers(t, mode, s, live, gates?.kustomize.on ?? false);
  } finally {
    watching.abort();
    if (helm) {
      await helm.done;
      s.summary.helmReleases = { ...helm.requests.stats };
    }
  }
}

/**
 * The kinds the waits read from their first look: Kustomizations and the sources the root and the tiers read. With
 * HelmReleases in the repository, every kind (a chart may come from any source kind, and a release not yet listed
 * would look like no release).
 */
function kindsReadAtOnce(t: RunTarget): ReadonlySet<string> | undefined {
  if (t.ctx.cluster.objects.some((o) => o.kind === 'HelmRelease')) return undefined;
  return new Set(['Kustomization', t.ctx.rootSync.source.kind, ...t.ctx.plan.kustomizations.flatMap((k) => t.ctx.graph.nodes.get(k.key)?.sourceRef.kind ?? [])]);
}

async function waitTiers(t: RunTarget, mode: 'up' | 'resume', s: RunScope, live: LiveState, additive: boolean): Promise<TierResult[]> {
  const { steps, emit, signal, clock } = s;
  if (mode === 'resume') await resumeRootSuspendedByStandup(t, s);
  const ref = t.ctx.rootSync.source;
  if (mode === 'resume' && !live.sources.has(refKey(ref))) {
    throw new CliError('SOURCE_MISSING', `${refKey(ref)}, the source the root sync reads, does not exist on ${t.guard.actualContext}`, {
      hint: `Run \`standup up\` (it applies the root sync), or set clusters.${t.name}.source in tiers.yaml if the root reads another source.`,
    });
  }
  await steps.run('source', async () => {
    const rev = await refreshSource({ client: t.client, live, ref, emit, steps, id: 'source', signal, clock, timeoutMs: timeoutFor(t.timeouts, `${ref.namespace}/${ref.name}`) });
    return { result: 'ok', message: `${refKey(ref)} at ${rev}` };
  });
  const results = await converge({ failures: (s.summary.failedTiers ??= []), ctx: t.ctx, client: t.client, live, steps, emit, signal, clock, timeouts: t.timeouts, fallback: t.fallback.crds, knowledge: t.crdKnowledge, outages: s.outages, locateImage: t.locateImage, additiveCel: additive });
  await settleSource({ live, ref, emit, signal, clock });
  return results;
}

/**
 * `reset` suspends the root sync and records it in an annotation; resume, asked to finish the job, takes back
 * standup's own suspension. A suspension someone else made is theirs: resume stops and says so.
 */
async function resumeRootSuspendedByStandup(t: RunTarget, s: RunScope): Promise<void> {
  const root = t.ctx.rootSync;
  const owner = await liveInstanceOwner(t.client, root);
  if (owner) {
    const lifted = await resumeThroughInstance({ client: t.client, emit: s.emit, id: 'source', signal: s.signal, clock: s.clock }, owner, root, true);
    if (lifted.length) s.emit({ type: 'log', level: 'info', message: `the root sync was suspended by standup reset; ${lifted.join(', ')}` });
    return;
  }
  const susp = await rootSuspension(t.client, root);
  if (!susp.suspended) return;
  if (!susp.by?.startsWith('standup')) {
    const { namespace, name } = root.ks!;
    throw new CliError('ROOT_SUSPENDED', `the root sync ${root.key} is suspended (not by standup), so no tier would ever change`, {
      hint: `Resume it if that is safe (\`flux resume ks ${name} -n ${namespace}\`), or run \`standup up\`, which resumes it.`,
    });
  }
  s.emit({ type: 'log', level: 'info', message: `the root sync ${root.key} was suspended by ${susp.by.split(' at ')[0]} (annotation ${SUSPENDED_BY}); resuming it` });
  await setRootSuspended({ client: t.client, emit: s.emit, id: 'source', signal: s.signal, clock: s.clock }, root, false);
}
