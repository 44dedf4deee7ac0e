// The up benchmark measures what it says, on a real testbed of its own (scripts/bench/up/run.ts starts one per run,
// beside the suite's): a small generated graph with HelmReleases converges under `standup up` and under Flux alone,
// the physical limit computed from the controllers' logs is a lower bound of what was seen, every release took at
// least its readiness delay, and the audit log counts standup's requests without the benchmark's own watches.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { readAudit } from '../testbed/audit.js';
import { kcReconciles } from '../../scripts/bench/up/kc-log.js';
import { generateRepository } from '../../scripts/bench/up/generate.js';
import type { GraphSpec, TierSpec } from '../../scripts/bench/up/graph-spec.js';
import { parseVariant, runOnce, type RunResult } from '../../scripts/bench/up/run.js';
import { WATCH_USER_AGENT } from '../../scripts/bench/up/watch.js';

const tier = (name: string, o: Partial<TierSpec> = {}): TierSpec => ({
  namespace: 'flux-system', name, parent: 'flux-system/flux-system', dependsOn: [], wait: true, timeout: '3m', prune: true,
  healthChecks: [], helmReleases: [], namespaces: [], configMaps: [], sources: [], ...o,
});
// db (a release, wait: true) <- app (a release that also dependsOn db's, wait: false) which applies cfg (config).
const graph: GraphSpec = {
  name: 'it-bench',
  origin: 'the bench-up integration test',
  entry: 'clusters/bench',
  root: { namespace: 'flux-system', name: 'flux-system', inEntry: true },
  tiers: [
    tier('db', { namespaces: ['db', 'app'], helmReleases: [{ namespace: 'db', name: 'pg', dependsOn: [] }] }),
    tier('app', { dependsOn: ['flux-system/db'], wait: false, helmReleases: [{ namespace: 'app', name: 'web', dependsOn: ['db/pg'] }] }),
    tier('cfg', { parent: 'flux-system/app', configMaps: [{ namespace: 'flux-system', name: 'bench-cfg' }] }),
  ],
  entryContent: { helmReleases: [], namespaces: [], configMaps: [], sources: [] },
  notes: [],
};
const seed = 5;
const delaySeconds: [number, number] = [2, 4];
const delays = generateRepository(graph, { gitUrl: () => '', chartUrl: '', seed, delaySeconds, context: '' }).delays;
const keep = mkdtempSync(path.join(os.tmpdir(), 'standup-bench-it-'));
afterAll(() => rmSync(keep, { recursive: true, force: true }));
const run = (variant: string) => runOnce(graph, parseVariant(variant)!, 1, { seed, delaySeconds, timeoutMs: 150_000, keepLogs: keep, log: () => {} });

function expectMeasured(r: RunResult) {
  expect(r.error).toBeUndefined();
  expect(r.ok).toBe(true);
  expect(Object.keys(r.readyAt).sort()).toEqual(['flux-system/app', 'flux-system/cfg', 'flux-system/db', 'flux-system/flux-system']);
  expect(Object.keys(r.helmReadyAt).sort()).toEqual(['app/web', 'db/pg']);
  expect(r.limitMissing).toEqual([]);
  // A lower bound: nothing can be Ready sooner than the controllers' own work allows.
  expect(r.limit!.ms).toBeLessThanOrEqual(r.allReadyMs!);
  expect(r.limit!.ms).toBeGreaterThan(0);
  // web waits for pg (its dependsOn), which waits for its pod: both delays lie on the longest path.
  expect(r.limit!.path.some((p) => p.startsWith('HelmRelease/db/pg Ready'))).toBe(true);
  expect(r.limit!.path.at(-1)).toMatch(/^HelmRelease\/app\/web Ready/);
  for (const [key, delay] of Object.entries(delays)) expect(r.measured!.helmMs[key]).toBeGreaterThanOrEqual(delay * 1000);
  expect(r.cpuMs['kustomize-controller']).toBeGreaterThan(0);
  expect(r.cpuMs['helm-controller']).toBeGreaterThan(0);
}

describe.sequential('bench:up on a small generated graph', () => {
  it('standup up: all Ready, the limit below it, standup\'s API traffic from the audit log', async () => {
    const r = await run('standup');
    expectMeasured(r);
    const s = r.standup!;
    expect(s.exitCode).toBe(0);
    // Bootstrap's apply and one reconcile request per Kustomization at least.
    expect(s.api!.writes).toBeGreaterThanOrEqual(4);
    expect(s.api!.watches).toBeGreaterThanOrEqual(1);
    expect(s.api!.perMinute).toBeGreaterThan(0);
    expect(s.maxRssKiB).toBeGreaterThan(20_000);
    // The benchmark's own watches are in the audit log, and were not counted as standup's.
    const audit = path.join(keep, 'it-bench-standup-1', 'audit.log');
    const all = readAudit(audit, { since: new Date(r.startedAt) });
    const watcher = all.filter((e) => e.userAgent === WATCH_USER_AGENT);
    expect(watcher.length).toBeGreaterThan(0);
    const counted = s.api!.requests + s.api!.watches;
    expect(counted).toBeLessThanOrEqual(all.length - watcher.length);
    // pg (no dependsOn) and web (created by app, after db and so pg were Ready) were each asked the moment
    // helm-controller had added its finalizer, not left to its 750 ms requeue; and no tier was run twice by
    // kustomize-controller (a request landing in a reconcile KC runs on its own).
    expect(s.runEnd).toMatchObject({ helmReleases: { early: 2, asked: 0 } });
    const reconciles = kcReconciles(readFileSync(path.join(keep, 'it-bench-standup-1', 'kustomize-controller.log'), 'utf8'));
    const twice = reconciles.filter((x, i) => reconciles.findIndex((y) => y.key === x.key) !== i).map((x) => x.key);
    expect(twice).toEqual([]);
  });

  it('Flux alone: app is turned away until db is Ready, and the same measurements hold', async () => {
    const r = await run('flux-5s-c4');
    expectMeasured(r);
    expect(r.standup).toBeUndefined();
    expect(r.kcDependencyRetries['flux-system/app']).toBeGreaterThanOrEqual(1);
    expect(readdirSync(keep)).toContain('it-bench-flux-5s-c4-1');
  });
});
