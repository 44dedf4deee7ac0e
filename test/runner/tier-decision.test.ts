import { describe, expect, it } from 'vitest';
import type { Readiness } from '../../src/status/kustomization.js';
import { DEP_RETRY, FLUX_QUEUE_GRACE_MS, decideTier, failureIsCurrent, newTrack, type TierTrack, type TierView } from '../../src/runner/tier-decision.js';
import type { ChartFailure } from '../../src/status/helm-source.js';
import type { WorkloadReport } from '../../src/status/workload.js';

const REV = 'main@sha1:' + 'a'.repeat(40);
const T0 = Date.parse('2026-01-01T00:00:00Z');
const backoff = { initialMs: 2000, maxMs: 30_000 };

const r = (state: Readiness['state'], extra: Partial<Readiness> = {}): Readiness => ({ state, reason: '', message: '', revision: null, ...extra });
const view = (o: Partial<TierView> = {}): TierView => ({
  readiness: r('progressing', { reason: 'Progressing', message: 'Reconciliation in progress' }),
  exists: true,
  sourceRevision: REV,
  depsDone: true,
  depsFailed: [],
  parent: null,
  parentDone: true,
  firstPass: false,
  timeoutMs: 60_000,
  ...o,
});
const started = (o: Partial<TierTrack> = {}): TierTrack => ({ ...newTrack('flux-system/apps'), startedAt: T0, requestedAt: '2026-01-01T00:00:00.000Z', ...o });

describe('decideTier', () => {
  it.each([
    ['a tier Ready on the first look was Ready before standup: skipped, no step start', newTrack('flux-system/apps'), view({ readiness: r('ready', { revision: REV }), firstPass: true }), { start: false, outcome: { type: 'finish', result: 'skipped', message: 'already Ready at main@sha1:aaaaaaaa' } }],
    ['a tier that turns Ready later is ok (and gets its start if it never had one)', newTrack('flux-system/apps'), view({ readiness: r('ready', { revision: REV }) }), { start: true, outcome: { type: 'finish', result: 'ok', message: 'Ready at main@sha1:aaaaaaaa' } }],
    ['a dependency that failed blocks it: not run', newTrack('flux-system/apps'), view({ depsDone: false, depsFailed: ['flux-system/platform'] }), { start: false, outcome: { type: 'block', by: ['flux-system/platform'] } }],
    ['dependencies not done yet: nothing happens', newTrack('flux-system/apps'), view({ depsDone: false }), { start: false, request: null, outcome: null, line: null }],
    ['not applied yet and its parent is not done: nothing happens', newTrack('flux-system/apps'), view({ exists: false, parent: 'flux-system/root', parentDone: false }), { start: false, request: null, outcome: null }],
    ['suspended: fails (it would never become Ready)', newTrack('flux-system/apps'), view({ readiness: r('suspended') }), { start: true, outcome: { type: 'fail', suspended: true } }],
  ])('%s', (_name, track, v, expected) => {
    expect(decideTier(track, v, T0, backoff)).toMatchObject(expected);
  });

  it('Ready from a reconcile before standup\'s request is not the end: it waits for KC to answer the request', () => {
    const ready = r('ready', { revision: REV });
    const early = decideTier(started(), view({ readiness: ready, lastHandledReconcileAt: 'an older request' }), T0 + 100, backoff);
    expect(early).toMatchObject({ outcome: null, request: null });
    const answered = decideTier(started(), view({ readiness: ready, lastHandledReconcileAt: '2026-01-01T00:00:00.000Z' }), T0 + 200, backoff);
    expect(answered.outcome).toEqual({ type: 'finish', result: 'ok', message: 'Ready at main@sha1:aaaaaaaa' });
  });

  it('requests a reconcile the moment its dependencies are done, with the time as the value', () => {
    const d = decideTier(newTrack('flux-system/apps'), view(), T0, backoff);
    expect(d.start).toBe(true);
    expect(d.request).toEqual({ value: '2026-01-01T00:00:00.000Z', why: 'first', note: null });
    expect(d.track).toMatchObject({ startedAt: T0, requestedAt: '2026-01-01T00:00:00.000Z' });
  });

  it('a failure Flux reported before standup\'s request is not judged: it waits for the answer', () => {
    const failed = r('failed', { reason: 'BuildFailed', message: 'kustomize build failed' });
    const d = decideTier(started(), view({ readiness: failed, lastHandledReconcileAt: 'an older request' }), T0 + 1000, backoff);
    expect(d.outcome).toBeNull();
    expect(d.request).toBeNull();
  });

  it('a current terminal failure gets one more request, then fails', () => {
    const failed = r('failed', { reason: 'BuildFailed', message: 'kustomize build failed' });
    const v = view({ readiness: failed, lastHandledReconcileAt: '2026-01-01T00:00:00.000Z' });
    const first = decideTier(started(), v, T0 + 1000, backoff);
    expect(first.request?.why).toBe('second-chance');
    expect(first.line).toBe('kustomize build failed; asking Flux once more');
    const second = decideTier(first.track, { ...v, lastHandledReconcileAt: first.request!.value }, T0 + 2000, backoff);
    expect(second.outcome).toEqual({ type: 'fail', suspended: false });
  });

  it('a failure at an older revision than the source\'s is not current', () => {
    expect(failureIsCurrent(view({ lastHandledReconcileAt: 'x', lastAttemptedRevision: 'main@sha1:old' }), 'x')).toBe(false);
    expect(failureIsCurrent(view({ lastHandledReconcileAt: 'x', lastAttemptedRevision: REV }), 'x')).toBe(true);
  });

  it('transient API failures are asked again with backoff, not failed', () => {
    const transient = r('progressing', { reason: 'ReconciliationFailed', message: 'connection refused' });
    const v = view({ readiness: transient, lastHandledReconcileAt: '2026-01-01T00:00:00.000Z' });
    const wait = decideTier(started(), v, T0 + 100, backoff);
    expect(wait.request).toBeNull();
    expect(wait.track.retryAt).toBe(T0 + 100 + 2000);
    const again = decideTier(wait.track, v, T0 + 2100, backoff);
    expect(again.request).toMatchObject({ why: 'transient', note: 'asking Flux again (1)' });
    expect(again.track).toMatchObject({ retries: 1, retryAt: null });
  });

  it('times out after its timeout, counted from its start, with its last line', () => {
    const d = decideTier(started(), view({ readiness: r('waiting', { waitingFor: 'flux-system/platform' }) }), T0 + 60_001, backoff);
    expect(d.outcome).toEqual({ type: 'timeout', line: 'waiting for flux-system/platform' });
  });

  it('says what its parent will do while it does not exist yet', () => {
    const d = decideTier(started({ requestedAt: null }), view({ exists: false, readiness: r('not-found'), parent: 'flux-system/root', parentDone: true }), T0 + 10, backoff);
    expect(d.line).toBe('not applied yet (flux-system/root applies it)');
  });

  it('shows no line for a state KC passes through within one status update (no stale flash before Ready)', () => {
    const flash = r('progressing', { reason: 'StaleGeneration', message: 'generation 1 not reconciled yet (observed -1)', transient: true });
    expect(decideTier(started(), view({ readiness: flash }), T0 + 10, backoff).line).toBeNull();
  });

  it('a missing CRD whose operator already has its trigger is waited for (asked again with backoff), not failed', () => {
    const missing = r('failed', { reason: 'ReconciliationFailed', message: 'no matches for kind "StorageProfile"', diagnosis: { type: 'missing-crd', kind: 'StorageProfile', group: 'cdi.kubevirt.io', version: 'v1beta1', object: 'StorageProfile/x' } });
    const onItsWay = 'waiting for the StorageProfile CRD (cdi.kubevirt.io): its operator creates it once it sees CDI/cdi, which exists';
    const v = view({ readiness: missing, lastHandledReconcileAt: '2026-01-01T00:00:00.000Z', crdOnItsWay: onItsWay });
    const wait = decideTier(started(), v, T0 + 100, backoff);
    expect(wait).toMatchObject({ outcome: null, request: null, line: onItsWay });
    const again = decideTier(wait.track, v, T0 + 2100, backoff);
    expect(again.request).toMatchObject({ why: 'transient', note: 'asking Flux again (1)' });
    expect(decideTier(started(), v, T0 + 60_001, backoff).outcome).toEqual({ type: 'timeout', line: onItsWay });
    // and without it, the same failure is the deadlock (after its second chance)
    expect(decideTier(started({ secondChance: true }), { ...v, crdOnItsWay: null }, T0 + 100, backoff).outcome).toEqual({ type: 'fail', suspended: false });
  });

  it('a DependencyNotReady that answers standup\'s request while every dependency is Ready is asked again soon, backing off', () => {
    // KC's answer predates the dependency's Ready (seen in the up benchmark: 6-24 ms); left alone it waits out
    // --requeue-dependency (30 s).
    const stale = r('waiting', { reason: 'DependencyNotReady', message: "dependency 'flux-system/platform' is not ready", waitingFor: 'flux-system/platform' });
    const req = '2026-01-01T00:00:00.000Z';
    const v = view({ readiness: stale, lastHandledReconcileAt: req });
    const wait = decideTier(started(), v, T0 + 10, backoff);
    expect(wait.request).toBeNull();
    expect(wait.track.depRetryAt).toBe(T0 + 10 + DEP_RETRY.initialMs);
    const again = decideTier(wait.track, v, T0 + 10 + DEP_RETRY.initialMs, backoff);
    expect(again.request).toMatchObject({ why: 'dependency-ready', value: new Date(T0 + 10 + DEP_RETRY.initialMs).toISOString() });
    expect(again.track).toMatchObject({ depRetries: 1, depRetryAt: null });
    // Until KC has handled the new request, nothing more is asked.
    const pending = decideTier(again.track, v, T0 + 5000, backoff);
    expect(pending.request).toBeNull();
    // Handled and still stale: the next wait is twice as long, never more than DEP_RETRY.maxMs.
    const handled = { ...v, lastHandledReconcileAt: again.request!.value };
    const next = decideTier(again.track, handled, T0 + 6000, backoff);
    expect(next.track.depRetryAt).toBe(T0 + 6000 + 2 * DEP_RETRY.initialMs);
    expect(decideTier({ ...again.track, depRetries: 10 }, handled, T0 + 6000, backoff).track.depRetryAt).toBe(T0 + 6000 + DEP_RETRY.maxMs);
    // Its timeout still counts from its start.
    expect(decideTier(again.track, handled, T0 + 60_001, backoff).outcome).toMatchObject({ type: 'timeout' });
  });

  it('a DependencyNotReady from before standup\'s request, or while a dependency is not done, asks nothing', () => {
    const stale = r('waiting', { reason: 'DependencyNotReady', message: "dependency 'flux-system/platform' is not ready" });
    expect(decideTier(started(), view({ readiness: stale, lastHandledReconcileAt: 'an older request' }), T0 + 5000, backoff).request).toBeNull();
    expect(decideTier(started(), view({ readiness: stale, lastHandledReconcileAt: '2026-01-01T00:00:00.000Z', depsDone: false }), T0 + 5000, backoff)).toMatchObject({ request: null, outcome: null });
  });

  describe('a HelmRelease that cannot get its chart', () => {
    const failure: ChartFailure = {
      release: { kind: 'HelmRelease', namespace: 'it-helm', name: 'web' },
      chart: { kind: 'HelmChart', namespace: 'flux-system', name: 'it-helm-web' },
      stalled: { kind: 'HelmChart', namespace: 'flux-system', name: 'it-helm-web' },
      reason: 'InvalidChartReference',
      message: "invalid chart reference: failed to get chart version for remote reference: no 'web' chart with version matching '9.9.9' found",
      template: { chart: 'web', version: '9.9.9', sourceRef: 'HelmRepository/flux-system/repo' },
    };
    const checking = r('progressing', { reason: 'Progressing', message: `Running health checks for revision ${REV} with a timeout of 40s` });
    const waiting = "HelmRelease/it-helm/web waits for HelmChart/flux-system/it-helm-web: no artifact available for HelmRepository source 'dead'";

    it.each([
      ['a Stalled chart source fails the tier at once, well before its timeout, without a second chance', started(), view({ readiness: checking, chartFailure: failure }), { request: null, outcome: { type: 'fail', suspended: false, chart: failure } }],
      ['the same while KC has not answered standup\'s request yet (Stalled is the source\'s own verdict)', started(), view({ readiness: checking, chartFailure: failure, lastHandledReconcileAt: 'an older request' }), { outcome: { type: 'fail', chart: failure } }],
      ['a chart that may still come waits, saying why', started(), view({ readiness: checking, chartWaiting: waiting }), { outcome: null, line: `Running health checks for revision ${REV} with a timeout of 40s; ${waiting}` }],
    ])('%s', (_name, track, v, expected) => {
      expect(decideTier(track, v, T0 + 5000, backoff)).toMatchObject(expected);
    });

    it('a chart that may still come times out at the tier\'s timeout, and the timeout names it', () => {
      expect(decideTier(started(), view({ readiness: checking, chartWaiting: waiting }), T0 + 60_001, backoff).outcome).toEqual({ type: 'timeout', line: `Running health checks for revision ${REV} with a timeout of 40s; ${waiting}` });
    });
  });

  describe('a Deployment the health check waits on that cannot start', () => {
    const checking = r('progressing', { reason: 'Progressing', message: `Running health checks for revision ${REV} with a timeout of 5m0s` });
    const bad: WorkloadReport = {
      object: 'Deployment/apps/web', readiness: { state: 'in-progress', ready: '0/1', message: '' }, advice: '', terminal: true, problem: 'image-invalid',
      line: '0/1 ready; web-x2: InvalidImageName (container app, image Bad/Ref:x): invalid reference format',
      problemAt: { pod: 'web-x2', container: 'app', image: 'Bad/Ref:x' },
    };
    const pulling = 'Deployment/apps/web: 0/1 ready; web-x2: ImagePullBackOff (container app, image 127.0.0.1:1/x:v1): connection refused';

    it.each([
      ['named live, before KC\'s words (which say only that health checks run)', started(), view({ readiness: checking, workloadsWaiting: pulling }), { outcome: null, line: `health check waiting on ${pulling}` }],
      ['a pull that cannot succeed as written fails the tier at once', started(), view({ readiness: checking, workloadFailure: bad }), { request: null, outcome: { type: 'fail', suspended: false, workload: bad } }],
      ['not while KC has not applied the current revision yet (the fix may be on its way)', started(), view({ readiness: checking, workloadFailure: bad, lastAttemptedRevision: 'main@sha1:' + 'b'.repeat(40) }), { outcome: null }],
    ])('%s', (_name, track, v, expected) => {
      expect(decideTier(track, v, T0 + 5000, backoff)).toMatchObject(expected);
    });

    it('a pull that may heal times out at the tier\'s timeout, and the timeout names the pod, container, reason and image', () => {
      expect(decideTier(started(), view({ readiness: checking, workloadsWaiting: pulling }), T0 + 60_001, backoff).outcome).toEqual({ type: 'timeout', line: `health check waiting on ${pulling}` });
    });
  });
});

describe('decideTier: what kustomize-controller has queued on its own is not asked for again', () => {
  const unhandled = r('progressing', { reason: 'NotReconciled', message: 'waiting to be reconciled' });
  const running = r('progressing', { reason: 'Progressing', message: 'Reconciliation in progress' });
  const noArtifactYet = r('waiting', { reason: 'ArtifactFailed', message: 'Source artifact not found, retrying in 30s', waitingFor: 'GitRepository/flux-system/flux-system' });

  it('a Kustomization KC has not handled since its creation: no request, then one once the grace is over', () => {
    const d = decideTier(newTrack('flux-system/apps'), view({ readiness: unhandled }), T0, backoff);
    expect(d).toMatchObject({ start: true, request: null, outcome: null, line: 'waiting to be reconciled' });
    expect(d.track.leftToFluxAt).toBe(T0);
    expect(decideTier(d.track, view({ readiness: unhandled }), T0 + FLUX_QUEUE_GRACE_MS - 1, backoff).request).toBeNull();
    const late = decideTier(d.track, view({ readiness: unhandled }), T0 + FLUX_QUEUE_GRACE_MS, backoff);
    expect(late.request).toEqual({ value: new Date(T0 + FLUX_QUEUE_GRACE_MS).toISOString(), why: 'first', note: null });
  });

  it('a Kustomization KC has given its finalizer: its real first reconcile waits on the rate limiter, so it is asked at once', () => {
    const finalized = { readiness: unhandled, finalizedByFlux: true, sourceBeforeIt: true };
    const d = decideTier(newTrack('flux-system/apps'), view(finalized), T0, backoff);
    expect(d.request).toEqual({ value: new Date(T0).toISOString(), why: 'first', note: null });
    // Seen first without it (KC had not handled the creation yet), then with it: asked then, not after the grace.
    const left = decideTier(newTrack('flux-system/apps'), view({ readiness: unhandled }), T0, backoff).track;
    expect(decideTier(left, view(finalized), T0 + 40, backoff).request?.why).toBe('first');
    // Its source's artifact arrived after the run first saw it (the root sync at a cold start): KC's source watch
    // runs it now, so it is left to KC as before.
    expect(decideTier(newTrack('flux-system/apps'), view({ ...finalized, sourceBeforeIt: false }), T0, backoff).request).toBeNull();
    // A reconcile under way keeps its rule: the finalizer does not make standup ask during it.
    const fetching = r('progressing', { reason: 'Progressing', message: `Fetching manifests for revision ${REV} with a timeout of 5m0s` });
    expect(decideTier(newTrack('flux-system/apps'), view({ ...finalized, readiness: fetching }), T0, backoff).request).toBeNull();
  });

  it('the root sync whose source was not there: once the source has an artifact, KC\'s source watch queues it', () => {
    const d = decideTier(newTrack('flux-system/flux-system'), view({ readiness: noArtifactYet }), T0, backoff);
    expect(d).toMatchObject({ request: null, line: 'its source has an artifact now (main@sha1:aaaaaaaa); kustomize-controller has it queued' });
    // The source has no artifact (its Kustomization waits on it anyway), or KC failed to download an existing one
    // (retried on KC's own backoff, which no watch event shortens): asked at once, as before.
    expect(decideTier(newTrack('flux-system/flux-system'), view({ readiness: noArtifactYet, sourceRevision: null }), T0, backoff).request?.why).toBe('first');
    const download = r('waiting', { reason: 'ArtifactFailed', message: 'failed to download artifact, error: GET http://source-controller/x.tar.gz: 404' });
    expect(decideTier(newTrack('flux-system/flux-system'), view({ readiness: download }), T0, backoff).request?.why).toBe('first');
  });

  it('while KC\'s own reconcile runs nothing is asked, past the grace too; its Ready ends the tier', () => {
    const left = decideTier(newTrack('flux-system/apps'), view({ readiness: unhandled }), T0, backoff).track;
    const busy = decideTier(left, view({ readiness: running }), T0 + FLUX_QUEUE_GRACE_MS * 3, backoff);
    expect(busy).toMatchObject({ request: null, outcome: null, line: 'Reconciliation in progress' });
    const done = decideTier(busy.track, view({ readiness: r('ready', { revision: REV }) }), T0 + FLUX_QUEUE_GRACE_MS * 3 + 10, backoff);
    expect(done.outcome).toEqual({ type: 'finish', result: 'ok', message: 'Ready at main@sha1:aaaaaaaa' });
    // Ready=Unknown seen before anything was left to KC: a reconcile of the current revision (its progress message
    // says which) is left to KC; one that does not say is asked for, as before.
    const fetching = r('progressing', { reason: 'Progressing', message: `Fetching manifests for revision ${REV} with a timeout of 5m0s` });
    expect(decideTier(newTrack('flux-system/apps'), view({ readiness: fetching }), T0, backoff)).toMatchObject({ request: null, line: fetching.message });
    const older = r('progressing', { reason: 'Progressing', message: 'Fetching manifests for revision main@sha1:old with a timeout of 5m0s' });
    expect(decideTier(newTrack('flux-system/apps'), view({ readiness: older }), T0, backoff).request?.why).toBe('first');
    expect(decideTier(newTrack('flux-system/apps'), view({ readiness: running }), T0, backoff).request?.why).toBe('first');
    // KC's last status update of that reconcile, half seen (Ready=True before observedGeneration): not asked either.
    const flash = r('progressing', { reason: 'StaleGeneration', message: 'generation 1 not reconciled yet (observed -1)', transient: true });
    expect(decideTier(newTrack('flux-system/apps'), view({ readiness: flash }), T0, backoff).request).toBeNull();
  });

  it('KC\'s own reconcile found a dependency not ready (it read it a moment before): asked at once', () => {
    const left = decideTier(newTrack('flux-system/apps'), view({ readiness: unhandled }), T0, backoff).track;
    const parked = r('waiting', { reason: 'DependencyNotReady', message: "dependency 'flux-system/platform' is not ready", waitingFor: 'flux-system/platform' });
    expect(decideTier(left, view({ readiness: parked }), T0 + 50, backoff).request?.why).toBe('first');
  });

  it('KC\'s own reconcile failed for good: that answer is judged, with its second chance, not a first request and then a second', () => {
    const left = decideTier(newTrack('flux-system/apps'), view({ readiness: unhandled }), T0, backoff).track;
    const failed = r('failed', { reason: 'BuildFailed', message: 'kustomize build failed' });
    const v = view({ readiness: failed, lastAttemptedRevision: REV });
    const again = decideTier(left, v, T0 + 50, backoff);
    expect(again.request?.why).toBe('second-chance');
    const end = decideTier(again.track, { ...v, lastHandledReconcileAt: again.request!.value }, T0 + 100, backoff);
    expect(end.outcome).toEqual({ type: 'fail', suspended: false });
    // A failure at an older revision than the source's is not KC's answer to now: asked for.
    expect(decideTier(left, view({ readiness: failed, lastAttemptedRevision: 'main@sha1:old' }), T0 + 50, backoff).request?.why).toBe('first');
  });

  it('its timeout still counts while it is left to KC', () => {
    const left = decideTier(newTrack('flux-system/apps'), view({ readiness: unhandled }), T0, backoff).track;
    expect(decideTier(left, view({ readiness: running, timeoutMs: 1000 }), T0 + 1001, backoff).outcome).toEqual({ type: 'timeout', line: 'Reconciliation in progress' });
  });
});
