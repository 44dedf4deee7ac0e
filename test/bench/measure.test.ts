// From one run's controller logs to the limit's inputs (scripts/bench/up/measure.ts), on logs written here in the
// testbed controllers' format: a root sync applying db (wait: true, release db/pg) and app (release app/web, which
// dependsOn db/pg and is turned away once).
import { describe, expect, it } from 'vitest';
import type { GraphSpec, TierSpec } from '../../scripts/bench/up/graph-spec.js';
import { physicalLimit } from '../../scripts/bench/up/limit.js';
import { parseLogLines } from '../../scripts/bench/up/log-lines.js';
import { measureRun } from '../../scripts/bench/up/measure.js';

const tier = (name: string, o: Partial<TierSpec>): TierSpec => ({ namespace: 'flux-system', name, parent: 'flux-system/flux-system', dependsOn: [], wait: false, prune: true, healthChecks: [], helmReleases: [], namespaces: [], configMaps: [], sources: [], ...o });
const graph: GraphSpec = {
  name: 't', origin: 'test', entry: 'clusters/t',
  root: { namespace: 'flux-system', name: 'flux-system', inEntry: true },
  tiers: [tier('db', { wait: true, helmReleases: [{ namespace: 'db', name: 'pg', dependsOn: [] }] }), tier('app', { helmReleases: [{ namespace: 'app', name: 'web', dependsOn: ['db/pg'] }] })],
  entryContent: { helmReleases: [], namespaces: [], configMaps: [], sources: [] },
  notes: [],
};
const REV = 'main@sha1:1111';
const at = (s: string) => `2026-12-01T10:00:${s}Z`;
const f = (kind: string, ns: string, name: string, extra: Record<string, unknown> = {}) => JSON.stringify({ controllerKind: kind, namespace: ns, name, reconcileID: `${name}-x`, ...extra });
const l = (s: string, msg: string, fields: string) => `${at(s)}\tINFO\t${msg}\t${fields}`;
const ks = (name: string) => f('Kustomization', 'flux-system', name, { revision: REV });
const hr = (ns: string, name: string) => f('HelmRelease', ns, name);

const kc = [
  l('00.900', 'server-side apply completed', ks('flux-system')),
  l('01.000', 'Reconciliation finished in 500ms, next run in 1h0m0s', ks('flux-system')),
  l('01.300', 'server-side apply completed', ks('db')),
  l('01.500', 'server-side apply completed', ks('app')),
  l('01.600', 'Reconciliation finished in 300ms, next run in 1h0m0s', ks('app')),
  l('07.000', 'Reconciliation finished in 5.9s, next run in 1h0m0s', ks('db')),
].join('\n');
const helm = [
  l('01.350', 'metadata.finalizers: "finalizers.fluxcd.io": prefer a domain-qualified finalizer name', hr('db', 'pg')),
  l('02.000', "running 'install' action with timeout of 5m0s", hr('db', 'pg')),
  l('06.000', 'release in-sync with desired state', hr('db', 'pg')),
  l('01.500', "dependencies do not meet ready condition (dependency 'db/pg' is not ready): retrying in 30s", hr('app', 'web')),
  l('31.500', 'all dependencies are ready', hr('app', 'web')),
  l('31.600', "running 'install' action with timeout of 5m0s", hr('app', 'web')),
  l('35.000', 'release in-sync with desired state', hr('app', 'web')),
].join('\n');
const source = [
  l('00.100', 'metadata.finalizers: "finalizers.fluxcd.io": prefer', f('GitRepository', 'flux-system', 'flux-system')),
  l('00.500', "stored artifact for commit 'x'", f('GitRepository', 'flux-system', 'flux-system')),
  l('01.500', 'metadata.finalizers: "finalizers.fluxcd.io": prefer', f('HelmChart', 'flux-system', 'db-pg')),
  l('01.900', "pulled 'bench-app' chart with version '1.0.0'", f('HelmChart', 'flux-system', 'db-pg')),
  l('31.550', 'metadata.finalizers: "finalizers.fluxcd.io": prefer', f('HelmChart', 'flux-system', 'app-web')),
  l('31.580', "pulled 'bench-app' chart with version '1.0.0'", f('HelmChart', 'flux-system', 'app-web')),
].join('\n');
const logs = { kc: parseLogLines(kc), helm: parseLogLines(helm), source: parseLogLines(source) };

describe('measureRun', () => {
  const m = measureRun(graph, logs, new Set([REV]));

  it('splits each reconcile into its apply and its tail after what it waited on', () => {
    expect(m.missing).toEqual([]);
    const byKey = Object.fromEntries(m.input.kustomizations.map((k) => [k.key, k]));
    expect(byKey['flux-system/flux-system']).toMatchObject({ applier: null, applyMs: 400, tailMs: 100 });
    // db waits on its release (in sync at 06.000), then takes 1 s more to say so.
    expect(byKey['flux-system/db']).toMatchObject({ applier: 'flux-system/flux-system', waitsOn: ['HelmRelease/db/pg'], applyMs: 200, tailMs: 1000 });
    expect(byKey['flux-system/app']).toMatchObject({ waitsOn: [], applyMs: 200, tailMs: 100 });
    expect(m.sourceMs).toBe(400);
  });

  it('a release\'s own time is its chart\'s build plus Helm\'s action; the rest was queue or dependency wait', () => {
    expect(m.helmMs).toEqual({ 'db/pg': 400 + 4000, 'app/web': 30 + 3400 });
    expect(m.helmDependencyRetries).toEqual({ 'db/pg': 0, 'app/web': 1 });
    // web could have started when pg was in sync (06.000); helm-controller came back at 31.500.
    expect(m.helmDependencyWaitMs).toEqual({ 'app/web': 25_500 });
    expect(m.startDelayMs).toEqual({ 'flux-system/db': 200, 'flux-system/app': 400 });
    expect(m.workerBound.kustomize).toBe((500 + 300 + 5900) / 4);
  });

  it('gives the limit: web after pg, without the 30 s requeue', () => {
    const limit = physicalLimit(m.input);
    // fetch 400, root applied at 800, db applied at 1000, pg in sync at 5400, web at 5400 + 3430.
    expect(limit.ms).toBe(8830);
    expect(limit.path.at(-1)).toBe('HelmRelease/app/web Ready (+3430 ms)');
  });

  it('says what the logs lack instead of computing a limit from part of the graph', () => {
    const m2 = measureRun(graph, { ...logs, helm: parseLogLines(helm.split('\n').slice(0, 3).join('\n')) }, new Set([REV]));
    expect(m2.missing).toEqual(['HelmRelease app/web: never "release in-sync with desired state" in helm-controller\'s log']);
    expect(measureRun(graph, logs, new Set(['main@sha1:other'])).missing).toHaveLength(3);
  });
});
