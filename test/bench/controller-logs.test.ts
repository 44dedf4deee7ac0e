// Reading the Flux controllers' console logs (scripts/bench/up/{log-lines,kc-log,helm-log}.ts). The lines are written
// here in the format the testbed's controllers use (--log-encoding=console), modelled on real runs.
import { describe, expect, it } from 'vitest';
import { helmBusy, helmReconciles, sourceFetch } from '../../scripts/bench/up/helm-log.js';
import { kcDependencyRetries, kcReconciles } from '../../scripts/bench/up/kc-log.js';
import { goDurationMs, parseLogLines, workersStarted } from '../../scripts/bench/up/log-lines.js';

const ctl = (kind: string, group: string, ns: string, name: string, id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ controller: kind.toLowerCase(), controllerGroup: group, controllerKind: kind, [kind]: { name, namespace: ns }, namespace: ns, name, reconcileID: id, ...extra });
const line = (at: string, level: string, msg: string, fields: string) => `2026-12-01T10:02:${at}Z\t${level}\t${msg}\t${fields}`;
const event = (at: string, msg: string) => `2026-12-01T10:02:${at}Z\tDEBUG\tevents\t${msg}\t{"type": "Normal", "reason": "Progressing"}`;
const ks = (ns: string, name: string, id: string, extra?: Record<string, unknown>) => ctl('Kustomization', 'kustomize.toolkit.fluxcd.io', ns, name, id, extra);
const hr = (ns: string, name: string, id: string) => ctl('HelmRelease', 'helm.toolkit.fluxcd.io', ns, name, id);

describe('log lines', () => {
  it('parses controller and event lines, skips continuation lines and broken JSON', () => {
    const ls = parseLogLines([line('23.628', 'INFO', 'server-side apply completed', ks('flux-system', 'a', 'r1')), 'HelmRelease/apps/a created', event('23.629', 'HelmRelease/apps/a created'), line('24.000', 'INFO', 'cut', '{"controllerKind": "Kustom')].join('\n'));
    expect(ls).toHaveLength(2);
    expect(ls[0]).toMatchObject({ level: 'INFO', logger: '', message: 'server-side apply completed', at: Date.parse('2026-12-01T10:02:23.628Z') });
    expect(ls[1]).toMatchObject({ logger: 'events', message: 'HelmRelease/apps/a created' });
  });

  it('reads Go durations', () => {
    expect(goDurationMs('15.175795902s')).toBeCloseTo(15175.8, 1);
    expect(goDurationMs('1m2.5s')).toBe(62_500);
    expect(goDurationMs('850µs')).toBeCloseTo(0.85);
    expect(() => goDurationMs('soon')).toThrow('not a Go duration');
  });

  it('knows when a controller\'s workers run', () => {
    const log = `2026-12-01T10:02:22.515Z\tINFO\tStarting workers\t{"controller": "gitrepository", "controllerKind": "GitRepository", "worker count": 2}`;
    expect(workersStarted(log, ['GitRepository'])).toBe(true);
    expect(workersStarted(log, ['GitRepository', 'HelmChart'])).toBe(false);
  });
});

describe('kustomize-controller', () => {
  const log = [
    line('22.393', 'INFO', 'Dependencies do not meet ready condition, retrying in 30s', ks('flux-system', 'b', 'r0')),
    line('23.628', 'INFO', 'server-side apply completed', ks('flux-system', 'a', 'r1', { output: { 'HelmRelease/apps/a-r0': 'created' }, revision: 'main@sha1:abc' })),
    event('38.665', 'Reconciliation finished in 15.175795902s, next run in 1h0m0s'),
    line('38.666', 'INFO', 'Reconciliation finished in 15.175795902s, next run in 1h0m0s', ks('flux-system', 'a', 'r1', { revision: 'main@sha1:abc' })),
    line('39.100', 'INFO', 'Reconciliation finished in 90ms, next run in 1h0m0s', ks('flux-system', 'b', 'r2', { revision: 'main@sha1:abc' })),
  ].join('\n');

  it('each successful reconcile: duration, when its apply completed, the revision (the events copy is not counted twice)', () => {
    const rs = kcReconciles(log);
    expect(rs.map((r) => r.key)).toEqual(['flux-system/a', 'flux-system/b']);
    expect(rs[0]).toMatchObject({ name: 'a', revision: 'main@sha1:abc', appliedAt: Date.parse('2026-12-01T10:02:23.628Z'), finishedAt: Date.parse('2026-12-01T10:02:38.666Z') });
    expect(rs[0]!.durationMs).toBeCloseTo(15175.8, 1);
    expect(rs[1]!.appliedAt).toBeNull();
  });

  it('counts the dependency turn-aways per Kustomization', () => {
    expect(kcDependencyRetries(log)).toEqual(new Map([['flux-system/b', 1]]));
  });
});

describe('helm-controller and source-controller', () => {
  const helm = [
    line('23.636', 'INFO', 'metadata.finalizers: "finalizers.fluxcd.io": prefer a domain-qualified finalizer name', hr('apps', 'web', 'h1')),
    line('23.640', 'INFO', 'checking 1 dependencies', hr('apps', 'web', 'h1')),
    line('23.641', 'INFO', 'dependencies do not meet ready condition (dependency \'db/pg\' is not ready): retrying in 30s', hr('apps', 'web', 'h1')),
    line('53.700', 'INFO', 'all dependencies are ready', hr('apps', 'web', 'h2')),
    line('53.800', 'INFO', "HelmChart 'flux-system/apps-web' is not ready: latest generation of object has not been reconciled", hr('apps', 'web', 'h2')),
    line('55.427', 'INFO', "running 'install' action with timeout of 5m0s", hr('apps', 'web', 'h3')),
    line('59.653', 'INFO', 'release in-sync with desired state', hr('apps', 'web', 'h3')),
    line('59.700', 'INFO', 'release in-sync with desired state', hr('apps', 'web', 'h4')),
    line('30.000', 'INFO', "running 'install' action with timeout of 5m0s", hr('db', 'pg', 'p1')),
    line('40.000', 'INFO', 'release in-sync with desired state', hr('db', 'pg', 'p1')),
  ].join('\n');

  it('the attempt that installed each release starts after its dependencies were ready; its action, its retries', () => {
    const web = helmReconciles(helm).get('apps/web')!;
    expect(web.startedAt).toBe(Date.parse('2026-12-01T10:02:53.700Z'));
    expect(web.actionStartedAt).toBe(Date.parse('2026-12-01T10:02:55.427Z'));
    expect(web.readyAt).toBe(Date.parse('2026-12-01T10:02:59.653Z'));
    expect(web.dependencyRetries).toBe(1);
    // Without dependsOn the attempt starts at the controller's first line about the release.
    expect(helmReconciles(helm).get('db/pg')!.startedAt).toBe(Date.parse('2026-12-01T10:02:30.000Z'));
  });

  it('how many Helm actions ran at once', () => {
    const b = helmBusy(helmReconciles(helm).values(), 2);
    // pg 30-40 s, web 55.4-59.7 s: never two at once.
    expect(b.max).toBe(1);
    expect(b.fullShare).toBe(0);
    expect(b.spanMs).toBe(Date.parse('2026-12-01T10:02:59.653Z') - Date.parse('2026-12-01T10:02:30.000Z'));
    expect(b.mean).toBeGreaterThan(0.4);
    expect(b.mean).toBeLessThan(0.5);
  });

  it('a source\'s first artifact: a GitRepository stored, a HelmChart pulled', () => {
    const src = [
      line('22.521', 'INFO', 'metadata.finalizers: "finalizers.fluxcd.io": prefer a domain-qualified finalizer name', ctl('GitRepository', 'source.toolkit.fluxcd.io', 'flux-system', 'flux-system', 's1')),
      line('23.326', 'INFO', "stored artifact for commit 'generated'", ctl('GitRepository', 'source.toolkit.fluxcd.io', 'flux-system', 'flux-system', 's2')),
      line('24.000', 'INFO', 'metadata.finalizers: "finalizers.fluxcd.io": prefer', ctl('HelmChart', 'source.toolkit.fluxcd.io', 'flux-system', 'apps-web', 'c1')),
      line('24.900', 'INFO', "pulled 'bench-app' chart with version '1.0.0'", ctl('HelmChart', 'source.toolkit.fluxcd.io', 'flux-system', 'apps-web', 'c1')),
    ].join('\n');
    expect(sourceFetch(src, 'GitRepository', 'flux-system/flux-system')).toEqual({ startedAt: Date.parse('2026-12-01T10:02:22.521Z'), storedAt: Date.parse('2026-12-01T10:02:23.326Z') });
    expect(sourceFetch(src, 'HelmChart', 'flux-system/apps-web')).toEqual({ startedAt: Date.parse('2026-12-01T10:02:24.000Z'), storedAt: Date.parse('2026-12-01T10:02:24.900Z') });
    expect(sourceFetch(src, 'HelmChart', 'flux-system/other')).toBeNull();
  });
});
