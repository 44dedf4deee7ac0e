// HelmReleases with dependsOn on the real node, helm-controller at --requeue-dependency=30s (Flux's default, the up
// benchmark's `standup` variant, on a testbed of its own): web dependsOn pg, both in one tier, so helm-controller
// turns web away ("dependency 'db/pg' is not ready") while pg's pod is still starting. standup asks for web the moment
// its watch sees pg Ready, so web is Ready well before the 30 s requeue would have let helm-controller look again.
import { describe, expect, it } from 'vitest';
import type { GraphSpec, TierSpec } from '../../scripts/bench/up/graph-spec.js';
import { parseVariant, runOnce } from '../../scripts/bench/up/run.js';

const tier = (name: string, o: Partial<TierSpec> = {}): TierSpec => ({
  namespace: 'flux-system', name, parent: 'flux-system/flux-system', dependsOn: [], wait: true, timeout: '3m', prune: true,
  healthChecks: [], helmReleases: [], namespaces: [], configMaps: [], sources: [], ...o,
});
const graph: GraphSpec = {
  name: 'it-helm-requeue',
  origin: 'the helm-requeue integration test',
  entry: 'clusters/bench',
  root: { namespace: 'flux-system', name: 'flux-system', inEntry: true },
  tiers: [
    tier('apps', { namespaces: ['db', 'app'], helmReleases: [{ namespace: 'db', name: 'pg', dependsOn: [] }, { namespace: 'app', name: 'web', dependsOn: ['db/pg'] }] }),
  ],
  entryContent: { helmReleases: [], namespaces: [], configMaps: [], sources: [] },
  notes: [],
};

describe('HelmRelease dependsOn under standup up (helm-controller --requeue-dependency=30s)', () => {
  it('asks for web once pg is Ready, and web is Ready long before the 30 s requeue', async () => {
    const r = await runOnce(graph, parseVariant('standup')!, 1, { seed: 3, delaySeconds: [3, 5], timeoutMs: 150_000, log: () => {} });
    expect(r.error).toBeUndefined();
    expect(r.ok).toBe(true);
    const s = r.standup!;
    expect(s.exitCode, s.stderr).toBe(0);
    const pgReady = r.helmReadyAt['db/pg']!;
    const webReady = r.helmReadyAt['app/web']!;
    expect(pgReady).toBeGreaterThan(0);
    // Without the request web would wait out helm-controller's requeue: Ready about 25-30 s after pg.
    expect(webReady - pgReady).toBeLessThan(15_000);
    // The request: a change event on the tier that applied web, like a Kustomization's reconcile request.
    const asks = s.events.filter(({ e }) => e.type === 'change' && e.object === 'HelmRelease/app/web');
    expect(asks.length).toBeGreaterThanOrEqual(1);
    expect(asks[0]!.e).toMatchObject({ id: 'tier:flux-system/apps', action: expect.stringMatching(/^annotated reconcile\.fluxcd\.io\/requestedAt=\d{4}-\d\d-\d\dT/), dryRun: false });
    // Made after pg was Ready (the benchmark's own watch and standup's see it within moments of each other).
    expect(asks[0]!.t).toBeGreaterThanOrEqual(pgReady - 500);
    // pg (no dependsOn) is asked once, at its start: the moment helm-controller had added its finalizer, instead of
    // its own install waiting 750 ms on the rate limiter; web was not (pg was not Ready then).
    const pgAsks = s.events.filter(({ e }) => e.type === 'change' && e.object === 'HelmRelease/db/pg');
    expect(pgAsks.length).toBe(1);
    expect(pgAsks[0]!.t).toBeLessThan(pgReady);
    expect(s.runEnd).toMatchObject({ ok: true, helmReleases: { asked: 1, passed: 1, early: 1 } });
    expect(String(s.runEnd!.message)).toContain('1 HelmRelease asked to reconcile once their dependencies were Ready');
  }, 240_000);
});
