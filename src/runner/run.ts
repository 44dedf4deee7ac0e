import { WaitTimeoutError, InterruptedError } from './errors.js';
import { tierStepId, type Emit, type StepInfo } from './events.js';
import { converge, type TierOutcome } from './converge.js';
import { LiveState } from './live-state.js';
import { fluxCrdsPresent, preflight } from './preflight.js';
import { bootstrapFlux } from './bootstrap.js';
import { applyCrdFallback } from './crds.js';
import { refreshSource, type SourceRefLike } from './source.js';
import { fallbackCrds, type Session } from './session.js';
import { runStep } from './step.js';
import { isRootSync } from '../plan/plan.js';
import { FLUX_KUSTOMIZATION } from '../cluster/client.js';
import { retryTransient } from './retry.js';

export type RunMode = 'up' | 'resume' | 'crds';

export interface RunOptions {
  emit: Emit;
  /** Aborted by Ctrl-C / SIGTERM. */
  signal: AbortSignal;
  dryRun?: boolean;
  sourceUrl?: string;
  /** reset --up has run the preflight already. */
  skipPreflight?: boolean;
}

/** The steps a command will run, for the `plan` event (reporters draw them all up front). */
export function stepsFor(s: Session, mode: RunMode): StepInfo[] {
  const steps: StepInfo[] = [{ id: 'preflight', kind: 'preflight', title: 'Preflight' }];
  if (mode === 'up') steps.push({ id: 'bootstrap', kind: 'bootstrap', title: 'Bootstrap Flux (install, secrets, sync)' });
  if (mode !== 'resume') steps.push({ id: 'crds', kind: 'crds', title: 'CRD fallback' });
  if (mode === 'crds') return steps;
  steps.push({ id: 'source', kind: 'source', title: 'Fetch source' });
  for (const k of s.ctx.plan.kustomizations) {
    steps.push({ id: tierStepId(k.key), kind: 'tier', title: k.key, level: k.level ?? undefined, dependsOn: k.dependsOn });
  }
  return steps;
}

/**
 * `up` means stand it up: a root sync left suspended (by `standup reset`, or by hand during an incident) would keep
 * every tier from ever appearing, so up resumes it. `resume` does not: it reports the suspension instead.
 */
async function unsuspendRoot(s: Session, emit: Emit, id: string, dryRun: boolean, signal: AbortSignal): Promise<void> {
  const root = [...s.ctx.graph.nodes.values()].find((k) => isRootSync(k, s.ctx.cluster.entry));
  if (!root) return;
  const ref = { ...FLUX_KUSTOMIZATION, namespace: root.namespace, name: root.name };
  const live = dryRun ? undefined : await s.client.find(ref);
  if (!(live?.spec as { suspend?: boolean } | undefined)?.suspend) return;
  emit({ type: 'change', id, object: `Kustomization/${root.key}`, action: 'resumed (was suspended)', dryRun });
  await retryTransient(() => s.client.patchMerge(ref, { spec: { suspend: null } }), signal);
}

/** The root sync's source: tiers.yaml's, else the sourceRef of the Kustomization that reconciles the entry path. */
export function rootSource(s: Session): SourceRefLike {
  if (s.entry?.source) return s.entry.source;
  const root = [...s.ctx.graph.nodes.values()].find((k) => isRootSync(k, s.ctx.cluster.entry));
  return root?.sourceRef ?? { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' };
}

/**
 * `up`, `resume` and `crds`: every step in order, each reported through `emit`. Throws the CliError that ends the
 * run; the caller turns it into the exit code. Safe to interrupt at any point: every write is one idempotent
 * server-side apply or annotation, so `resume` picks up from live state.
 */
export async function runCommand(s: Session, mode: RunMode, o: RunOptions): Promise<TierOutcome[]> {
  const deadline = Number.isFinite(s.overallMs) ? AbortSignal.timeout(s.overallMs) : undefined;
  const signal = deadline ? AbortSignal.any([o.signal, deadline]) : o.signal;
  const watches = new AbortController();
  try {
    return await steps(s, mode, { ...o, signal }, watches.signal);
  } catch (e) {
    if (e instanceof InterruptedError && deadline?.aborted && !o.signal.aborted) {
      throw new WaitTimeoutError(`--timeout ${Math.round(s.overallMs / 1000)}s ran out`, []);
    }
    throw e;
  } finally {
    watches.abort();
  }
}

async function steps(s: Session, mode: RunMode, o: RunOptions, watchSignal: AbortSignal): Promise<TierOutcome[]> {
  const { emit, dryRun } = o;
  const root = s.repo.root;
  if (!o.skipPreflight) await runStep(emit, 'preflight', async () => ({ result: 'ok', message: await preflight(s, mode) }));
  if (mode === 'up') {
    await runStep(emit, 'bootstrap', async () => {
      const out = await bootstrapFlux({ client: s.client, root, cluster: s.name, bootstrap: s.entry?.bootstrap, emit, id: 'bootstrap', dryRun, sourceUrl: o.sourceUrl, sourceRef: rootSource(s), signal: o.signal });
      await unsuspendRoot(s, emit, 'bootstrap', !!dryRun, o.signal);
      return out;
    });
  }
  if (mode !== 'resume') {
    await runStep(emit, 'crds', () => applyCrdFallback({ client: s.client, root, files: s.fallbackFiles, emit, id: 'crds', dryRun }));
  }
  if (mode === 'crds') return [];
  if (dryRun && (await fluxCrdsPresent(s.client)).missing.length > 0) {
    // Nothing to watch before Flux exists; say what would follow instead of failing on the missing kinds.
    emit({ type: 'log', level: 'info', message: `Flux is not installed yet, so there is nothing to wait on; after the bootstrap, standup would wait on ${s.ctx.plan.kustomizations.length} Kustomizations in this order: ${s.ctx.plan.kustomizations.map((k) => k.key).join(', ')}` });
    return [];
  }

  const live = new LiveState(s.client, AbortSignal.any([watchSignal, o.signal]));
  await live.start();
  const ref = rootSource(s);
  await runStep(emit, 'source', async () => {
    const rev = await refreshSource({ client: s.client, live, ref, emit, id: 'source', signal: o.signal, timeoutMs: s.timeoutFor(`${ref.namespace}/${ref.name}`), dryRun });
    return { result: 'ok', message: rev ? `${ref.kind}/${ref.namespace}/${ref.name} at ${rev}` : 'no artifact yet (dry run)' };
  });
  const fallback = await fallbackCrds(root, s.fallbackFiles);
  return converge({ ctx: s.ctx, client: s.client, live, emit, signal: o.signal, timeoutFor: s.timeoutFor, fallback, dryRun, runtimeCrds: s.config.runtimeCrds });
}
