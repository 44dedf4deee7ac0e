import type { ClusterClient } from '../cluster/client.js';
import type { CelEngine } from '../status/cel.js';
import { systemClock, type Clock } from './clock.js';
import type { Emit, HelmReleaseRequests, StepId } from './events.js';
import type { LiveHelmRelease } from '../status/helm-source.js';
import { decideHelmRelease, newHelmTrack, type HelmCel, type HelmTrack } from './helm-decision.js';
import { FLUX_HELM_RELEASE } from '../cluster/client.js';
import type { LiveState } from './live-state.js';
import { requestReconcile } from './request-reconcile.js';

/** kustomize-controller's owner labels on everything a Kustomization applies. */
const OWNER_NAME = 'kustomize.toolkit.fluxcd.io/name';
const OWNER_NAMESPACE = 'kustomize.toolkit.fluxcd.io/namespace';

export interface HelmRequesterOptions {
  client: ClusterClient;
  live: LiveState;
  emit: Emit;
  /**
   * The step each Kustomization of the run reports under (its tier, or the root sync's): only the HelmReleases these
   * apply are standup's to ask about, and each request is a change event of that step.
   */
  steps: ReadonlyMap<string, StepId>;
  clock?: Clock;
  /** Upper bound between two looks when nothing changes (backoffs are woken for on time). */
  tickMs?: number;
  /** helm-controller's AdditiveCELDependencyCheck feature gate, when known; its default (false) otherwise. */
  additiveCel?: boolean;
  /** The CEL engine for readyExpr (tests); by default status/cel.ts's, loaded when a release first has a readyExpr. */
  loadCel?: () => Promise<CelEngine>;
}

/**
 * Asks helm-controller to reconcile each HelmRelease it turned away for a dependency ("dependency 'ns/x' is not ready")
 * the moment standup's watch sees every one of its dependencies Ready, instead of leaving it to
 * `--requeue-dependency` (30 s by default): helm-controller watches no dependency (see helm-decision.ts). Runs beside
 * the tier waits on the same live state until `signal` aborts; `stats` says what it asked, for the run summary.
 */
export class HelmRequester {
  private readonly tracks = new Map<string, HelmTrack>();
  private readonly failed = new Set<string>();
  readonly stats: HelmReleaseRequests = { asked: 0, requests: 0, passed: 0, early: 0 };
  private cel: HelmCel = { cel: null };
  private celTried = false;

  constructor(private readonly o: HelmRequesterOptions) {}

  async run(signal: AbortSignal): Promise<void> {
    const clock = this.o.clock ?? systemClock;
    while (!signal.aborted) {
      const seen = this.o.live.version;
      await this.pass(signal, clock.now());
      const due = Math.min(...[...this.tracks.values()].map((t) => t.againAt).filter((x): x is number => x !== null));
      try {
        await this.o.live.changed(Math.max(10, Math.min(this.o.tickMs ?? 1000, due - clock.now())), seen);
      } catch {
        return; // the live state was stopped (the run is over, or interrupted)
      }
    }
  }

  /** Loads CEL the first time a release has a readyExpr dependency: a run without one never loads it. */
  private async celIfNeeded(releases: Iterable<LiveHelmRelease>): Promise<void> {
    if (this.celTried || ![...releases].some((hr) => hr.spec?.dependsOn?.some((d) => d.readyExpr))) return;
    this.celTried = true;
    try {
      const { loadCel } = this.o.loadCel ? { loadCel: this.o.loadCel } : await import('../status/cel.js');
      this.cel = { cel: await loadCel(), additive: this.o.additiveCel };
    } catch (e) {
      this.o.emit({ type: 'log', level: 'warn', message: `readyExpr not evaluated (the CEL library did not load: ${e instanceof Error ? e.message : String(e)}); helm-controller's own requeue decides for those releases` });
    }
  }

  /** One look at every HelmRelease the plan's Kustomizations applied. */
  async pass(signal: AbortSignal, at: number): Promise<void> {
    const releases = this.o.live.helmReleases;
    await this.celIfNeeded(releases.values());
    for (const [key, hr] of releases) {
      if (signal.aborted) return;
      const owner = ownerOf(hr);
      const step = owner ? this.o.steps.get(owner) : undefined;
      if (!step || this.failed.has(key)) continue;
      const d = decideHelmRelease(this.tracks.get(key) ?? newHelmTrack(), hr, (k) => releases.get(k), at, undefined, this.cel);
      this.tracks.set(key, d.track);
      if (d.passedNow) this.stats.passed++;
      if (!d.request) continue;
      const { namespace, name } = { namespace: hr.metadata.namespace ?? '', name: hr.metadata.name };
      try {
        await requestReconcile({ client: this.o.client, emit: this.o.emit, id: step, signal, clock: this.o.clock }, { ...FLUX_HELM_RELEASE, namespace, name }, d.request.value);
        if (d.request.why === 'finalized') this.stats.early++;
        if (d.request.why === 'first') this.stats.asked++;
        this.stats.requests++;
      } catch (e) {
        if (signal.aborted) return;
        // Deleted meanwhile, or not ours to patch (RBAC): helm-controller's own requeue still applies. Said once.
        this.failed.add(key);
        this.o.emit({ type: 'log', level: 'warn', message: `could not ask helm-controller to reconcile HelmRelease/${key}: ${e instanceof Error ? e.message : String(e)}; it reconciles it after its --requeue-dependency` });
      }
    }
  }
}

/** The Kustomization (`namespace/name`) that applied a release, from kustomize-controller's labels. */
function ownerOf(hr: LiveHelmRelease): string | null {
  const l = hr.metadata.labels ?? {};
  return l[OWNER_NAME] && l[OWNER_NAMESPACE] ? `${l[OWNER_NAMESPACE]}/${l[OWNER_NAME]}` : null;
}
