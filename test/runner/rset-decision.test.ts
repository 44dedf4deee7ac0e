import { describe, expect, it } from 'vitest';
import type { Readiness } from '../../src/status/kustomization.js';
import { decideResourceSet, resourceSetLine, type ResourceSetView } from '../../src/runner/rset-decision.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const r = (state: Readiness['state'], extra: Partial<Readiness> = {}): Readiness => ({ state, reason: '', message: '', revision: null, ...extra });
const view = (o: Partial<ResourceSetView> = {}): ResourceSetView => ({
  key: 'ResourceSet/flux-system/tenants',
  at: 'tenants/tenants.yaml:4',
  readiness: r('progressing', { reason: 'Progressing', message: 'Reconciliation in progress' }),
  exists: true,
  disabled: false,
  parent: 'flux-system/tenants',
  parentDone: true,
  depsDone: true,
  depsFailed: [],
  depsPending: [],
  otherDeps: [],
  generated: [],
  firstPass: false,
  timeoutMs: 60_000,
  ...o,
});
const team1 = { ref: 'Kustomization/flux-system/tenant-team1', readiness: r('progressing', { reason: 'Progressing', message: 'Running health checks for revision main@sha1:abc with a timeout of 3m0s' }), after: [] };
const team2 = { ref: 'Kustomization/flux-system/tenant-team2', readiness: null, after: ['Kustomization/flux-system/tenant-team1'] };
const release = { ref: 'HelmRelease/demo/web', readiness: null, after: [] };

describe('decideResourceSet', () => {
  it.each([
    ['Ready on the first look: skipped, naming what it generated', { startedAt: null }, view({ readiness: r('ready'), firstPass: true, generated: [{ ...team1, readiness: r('ready') }] }), { start: false, outcome: { type: 'finish', result: 'skipped', message: 'already Ready; generated Kustomization/flux-system/tenant-team1' } }],
    ['Ready later: ok', { startedAt: T0 }, view({ readiness: r('ready') }), { outcome: { type: 'finish', result: 'ok', message: 'Ready' } }],
    ['a dependsOn tier that failed: not run', { startedAt: null }, view({ depsDone: false, depsFailed: ['flux-system/apps'] }), { start: false, outcome: { type: 'block', by: ['flux-system/apps'] } }],
    ['dependsOn tiers still going: not started', { startedAt: null }, view({ exists: false, depsDone: false, depsPending: ['flux-system/apps'] }), { start: false, outcome: null, line: null }],
    ['not applied and its parent not done: not started', { startedAt: null }, view({ exists: false, parentDone: false }), { start: false, outcome: null, line: null }],
    ['reconciliation disabled: skipped with the annotation named', { startedAt: null }, view({ disabled: true }), { outcome: { type: 'finish', result: 'skipped' } }],
  ])('%s', (_name, track, v, expected) => {
    expect(decideResourceSet(track, v, T0)).toMatchObject(expected);
  });

  it('starts once its dependsOn are Ready, and names the generated objects it waits on, in their order', () => {
    const d = decideResourceSet({ startedAt: null }, view({ generated: [team2, team1, release] }), T0);
    expect(d.start).toBe(true);
    expect(d.track.startedAt).toBe(T0);
    expect(d.line).toBe(
      'waiting on 3 of the 3 Kustomizations/HelmReleases it generates: Kustomization/flux-system/tenant-team1: Running health checks for revision main@sha1:abc with a timeout of 3m0s; ' +
        'Kustomization/flux-system/tenant-team2 after Kustomization/flux-system/tenant-team1; HelmRelease/demo/web not applied yet',
    );
  });

  it('a generated object Ready is left out of the line', () => {
    expect(resourceSetLine(view({ generated: [{ ...team1, readiness: r('ready') }, { ...team2, after: [], readiness: r('progressing', { message: 'Reconciliation in progress' }) }] }))).toBe(
      'waiting on 1 of the 2 Kustomizations/HelmReleases it generates: Kustomization/flux-system/tenant-team2: Reconciliation in progress',
    );
  });

  it('waiting on its dependsOn: the operator\'s words, with the dependsOn no tier orders', () => {
    const v = view({ readiness: r('waiting', { reason: 'DependencyNotReady', message: "dependency 'CustomResourceDefinition//certificates.cert-manager.io' not ready" }), otherDeps: ['CustomResourceDefinition/certificates.cert-manager.io Ready'] });
    expect(resourceSetLine(v)).toBe("waiting for its dependsOn (CustomResourceDefinition/certificates.cert-manager.io Ready): dependency 'CustomResourceDefinition//certificates.cert-manager.io' not ready");
  });

  it('not applied yet: names the tier that applies it', () => {
    expect(resourceSetLine(view({ exists: false }))).toBe('not applied yet (flux-system/tenants applies it)');
  });

  it('not expanded here: says so instead of naming nothing', () => {
    expect(resourceSetLine(view({ generated: { unknown: 'its input providers are read at run time' } }))).toBe('Reconciliation in progress (what it generates is not known here: its input providers are read at run time)');
  });

  it('a failure names the ResourceSet file:line and the generated objects that failed', () => {
    const v = view({ readiness: r('failed', { reason: 'HealthCheckFailed', message: 'timeout waiting for: [Kustomization/flux-system/tenant-team1 status: Failed]' }), generated: [{ ...team1, readiness: r('failed', { reason: 'BuildFailed', message: 'kustomize build failed' }) }] });
    const d = decideResourceSet({ startedAt: T0 }, v, T0 + 1000);
    expect(d.outcome).toEqual({
      type: 'fail',
      message: 'ResourceSet/flux-system/tenants failed (HealthCheckFailed): timeout waiting for: [Kustomization/flux-system/tenant-team1 status: Failed]\n  Kustomization/flux-system/tenant-team1: kustomize build failed',
      hint: 'Fix the ResourceSet (tenants/tenants.yaml:4) or what it generates (Kustomization/flux-system/tenant-team1) in git, then `standup resume` (flux-operator does not retry a spec that failed this way).',
    });
  });

  it('times out with the line that says what it still waits on', () => {
    const d = decideResourceSet({ startedAt: T0 }, view({ generated: [team2] }), T0 + 60_001);
    expect(d.outcome).toEqual({ type: 'timeout', line: 'waiting on 1 of the 1 Kustomizations/HelmReleases it generates: Kustomization/flux-system/tenant-team2 after Kustomization/flux-system/tenant-team1' });
  });
});
