import { describe, expect, it } from 'vitest';
import type { K8sObject } from '../../src/cluster/client.js';
import { jsonEvent } from '../../src/runner/event-json.js';
import type { RunEvent } from '../../src/runner/events.js';
import { planReset, runReset } from '../../src/runner/reset.js';
import { planRun, run, type RunMode } from '../../src/runner/run.js';
import { stepsOf } from '../../src/runner/run-plan.js';
import type { BootstrapInputs } from '../../src/runner/run-target.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { runTarget } from '../fakes/run-target.js';

const flux = new FakeCluster();
const gotk: K8sObject[] = [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'kustomize-controller', namespace: 'flux-system' } }];
const sync: K8sObject[] = [{ apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'GitRepository', metadata: { name: 'flux-system', namespace: 'flux-system' } }];
const bootstrap = (o: Partial<BootstrapInputs> = {}): BootstrapInputs => ({ install: { file: 'gotk-components.yaml', objects: gotk }, secrets: [], sync, syncDir: 'clusters/dev/flux-system', ...o });
const steps = (mode: RunMode, t = runTarget(flux)) => stepsOf(planRun(t, mode, {}).parts).map((s) => `${s.id}: ${s.title}`);
const TIERS = ['source: Fetch source', 'tier:flux-system/apps: flux-system/apps', 'tier:flux-system/flux-system: flux-system/flux-system'];

describe('a run as data: the steps each command shows are the steps it runs', () => {
  it.each<[string, RunMode, Partial<Parameters<typeof runTarget>[1]>, string[]]>([
    ['up, Flux already running', 'up', { bootstrap: bootstrap({ install: null }) }, ['check: Check the graph', 'preflight: Preflight', 'bootstrap: Bootstrap Flux (secrets, sync)', 'crds: CRD fallback', ...TIERS]],
    ['up installing Flux from the repository', 'up', { bootstrap: bootstrap(), installsFlux: true }, ['check: Check the graph', 'preflight: Preflight', 'install: Install Flux', 'bootstrap: Bootstrap Flux (secrets, sync)', 'crds: CRD fallback', ...TIERS]],
    ['resume', 'resume', {}, ['check: Check the graph', 'preflight: Preflight', ...TIERS]],
    ['resume where tiers.yaml installs Flux: its controllers, and the sync an interrupted up never applied', 'resume', { bootstrap: bootstrap(), installsFlux: true }, ['check: Check the graph', 'preflight: Preflight', 'install: Flux controllers', 'bootstrap: Bootstrap Flux (secrets, sync), if up did not finish it', ...TIERS]],
    ['resume where tiers.yaml installs Flux and has no sync to finish', 'resume', { bootstrap: bootstrap({ sync: [] }), installsFlux: true }, ['check: Check the graph', 'preflight: Preflight', 'install: Flux controllers', ...TIERS]],
    ['crds', 'crds', {}, ['preflight: Preflight', 'crds: CRD fallback']],
    // An up stopped before its own fallback step: resume applies the fallback too, before the tiers.
    ['resume with a CRD fallback', 'resume', { fallback: { files: ['crds.yaml'], objects: gotk, crds: [] } }, ['check: Check the graph', 'preflight: Preflight', 'crds: CRD fallback', ...TIERS]],
  ])('%s', (_name, mode, target, expected) => {
    expect(steps(mode, runTarget(flux, target))).toEqual(expected);
  });

  it('reset tears down in reverse order; reset --up then runs up\'s steps after its own checks', () => {
    const t = runTarget(flux, { bootstrap: bootstrap({ install: null }) });
    const teardown = ['suspend: Suspend the root sync', 'delete:flux-system/apps: Delete flux-system/apps', 'namespaces: Wait for pruned Namespaces and CRDs to be gone'];
    expect(stepsOf(planReset(t, {}).parts).map((s) => `${s.id}: ${s.title}`)).toEqual(['preflight: Preflight', ...teardown]);
    expect(stepsOf(planReset(t, { up: true }).parts).map((s) => `${s.id}: ${s.title}`)).toEqual(['check: Check the graph', 'preflight: Preflight', ...teardown, 'bootstrap: Bootstrap Flux (secrets, sync)', 'crds: CRD fallback', ...TIERS]);
  });

  it('a tier step carries its level and what it depends on', () => {
    const tier = stepsOf(planRun(runTarget(flux), 'resume', {}).parts).find((s) => s.id === 'tier:flux-system/apps');
    expect(tier).toEqual({ id: 'tier:flux-system/apps', kind: 'tier', title: 'flux-system/apps', level: 0, dependsOn: [] });
  });
});

describe('before any write', () => {
  const collect = () => {
    const events: RunEvent[] = [];
    return { events, emit: (e: RunEvent) => void events.push(e) };
  };

  it.each([
    ['another context than tiers.yaml pins', { expectedContext: 'prod-admin' }, 'CONTEXT_GUARD', 4],
    ['no context pinned at all', { expectedContext: undefined, pinned: false }, 'CONTEXT_UNPINNED', 2],
  ])('the context guard refuses %s, once, as the preflight step; nothing is written', async (_name, guard, code, exitCode) => {
    for (const go of [
      (emit: (e: RunEvent) => void, c: FakeCluster) => run(runTarget(c, { guard: { ...runTarget(c).guard, ...guard } }), 'up', { emit, signal: new AbortController().signal }),
      (emit: (e: RunEvent) => void, c: FakeCluster) => runReset(runTarget(c, { guard: { ...runTarget(c).guard, ...guard } }), { emit, signal: new AbortController().signal }),
    ]) {
      const c = new FakeCluster();
      const { events, emit } = collect();
      const r = await go(emit, c);
      expect(r.exitCode).toBe(exitCode);
      expect(c.writes).toEqual([]);
      expect(events.find((e) => e.type === 'step-end' && e.id === 'preflight')).toMatchObject({ result: 'failed' });
      expect(events.at(-1)).toMatchObject({ type: 'run-end', code });
    }
  });

  it('static problems travel as an event the JSON stream does not print; the run ends NOT_CONVERGEABLE with exit 2', async () => {
    const cycle = { code: 'cycle' as const, severity: 'error' as const, message: 'dependency cycle: a -> b -> a', file: 'clusters/dev/a.yaml', line: 3, object: 'Kustomization/flux-system/a', cluster: 'dev' };
    const c = new FakeCluster();
    const { events, emit } = collect();
    const r = await run(runTarget(c, { problems: [cycle] }), 'resume', { emit, signal: new AbortController().signal });
    expect(r.exitCode).toBe(2);
    expect(c.writes).toEqual([]);
    const problems = events.find((e) => e.type === 'problems');
    expect(problems).toEqual({ type: 'problems', problems: [cycle] });
    expect(jsonEvent(problems!)).toBeNull();
    expect(events.at(-1)).toMatchObject({ type: 'run-end', code: 'NOT_CONVERGEABLE', message: '1 problem keeps this cluster from converging; nothing was written' });
  });

  it('run-end carries every step as it ended, for the summary; the JSON stream leaves that out', async () => {
    const c = new FakeCluster();
    const { events, emit } = collect();
    await run(runTarget(c, { problems: [] }), 'crds', { emit, signal: new AbortController().signal });
    const end = events.at(-1)!;
    expect(end.type === 'run-end' && end.steps.map((s) => [s.id, s.result])).toEqual([['preflight', 'failed'], ['crds', 'not-run']]);
    expect(Object.keys(jsonEvent(end)!)).not.toContain('steps');
  });
});
