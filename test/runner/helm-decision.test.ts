import { describe, expect, it } from 'vitest';
import { decideHelmRelease, dependencyKeys, dependencyReady, HELM_MAX_REQUESTS, newHelmTrack, type HelmTrack } from '../../src/runner/helm-decision.js';
import type { LiveHelmRelease } from '../../src/status/helm-source.js';
import { loadCel } from '../../src/status/cel.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

type Ready = { status: string; reason?: string; message?: string } | null;
const hr = (name: string, o: { ns?: string; ready?: Ready; gen?: number; observed?: number; deps?: LiveHelmRelease['spec'] extends infer S ? S extends { dependsOn?: infer D } ? D : never : never; suspend?: boolean; handled?: string; finalized?: boolean } = {}): LiveHelmRelease => ({
  metadata: { name, namespace: o.ns ?? 'apps', generation: o.gen ?? 1, ...(o.finalized ? { finalizers: ['finalizers.fluxcd.io'] } : {}) },
  spec: { ...(o.deps ? { dependsOn: o.deps } : {}), ...(o.suspend ? { suspend: true } : {}) },
  status: {
    observedGeneration: o.observed ?? 1,
    conditions: o.ready === null ? [] : [{ type: 'Ready', ...(o.ready ?? { status: 'True', reason: 'InstallSucceeded' }) }],
    ...(o.handled ? { lastHandledReconcileAt: o.handled } : {}),
  },
});

const turnedAway = (dep = 'apps/a'): Ready => ({ status: 'False', reason: 'DependencyNotReady', message: `dependency '${dep}' is not ready` });
const readyA = hr('a');
const lookupOf = (...rs: LiveHelmRelease[]) => (k: string) => rs.find((r) => `${r.metadata.namespace}/${r.metadata.name}` === k);
const asked = (o: Partial<HelmTrack> = {}): HelmTrack => ({ ...newHelmTrack(), requestedAt: iso(T0), requests: 1, ...o });

describe('dependencyKeys / dependencyReady (helm-controller checkDependencies)', () => {
  it('a dependency without a namespace is in the release\'s own namespace', () => {
    expect(dependencyKeys(hr('b', { ns: 'media', deps: [{ name: 'a' }, { name: 'db', namespace: 'database' }] }))).toEqual(['media/a', 'database/db']);
  });

  it.each([
    ['missing', undefined, false],
    ['Ready=True at its generation', hr('a'), true],
    ['Ready=True but a newer generation not reconciled yet', hr('a', { gen: 2, observed: 1 }), false],
    ['Ready=Unknown (installing)', hr('a', { ready: { status: 'Unknown', reason: 'Progressing' } }), false],
    ['Ready=False', hr('a', { ready: { status: 'False', reason: 'InstallFailed' } }), false],
    ['no conditions yet', hr('a', { ready: null }), false],
  ])('%s: %s', (_name, dep, want) => {
    expect(dependencyReady(dep)).toBe(want);
  });
});

describe('decideHelmRelease', () => {
  it('asks the moment every dependency is Ready, with the time as the value', () => {
    const b = hr('b', { deps: [{ name: 'a' }], ready: turnedAway() });
    const d = decideHelmRelease(newHelmTrack(), b, lookupOf(readyA), T0);
    expect(d.request).toEqual({ value: iso(T0), why: 'first' });
    expect(d.track).toMatchObject({ requestedAt: iso(T0), requests: 1 });
  });

  it.each([
    ['no dependsOn', hr('b', { ready: turnedAway() }), 'no-deps'],
    ['suspended', hr('b', { deps: [{ name: 'a' }], ready: turnedAway(), suspend: true }), 'suspended'],
    ['Ready already', hr('b', { deps: [{ name: 'a' }] }), 'not-turned-away'],
    ['installing (Ready=Unknown, not for a dependency)', hr('b', { deps: [{ name: 'a' }], ready: { status: 'Unknown', reason: 'Progressing' } }), 'not-turned-away'],
    ['failed for another reason', hr('b', { deps: [{ name: 'a' }], ready: { status: 'False', reason: 'InstallFailed' } }), 'not-turned-away'],
    ['not reconciled yet (no conditions)', hr('b', { deps: [{ name: 'a' }], ready: null }), 'not-turned-away'],
    ['a dependency judged by readyExpr, before CEL is loaded', hr('b', { deps: [{ name: 'a', readyExpr: 'dep.status.x == 1' }], ready: turnedAway() }), 'ready-expr'],
  ])('never asks a release it has no reason to: %s', (_name, b, why) => {
    const d = decideHelmRelease(newHelmTrack(), b, lookupOf(readyA), T0);
    expect(d.request).toBeNull();
    expect(d.why).toBe(why);
  });

  it.each([
    ['one of two dependencies is not Ready', [{ name: 'a' }, { name: 'c' }], [readyA, hr('c', { ready: { status: 'Unknown', reason: 'Progressing' } })]],
    ['the dependency is Ready at an older generation', [{ name: 'a' }], [hr('a', { gen: 3, observed: 2 })]],
    ['the dependency does not exist', [{ name: 'gone' }], [readyA]],
    ['the dependency is in another namespace than the one named', [{ name: 'a', namespace: 'other' }], [readyA]],
  ])('waits while %s (helm-controller would turn it away again)', (_name, deps, live) => {
    const d = decideHelmRelease(newHelmTrack(), hr('b', { deps, ready: turnedAway() }), lookupOf(...live), T0);
    expect(d.request).toBeNull();
    expect(d.why).toBe('deps-not-ready');
  });

  it('a new release helm-controller has given its finalizer is asked at once (its own reconcile waits 750 ms), once', () => {
    const fresh = hr('b', { ready: null, finalized: true });
    const d = decideHelmRelease(newHelmTrack(), fresh, lookupOf(), T0);
    expect(d).toMatchObject({ request: { value: iso(T0), why: 'finalized' }, why: 'asked' });
    expect(decideHelmRelease(d.track, fresh, lookupOf(), T0 + 100).request).toBeNull();
    // Its install answering that request is not counted as getting past a dependency check it was never turned away by.
    expect(decideHelmRelease(d.track, hr('b', { handled: iso(T0) }), lookupOf(), T0 + 200).passedNow).toBe(false);
    // With dependencies: only when they pass, as helm-controller would judge them.
    const dependent = hr('b', { ready: null, finalized: true, deps: [{ name: 'a' }] });
    expect(decideHelmRelease(newHelmTrack(), dependent, lookupOf(readyA), T0).request?.why).toBe('finalized');
    expect(decideHelmRelease(newHelmTrack(), dependent, lookupOf(hr('a', { ready: null })), T0)).toMatchObject({ request: null, why: 'deps-not-ready' });
    // Not handled yet (no finalizer: its creation event is queued), or suspended: not asked.
    expect(decideHelmRelease(newHelmTrack(), hr('b', { ready: null }), lookupOf(), T0).request).toBeNull();
    expect(decideHelmRelease(newHelmTrack(), hr('b', { ready: null, finalized: true, suspend: true }), lookupOf(), T0).why).toBe('suspended');
  });

  it('a dependency in the release\'s own namespace is found without naming it', () => {
    const a = hr('a', { ns: 'media' });
    const d = decideHelmRelease(newHelmTrack(), hr('b', { ns: 'media', deps: [{ name: 'a' }], ready: turnedAway('media/a') }), lookupOf(a), T0);
    expect(d.request?.why).toBe('first');
  });

  it('asks once: while helm-controller has not handled the request, nothing more is written', () => {
    const b = hr('b', { deps: [{ name: 'a' }], ready: turnedAway(), handled: 'a request of someone else' });
    const d = decideHelmRelease(asked(), b, lookupOf(readyA), T0 + 5000);
    expect(d.request).toBeNull();
    expect(d.why).toBe('pending');
  });

  it('answered "not ready" again to its own request: asks again after 250 ms, then 500 ms, backing off to 5 s', () => {
    let track = asked();
    let at = T0;
    const gaps: number[] = [];
    for (let i = 0; i < 7; i++) {
      const b = hr('b', { deps: [{ name: 'a' }], ready: turnedAway(), handled: track.requestedAt! });
      const wait = decideHelmRelease(track, b, lookupOf(readyA), at + 1);
      expect(wait.request).toBeNull();
      expect(wait.why).toBe('backing-off');
      const due = wait.track.againAt!;
      gaps.push(due - (at + 1));
      expect(decideHelmRelease(wait.track, b, lookupOf(readyA), due - 1).request).toBeNull();
      const again = decideHelmRelease(wait.track, b, lookupOf(readyA), due);
      expect(again.request).toEqual({ value: iso(due), why: 'again' });
      track = again.track;
      at = due;
    }
    expect(gaps).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000]);
  });

  it(`gives up after ${HELM_MAX_REQUESTS} requests (helm-controller's own requeue takes over): never a loop`, () => {
    const track = asked({ requests: HELM_MAX_REQUESTS });
    const b = hr('b', { deps: [{ name: 'a' }], ready: turnedAway(), handled: track.requestedAt! });
    const d = decideHelmRelease(track, b, lookupOf(readyA), T0 + 60_000);
    expect(d.request).toBeNull();
    expect(d.why).toBe('gave-up');
  });

  it('counts a release past the dependency check on standup\'s request once', () => {
    const track = asked();
    const installing = hr('b', { deps: [{ name: 'a' }], ready: { status: 'Unknown', reason: 'Progressing', message: 'reconciliation in progress' }, handled: track.requestedAt! });
    const first = decideHelmRelease(track, installing, lookupOf(readyA), T0 + 100);
    expect(first.passedNow).toBe(true);
    expect(first.request).toBeNull();
    const later = decideHelmRelease(first.track, hr('b', { deps: [{ name: 'a' }], handled: track.requestedAt! }), lookupOf(readyA), T0 + 5000);
    expect(later.passedNow).toBe(false);
  });

  it('a turn-away answering someone else\'s request, or none of standup\'s, does not count as passed', () => {
    const d = decideHelmRelease(newHelmTrack(), hr('b', { deps: [{ name: 'a' }], handled: 'flux reconcile hr b' }), lookupOf(readyA), T0);
    expect(d.passedNow).toBe(false);
  });
});

describe('decideHelmRelease with a readyExpr (helm-controller checkDependencies)', async () => {
  const cel = await loadCel();
  const away = (expr: string, extra: Partial<LiveHelmRelease['metadata']> = {}) => {
    const b = hr('b', { deps: [{ name: 'a', readyExpr: expr }], ready: { status: 'False', reason: 'DependencyNotReady', message: "dependency 'apps/a' is not ready according to readyExpr eval" } });
    return { ...b, metadata: { ...b.metadata, ...extra } };
  };
  const labelled = (v: string, o: Parameters<typeof hr>[1] = {}) => { const a = hr('a', o); return { ...a, metadata: { ...a.metadata, labels: { 'app/version': v } } }; };
  const lockstep = "dep.metadata.labels['app/version'] == self.metadata.labels['app/version']";

  it.each([
    ['true while the dependency is not Ready: the expression replaces the built-in check', lockstep, labelled('v2', { ready: { status: 'False', reason: 'InstallFailed' } }), false, 'asked'],
    ['true and Ready, with the AdditiveCELDependencyCheck gate on', lockstep, labelled('v2'), true, 'asked'],
    ['true but not Ready, with the gate on: the built-in check still applies', lockstep, labelled('v2', { ready: { status: 'False', reason: 'InstallFailed' } }), true, 'deps-not-ready'],
    ['false: helm-controller would turn it away again', lockstep, labelled('v1'), false, 'deps-not-ready'],
    ["Flux's docs example, the dependency Ready at its generation", "dep.status.conditions.filter(e, e.type == 'Ready').all(e, e.status == 'True') && dep.metadata.generation == dep.status.observedGeneration", labelled('v2'), false, 'asked'],
    ['a field the dependency does not have: an evaluation error, so not evaluated', 'dep.status.nothing == 1', labelled('v2'), false, 'ready-expr'],
    ['optional syntax the library does not parse: not evaluated', "dep.status.?x.orValue('') == ''", labelled('v2'), false, 'ready-expr'],
  ])('%s', (_name, expr, dep, additive, why) => {
    const self = away(expr, { labels: { 'app/version': 'v2' } });
    const d = decideHelmRelease(newHelmTrack(), self, lookupOf(dep), T0, undefined, { cel, additive });
    expect(d.why).toBe(why);
  });
});
