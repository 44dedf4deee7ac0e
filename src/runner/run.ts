// `up`, `resume` and `crds` as data: each command's parts, built once from the target (what tiers.yaml configures)
// and the flags. The mode conditions live here and nowhere else; reset.ts reuses up's parts for `reset --up`.

import { FLUX_KUSTOMIZATION, FLUX_SOURCE_API, type K8sObject } from '../cluster/client.js';
import { refKey } from '../model/ref.js';
import { ConfigError } from '../model/errors.js';
import { applySecretsAndSync } from './apply-sync.js';
import { checkGraph } from './check.js';
import type { Clock } from './clock.js';
import type { TierResult } from './converge.js';
import { applyCrdFallback } from './crds.js';
import type { Emit, StepId, StepInfo } from './events.js';
import { installDeployments, installFlux, waitFluxControllers } from './install.js';
import { drive, type RunResult, type RunScope, type RunSummary } from './lifecycle.js';
import { forgetMirror, MIRROR_RECORD, recordedMirror, recordMirror, shownUrl } from './mirror-record.js';
import { fluxCrdsPresent, preflight } from './preflight.js';
import { holdsSource, mirrorSync } from './root-sync.js';
import { gate, step, stepGroup, type RunPart, type RunPlan } from './run-plan.js';
import type { InstallManifests, RunTarget } from './run-target.js';
import { installInstance, instanceRef, instanceWithMirror, type InstanceManifest } from './flux-instance.js';
import { retryTransient } from './writer.js';
import { tierSteps, waitForTiers } from './tiers.js';
import { dryRunResourceSets, resourceSetSteps } from './resourcesets.js';
import type { Writer } from './writer.js';

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
  clock?: Clock;
}

/** What the parts of one run hand each other: the sync objects up applies, and how the tiers ended. */
export interface RunState {
  sync: K8sObject[];
  results: TierResult[];
}

export const newRunState = (): RunState => ({ sync: [], results: [] });

const CHECK: StepInfo = { id: 'check', kind: 'check', title: 'Check the graph' };
const PREFLIGHT: StepInfo = { id: 'preflight', kind: 'preflight', title: 'Preflight' };

/**
 * `up`, `resume` and `crds`, from the `plan` event to `run-end`. Safe to interrupt at any point: every write is one
 * idempotent server-side apply or annotation, so `resume` picks up from live state. Never throws: the result carries
 * the error that ended the run.
 */
export function run(t: RunTarget, mode: RunMode, o: RunOptions): Promise<RunResult> {
  return drive(planRun(t, mode, o), { client: t.client, emit: o.emit, signal: o.signal, overallMs: t.timeouts.overallMs, clock: o.clock });
}

/** The parts of `up`, `resume` or `crds`, in order. */
export function planRun(t: RunTarget, mode: RunMode, o: Pick<RunOptions, 'dryRun' | 'sourceUrl' | 'force'>): RunPlan {
  const st = newRunState();
  const dryRun = !!o.dryRun;
  const parts: RunPart[] =
    mode === 'up' ? [...upChecks(t, o, st), preflightStep(t, 'up'), ...upWrites(t, o, st)]
    : mode === 'resume' ? [step(CHECK, async (s) => checkGraph(t, !!o.force, s.emit)), preflightStep(t, 'resume'), ...resumeFinishesUp(t, dryRun), ...resumeFallback(t, dryRun), tiersPart(t, 'resume', dryRun, st)]
    : [preflightStep(t, 'crds'), crdsStep(t, dryRun)];
  const done = (summary: RunSummary): string => {
    if (mode === 'crds') return dryRun ? 'dry run: the CRD fallback would be applied as shown' : 'CRD fallback applied';
    const skipped = st.results.filter((x) => x.result === 'skipped').length;
    return dryRun ? `dry run: nothing was written; ${st.results.length} Kustomizations would be waited on` : `${st.results.length} Kustomizations Ready (${skipped} already were)${helmPhrase(summary)}`;
  };
  return { cluster: t.name, command: mode, dryRun, parts, done };
}

/**
 * What must hold before `up` writes anything: the mirror can hold, the sync holds the root source, and the static
 * checks say the graph can converge (or --force). Also `reset --up`'s, before its teardown.
 */
export function upChecks(t: RunTarget, o: Pick<RunOptions, 'sourceUrl' | 'force'>, st: RunState): RunPart[] {
  return [
    gate(async () => {
      const b = t.bootstrap;
      // A FluxInstance is the root sync: the mirror goes into its spec.sync (see upWrites), nothing else is applied.
      if (b?.instance) return;
      st.sync = b ? (o.sourceUrl ? mirrorSync(b.sync, t.ctx.rootSync, o.sourceUrl, b.syncDir) : [...b.sync]) : [];
      if (b && !holdsSource(st.sync, t.ctx.rootSync)) {
        const src = refKey(t.ctx.rootSync.source);
        throw new ConfigError('ROOT_SOURCE_UNKNOWN', `${b.syncDir} holds no ${src}, the source standup takes the root sync to read${t.ctx.rootSync.key ? '' : ' (no root Kustomization for the entry was found in its build)'}`,
          `Set clusters.${t.name}.source in tiers.yaml to the source the root Kustomization reads, or point bootstrap.sync at the directory that holds it.`);
      }
    }),
    step(CHECK, async (s) => checkGraph(t, !!o.force, s.emit)),
  ];
}

/** What `up` writes, after its checks and preflight: Flux (when tiers.yaml installs it), the sync, the CRD fallback, the tiers. */
export function upWrites(t: RunTarget, o: Pick<RunOptions, 'dryRun' | 'sourceUrl'>, st: RunState): RunPart[] {
  const dryRun = !!o.dryRun;
  const install = t.bootstrap?.install;
  const root = t.ctx.rootSync;
  const instance = t.bootstrap?.instance;
  return [
    ...(install
      ? [step({ id: 'install', kind: 'install', title: instance ? 'Install flux-operator' : 'Install Flux' }, async (s) => {
          // Before anything else: killed before the sync is applied, resume must still sync from the mirror.
          const w = writer(t, s, 'install', dryRun);
          if (o.sourceUrl) await recordMirror(w, root, o.sourceUrl, install.objects.find((x) => x.kind === 'Namespace' && x.apiVersion === 'v1' && x.metadata.name === root.source.namespace));
          else await forgetMirror(w, root);
          return installFlux({ ...w, steps: s.steps, install, timeoutMs: t.timeouts.defaultMs });
        })]
      : []),
    instance
      ? step({ id: 'bootstrap', kind: 'bootstrap', title: `Install Flux through FluxInstance/${instance.object.metadata.namespace}/flux (secrets, controllers, root sync)` }, async (s) => {
          const w = writer(t, s, 'bootstrap', dryRun);
          if (!install) await (o.sourceUrl ? recordMirror(w, root, o.sourceUrl) : forgetMirror(w, root));
          const secrets = await applySecretsAndSync({ ...w, secrets: t.bootstrap?.secrets ?? [], sync: [], root: { ...root, key: null, ks: null } });
          const fi = o.sourceUrl ? { ...instance, object: instanceWithMirror(instance.object, o.sourceUrl) } : instance;
          const done = await installInstance({ ...w, steps: s.steps, instance: fi, root, timeoutMs: t.timeouts.defaultMs, apply: true });
          return t.bootstrap?.secrets.length ? { ...done, message: `${secrets.message} (secrets); ${done.message}` } : done;
        })
      : step({ id: 'bootstrap', kind: 'bootstrap', title: 'Bootstrap Flux (secrets, sync)' }, (s) =>
          applySecretsAndSync({ ...writer(t, s, 'bootstrap', dryRun), secrets: t.bootstrap?.secrets ?? [], sync: st.sync, root })),
    crdsStep(t, dryRun),
    tiersPart(t, 'up', dryRun, st),
  ];
}

/**
 * When tiers.yaml installs Flux from the repository, resume waits for its controllers, and applies the sync an `up`
 * stopped during the install never applied (the same idempotent apply).
 */
function resumeFinishesUp(t: RunTarget, dryRun: boolean): RunPart[] {
  const b = t.bootstrap;
  const install = b?.install;
  if (!t.installsFlux || !b || !install) return [];
  if (b.instance) return resumeInstance(t, dryRun, install, b.instance);
  const controllers = step({ id: 'install', kind: 'install', title: 'Flux controllers' }, async (s) => {
    // up stopped before its install had applied Flux's CRDs: apply the install manifests (what is there is unchanged).
    if ((await fluxCrdsPresent(t.client)).missing.length > 0) return installFlux({ ...writer(t, s, 'install', dryRun), steps: s.steps, install, timeoutMs: t.timeouts.defaultMs });
    return {
      result: 'ok',
      message: await waitFluxControllers({ client: t.client, steps: s.steps, id: 'install', signal: s.signal, clock: s.clock, deployments: installDeployments(install), file: install.file, timeoutMs: t.timeouts.defaultMs }),
    };
  });
  if (b.sync.length === 0) return [controllers];
  const sync = step({ id: 'bootstrap', kind: 'bootstrap', title: 'Bootstrap Flux (secrets, sync), if up did not finish it' }, async (s) => {
    if (await rootSyncThere(t)) return { result: 'skipped', message: 'the root sync is already there' };
    const root = t.ctx.rootSync;
    const mirror = await recordedMirror(t.client, root, s.signal, s.clock);
    if (mirror) s.emit({ type: 'log', level: 'info', message: `using the mirror URL that up recorded (ConfigMap/${root.source.namespace}/${MIRROR_RECORD}): ${shownUrl(mirror)}` });
    const done = await applySecretsAndSync({ ...writer(t, s, 'bootstrap', dryRun), secrets: b.secrets, sync: mirror ? mirrorSync(b.sync, root, mirror, b.syncDir) : b.sync, root });
    return mirror ? { ...done, message: `${done.message}; using the mirror URL that up recorded (${shownUrl(mirror)})` } : done;
  });
  return [controllers, sync];
}

/**
 * The CRD fallback, as `up` applies it before the tiers: an `up` stopped before its own fallback step (in the
 * install, say) would otherwise leave resume without it, while the checks let the run start because the fallback
 * covers a deadlock. Server-side apply of what is already there changes nothing.
 */
const resumeFallback = (t: RunTarget, dryRun: boolean): RunPart[] => (t.fallback.objects.length > 0 ? [crdsStep(t, dryRun)] : []);

/**
 * resume after an `up` through flux-operator: the operator's Deployment, then the FluxInstance (applied if up stopped
 * before it, from the mirror up recorded) waited on until Ready, with standup's own suspension of it lifted.
 */
function resumeInstance(t: RunTarget, dryRun: boolean, install: InstallManifests, instance: InstanceManifest): RunPart[] {
  const root = t.ctx.rootSync;
  return [
    step({ id: 'install', kind: 'install', title: 'flux-operator' }, async (s) => ({
      result: 'ok',
      message: await waitFluxControllers({ client: t.client, steps: s.steps, id: 'install', signal: s.signal, clock: s.clock, deployments: installDeployments(install), file: install.file, timeoutMs: t.timeouts.defaultMs }),
    })),
    step({ id: 'bootstrap', kind: 'bootstrap', title: `FluxInstance/${instance.object.metadata.namespace}/flux (applied if up did not get to it)` }, async (s) => {
      const w = writer(t, s, 'bootstrap', dryRun);
      const there = await retryTransient(() => t.client.find(instanceRef(instance.object)), s.signal, s.clock);
      const mirror = there ? null : await recordedMirror(t.client, root, s.signal, s.clock);
      if (mirror) s.emit({ type: 'log', level: 'info', message: `using the mirror URL that up recorded (ConfigMap/${root.source.namespace}/${MIRROR_RECORD}): ${shownUrl(mirror)}` });
      const fi = mirror ? { ...instance, object: instanceWithMirror(instance.object, mirror) } : instance;
      return installInstance({ ...w, steps: s.steps, instance: fi, root, timeoutMs: t.timeouts.defaultMs, apply: !there });
    }),
  ];
}

export const preflightStep = (t: RunTarget, mode: RunMode | 'reset'): RunPart =>
  step(PREFLIGHT, async (s) => ({ result: 'ok', message: await preflight(t, mode, s) }));

const crdsStep = (t: RunTarget, dryRun: boolean): RunPart =>
  step({ id: 'crds', kind: 'crds', title: 'CRD fallback' }, (s) => applyCrdFallback({ ...writer(t, s, 'crds', dryRun), objects: t.fallback.objects, files: t.fallback.files }));

const tiersPart = (t: RunTarget, mode: 'up' | 'resume', dryRun: boolean, st: RunState): RunPart =>
  stepGroup([...tierSteps(t), ...resourceSetSteps(t)], async (s) => {
    st.results = await waitForTiers(t, mode, dryRun, s);
    if (dryRun) dryRunResourceSets(t.ctx, s.steps);
  });

const writer = (t: RunTarget, s: RunScope, id: StepId, dryRun: boolean): Writer => ({ client: t.client, emit: s.emit, id, signal: s.signal, clock: s.clock, dryRun });

/** The root Kustomization and its source both exist. */
async function rootSyncThere(t: RunTarget): Promise<boolean> {
  const { ks, source } = t.ctx.rootSync;
  const src = await t.client.find({ ...source, apiVersion: FLUX_SOURCE_API });
  if (!src) return false;
  if (!ks) return true;
  return !!(await t.client.find({ ...ks, ...FLUX_KUSTOMIZATION }));
}

/** The summary's HelmRelease part: how many standup asked, and how many its request got past the dependency gate. */
function helmPhrase(s: RunSummary): string {
  const h = s.helmReleases;
  if (!h || h.asked === 0) return '';
  return `; ${h.asked} HelmRelease${h.asked === 1 ? '' : 's'} asked to reconcile once their dependencies were Ready (${h.passed} past helm-controller's dependency check on the request, not after --requeue-dependency)`;
}
