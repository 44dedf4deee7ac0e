import type { Problem } from '../model/problem.js';
import { applyBootstrap } from './bootstrap.js';
import { blockingProblems } from './blocking.js';
import { converge, type TierOutcome } from './converge.js';
import { applyCrdFallback } from './crds.js';
import { dryRunTiers } from './dry-run.js';
import { NotConvergeableError } from './errors.js';
import { tierStepId, type Emit, type StepInfo } from './events.js';
import { timeoutFor, type RunTarget } from './inputs.js';
import { installDeployments, installFlux, waitFluxControllers } from './install.js';
import { drive, type RunResult, type RunScope } from './lifecycle.js';
import { LiveState } from './live-state.js';
import { HelmRequests } from './helm-requests.js';
import { fluxCrdsPresent, preflight } from './preflight.js';
import { forgetMirror, MIRROR_RECORD, recordedMirror, recordMirror, shownUrl } from './mirror-record.js';
import { holdsSource, mirrorSync, rootSuspension, setRootSuspended, SUSPENDED_BY } from './root-sync.js';
import { refreshSource, settleSource, sourceKey } from './source.js';
import { CliError, ConfigError, ExitCode } from '../model/errors.js';
import type { K8sObject } from '../cluster/client.js';

export type RunMode = 'up' | 'resume' | 'crds';

export interface RunOptions {
  emit: Emit;
  /** Aborted by Ctrl-C / SIGTERM. */
  signal: AbortSignal;
  dryRun?: boolean;
  /** --source-url: sync from this mirror instead of git's URL (and keep it so: see mirrorSync). */
  sourceUrl?: string;
  /** --force: go on although static checks say the graph cannot converge. */
  force?: boolean;
}

/** The steps a command will run, for the `plan` event (reporters draw them all up front). */
export function stepsFor(t: RunTarget, mode: RunMode): StepInfo[] {
  const steps: StepInfo[] = [];
  if (mode !== 'crds') steps.push({ id: 'check', kind: 'check', title: 'Check the graph' });
  steps.push({ id: 'preflight', kind: 'preflight', title: 'Preflight' });
  if (mode === 'up' && t.bootstrap?.install) steps.push({ id: 'install', kind: 'install', title: 'Install Flux' });
  if (mode === 'resume' && t.installsFlux && t.bootstrap?.install) {
    steps.push({ id: 'install', kind: 'install', title: 'Flux controllers' });
    if (t.bootstrap.sync.length > 0) steps.push({ id: 'bootstrap', kind: 'bootstrap', title: 'Bootstrap Flux (secrets, sync), if up did not finish it' });
  }
  if (mode === 'up') steps.push({ id: 'bootstrap', kind: 'bootstrap', title: 'Bootstrap Flux (secrets, sync)' });
  if (mode !== 'resume') steps.push({ id: 'crds', kind: 'crds', title: 'CRD fallback' });
  if (mode === 'crds') return steps;
  steps.push({ id: 'source', kind: 'source', title: 'Fetch source' });
  for (const k of t.ctx.plan.kustomizations) {
    steps.push({ id: tierStepId(k.key), kind: 'tier', title: k.key, level: k.level ?? undefined, dependsOn: k.dependsOn });
  }
  return steps;
}

/**
 * `up`, `resume` and `crds`, from the `plan` event to `run-end`. Safe to interrupt at any point: every write is one
 * idempotent server-side apply or annotation, so `resume` picks up from live state. Never throws: the result carries
 * the error that ended the run.
 */
export function run(t: RunTarget, mode: RunMode, o: RunOptions): Promise<RunResult & { outcomes: TierOutcome[] }> {
  let outcomes: TierOutcome[] = [];
  return drive(
    { cluster: t.name, command: mode, steps: stepsFor(t, mode), dryRun: !!o.dryRun, client: t.client, emit: o.emit, signal: o.signal, overallMs: t.timeouts.overallMs },
    async (scope) => {
      outcomes = await runSteps(t, mode, o, scope);
      if (mode === 'crds') return o.dryRun ? 'dry run: the CRD fallback would be applied as shown' : 'CRD fallback applied';
      const skipped = outcomes.filter((x) => x.result === 'skipped').length;
      return o.dryRun ? `dry run: nothing was written; ${outcomes.length} Kustomizations would be waited on` : `${outcomes.length} Kustomizations Ready (${skipped} already were)${helmPhrase(scope.summary)}`;
    },
  ).then((r) => ({ ...r, outcomes }));
}

/**
 * What must hold before anything is written, for `up` and `resume`: the mirror can hold, the sync holds the root
 * source, and the static checks say the graph can converge (or --force). Returns the sync objects to apply.
 * `reset --up` runs it before its teardown.
 */
export async function beforeWrites(t: RunTarget, mode: RunMode, o: RunOptions, s: RunScope): Promise<K8sObject[]> {
  const sync = mode === 'up' && t.bootstrap ? (o.sourceUrl ? mirrorSync(t.bootstrap.sync, t.ctx.rootSync, o.sourceUrl, t.bootstrap.syncDir) : t.bootstrap.sync) : [];
  if (mode === 'up' && t.bootstrap && !holdsSource(sync, t.ctx.rootSync)) {
    const src = sourceKey(t.ctx.rootSync.source);
    throw new ConfigError('ROOT_SOURCE_UNKNOWN', `${t.bootstrap.syncDir} holds no ${src}, the source standup takes the root sync to read${t.ctx.rootSync.key ? '' : ' (no root Kustomization for the entry was found in its build)'}`,
      `Set clusters.${t.name}.source in tiers.yaml to the source the root Kustomization reads, or point bootstrap.sync at the directory that holds it.`);
  }
  if (mode !== 'crds') await s.steps.run('check', async () => checkGraph(t, !!o.force, s.emit));
  return [...sync];
}

/** The steps of up/resume/crds; also the tail of `reset --up` (`prepared`: reset ran the checks and the preflight). */
export async function runSteps(t: RunTarget, mode: RunMode, o: RunOptions, s: RunScope, prepared?: K8sObject[]): Promise<TierOutcome[]> {
  const { steps, emit, signal } = s;
  const dryRun = !!o.dryRun;
  const sync = prepared ?? (await beforeWrites(t, mode, o, s));
  if (!prepared) await steps.run('preflight', async () => ({ result: 'ok', message: await preflight(t, mode, emit) }));
  const install = t.bootstrap?.install;
  if (mode === 'up' && install) {
    await steps.run('install', async () => {
      // Before anything else: killed before the sync is applied, resume must still sync from the mirror.
      const w = { client: t.client, emit, id: 'install', signal, dryRun };
      const root = t.ctx.rootSync;
      if (o.sourceUrl) await recordMirror(w, root, o.sourceUrl, install.objects.find((x) => x.kind === 'Namespace' && x.apiVersion === 'v1' && x.metadata.name === root.source.namespace));
      else await forgetMirror(w, root);
      return installFlux({ client: t.client, steps, emit, id: 'install', signal, install, timeoutMs: t.timeouts.defaultMs, dryRun });
    });
  }
  if (mode === 'resume' && t.installsFlux && install) {
    await steps.run('install', async () => {
      const deployments = installDeployments(install);
      return { result: 'ok', message: await waitFluxControllers({ client: t.client, steps, id: 'install', signal, deployments, file: install.file, timeoutMs: t.timeouts.defaultMs }) };
    });
    // An `up` stopped during the install never applied the sync: resume finishes that too (the same idempotent apply).
    if (t.bootstrap!.sync.length > 0) {
      await steps.run('bootstrap', async () => {
        if (await rootSyncThere(t)) return { result: 'skipped', message: 'the root sync is already there' };
        const b = t.bootstrap!;
        const mirror = await recordedMirror(t.client, t.ctx.rootSync, signal);
        if (mirror) {
          emit({ type: 'log', level: 'info', message: `using the mirror URL that up recorded (ConfigMap/${t.ctx.rootSync.source.namespace}/${MIRROR_RECORD}): ${shownUrl(mirror)}` });
        }
        const sync = mirror ? mirrorSync(b.sync, t.ctx.rootSync, mirror, b.syncDir) : b.sync;
        const done = await applyBootstrap({ client: t.client, emit, id: 'bootstrap', signal, secrets: b.secrets, sync, root: t.ctx.rootSync, dryRun });
        return mirror ? { ...done, message: `${done.message}; using the mirror URL that up recorded (${shownUrl(mirror)})` } : done;
      });
    }
  }
  if (mode === 'up') {
    await steps.run('bootstrap', () => applyBootstrap({ client: t.client, emit, id: 'bootstrap', signal, secrets: t.bootstrap?.secrets ?? [], sync, root: t.ctx.rootSync, dryRun }));
  }
  if (mode !== 'resume') {
    await steps.run('crds', () => applyCrdFallback({ client: t.client, objects: t.fallback.objects, files: t.fallback.files, emit, id: 'crds', dryRun }));
  }
  if (mode === 'crds') return [];

  const fluxThere = (await fluxCrdsPresent(t.client)).missing.length === 0;
  // The watches live as long as these steps: stopped when they end, however they end.
  const watching = new AbortController();
  const liveSignal = AbortSignal.any([signal, watching.signal]);
  const live = fluxThere ? new LiveState(t.client, liveSignal) : null;
  let helm: { requests: HelmRequests; done: Promise<void> } | null = null;
  try {
    await live?.start();
    if (dryRun) return dryRunTiers({ ctx: t.ctx, steps, emit, live });
    if (!live) throw new CliError('FLUX_MISSING', `Flux's CRDs are gone from ${t.guard.actualContext}`, ExitCode.failure, 'Run `standup up` to install Flux again.');
    // Beside the tier waits, on the same watches: HelmReleases turned away for a dependency are asked again at once.
    // Releases the root sync applies (not a tier) report under the source step, which waits on the root source.
    const owners = new Map(t.ctx.plan.kustomizations.map((k) => [k.key, tierStepId(k.key)]));
    if (t.ctx.rootSync.key && !owners.has(t.ctx.rootSync.key)) owners.set(t.ctx.rootSync.key, 'source');
    const requests = new HelmRequests({ client: t.client, live, emit, steps: owners });
    helm = { requests, done: requests.run(liveSignal) };
    return await waitTiers(t, mode, s, live);
  } finally {
    watching.abort();
    if (helm) {
      await helm.done;
      s.summary.helmReleases = { ...helm.requests.stats };
    }
  }
}

async function waitTiers(t: RunTarget, mode: RunMode, s: RunScope, live: LiveState): Promise<TierOutcome[]> {
  const { steps, emit, signal } = s;
  if (mode === 'resume') await resumeRootSuspendedByStandup(t, s);
  const ref = t.ctx.rootSync.source;
  if (mode === 'resume' && !live.sources.has(sourceKey(ref))) {
    throw new CliError('SOURCE_MISSING', `${sourceKey(ref)}, the source the root sync reads, does not exist on ${t.guard.actualContext}`, ExitCode.failure,
      `Run \`standup up\` (it applies the root sync), or set clusters.${t.name}.source in tiers.yaml if the root reads another source.`);
  }
  await steps.run('source', async () => {
    const rev = await refreshSource({ client: t.client, live, ref, emit, steps, id: 'source', signal, timeoutMs: timeoutFor(t.timeouts, `${ref.namespace}/${ref.name}`) });
    return { result: 'ok', message: `${sourceKey(ref)} at ${rev}` };
  });
  const outcomes = await converge({ ctx: t.ctx, client: t.client, live, steps, emit, signal, timeouts: t.timeouts, fallback: t.fallback.crds, knowledge: t.crdKnowledge, outages: s.outages });
  await settleSource({ live, ref, emit, signal });
  return outcomes;
}

/** The root Kustomization and its source both exist. */
async function rootSyncThere(t: RunTarget): Promise<boolean> {
  const { key, source } = t.ctx.rootSync;
  const src = await t.client.find({ apiVersion: 'source.toolkit.fluxcd.io/v1', kind: source.kind, namespace: source.namespace, name: source.name });
  if (!src) return false;
  if (!key) return true;
  const [namespace, name] = [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)];
  return !!(await t.client.find({ apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', namespace, name }));
}

/** Static checks that decide convergence, before any write: refused unless --force (which says what it ignores). */
function checkGraph(t: RunTarget, force: boolean, emit: Emit): { result: 'ok'; message: string } {
  const blocking = blockingProblems(t.problems, t.name, t.fallback.crds);
  if (blocking.length === 0) return { result: 'ok', message: `${t.ctx.plan.kustomizations.length} Kustomizations, ${t.ctx.levels.levels.length} levels; nothing keeps them from converging` };
  if (!force) throw new NotConvergeableError(blocking);
  for (const p of blocking) emit({ type: 'log', level: 'warn', message: `--force: ignoring ${where(p)}: ${p.message}` });
  return { result: 'ok', message: `${blocking.length} problem${blocking.length === 1 ? '' : 's'} that keep it from converging ignored (--force)` };
}

/** The summary's HelmRelease part: how many standup asked, and how many its request got past the dependency gate. */
function helmPhrase(s: RunScope['summary']): string {
  const h = s.helmReleases;
  if (!h || h.asked === 0) return '';
  return `; ${h.asked} HelmRelease${h.asked === 1 ? '' : 's'} asked to reconcile once their dependencies were Ready (${h.passed} past helm-controller's dependency check on the request, not after --requeue-dependency)`;
}

const where = (p: Problem) => (p.file ? `${p.file}${p.line ? `:${p.line}` : ''}` : p.object ?? 'the repository');

/**
 * `reset` suspends the root sync and records it in an annotation; resume, asked to finish the job, takes back
 * standup's own suspension. A suspension someone else made is theirs: resume stops and says so.
 */
async function resumeRootSuspendedByStandup(t: RunTarget, s: RunScope): Promise<void> {
  const root = t.ctx.rootSync;
  const susp = await rootSuspension(t.client, root);
  if (!susp.suspended) return;
  if (!susp.by?.startsWith('standup')) {
    throw new CliError('ROOT_SUSPENDED', `the root sync ${root.key} is suspended (not by standup), so no tier would ever change`, ExitCode.failure,
      `Resume it if that is safe (\`flux resume ks ${root.key!.split('/')[1]} -n ${root.key!.split('/')[0]}\`), or run \`standup up\`, which resumes it.`);
  }
  s.emit({ type: 'log', level: 'info', message: `the root sync ${root.key} was suspended by ${susp.by.split(' at ')[0]} (annotation ${SUSPENDED_BY}); resuming it` });
  await setRootSuspended({ client: t.client, emit: s.emit, id: 'source', signal: s.signal }, root, false);
}
