import { describe, expect, it } from 'vitest';
import { adviceFor, stopPhase, type RunCommand, type StopHow, type StopPhase } from '../../src/runner/advice.js';
import type { RunEvent, StepId, StepReport, StepResult } from '../../src/runner/events.js';
import { drive } from '../../src/runner/lifecycle.js';
import { step, stepGroup, type RunPlan } from '../../src/runner/run-plan.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { runTarget } from '../fakes/run-target.js';
import { checkGraph } from '../../src/runner/check.js';
import type { Problem } from '../../src/model/problem.js';

const steps = (...s: [StepId, StepResult, boolean?][]): Pick<StepReport, 'id' | 'result' | 'startedAt'>[] =>
  s.map(([id, result, started = result !== 'not-run']) => ({ id, result, startedAt: started ? '2026-01-01T00:00:00Z' : null }));

describe('where a run stopped', () => {
  it.each<[string, RunCommand, ReturnType<typeof steps>, StopPhase]>([
    ['up, Ctrl-C in the graph check', 'up', steps(['check', 'interrupted'], ['preflight', 'not-run'], ['install', 'not-run']), 'nothing-written'],
    ['up, Ctrl-C between preflight and the install', 'up', steps(['check', 'ok'], ['preflight', 'ok'], ['install', 'not-run']), 'nothing-written'],
    ['up, Ctrl-C in the install', 'up', steps(['check', 'ok'], ['preflight', 'ok'], ['install', 'interrupted'], ['bootstrap', 'not-run']), 'stand-up'],
    ['up, --timeout in a tier', 'up', steps(['check', 'ok'], ['preflight', 'ok'], ['bootstrap', 'ok'], ['tier:a/b', 'timeout']), 'stand-up'],
    ['resume, Ctrl-C in a tier', 'resume', steps(['check', 'ok'], ['preflight', 'ok'], ['source', 'ok'], ['tier:a/b', 'interrupted']), 'stand-up'],
    ['crds, Ctrl-C in the apply', 'crds', steps(['preflight', 'ok'], ['crds', 'interrupted']), 'crds'],
    ['reset, Ctrl-C while deleting', 'reset', steps(['preflight', 'ok'], ['suspend', 'ok'], ['delete:a/b', 'interrupted'], ['namespaces', 'not-run']), 'teardown'],
    ['reset --up, Ctrl-C while deleting', 'reset --up', steps(['check', 'ok'], ['preflight', 'ok'], ['suspend', 'ok'], ['delete:a/b', 'interrupted'], ['bootstrap', 'not-run']), 'teardown'],
    ['reset --up, Ctrl-C between the teardown and the stand-up', 'reset --up', steps(['check', 'ok'], ['preflight', 'ok'], ['suspend', 'ok'], ['namespaces', 'ok'], ['bootstrap', 'not-run']), 'stand-up'],
    ['reset --up, Ctrl-C in the stand-up half', 'reset --up', steps(['check', 'ok'], ['preflight', 'ok'], ['suspend', 'ok'], ['namespaces', 'ok'], ['bootstrap', 'ok'], ['crds', 'ok'], ['tier:a/b', 'interrupted']), 'stand-up'],
  ])('%s', (_name, command, s, phase) => {
    expect(stopPhase(command, s)).toBe(phase);
  });

  // With the changes each step reported: stopped in a writing step before it wrote, nothing was written (up again is
  // what finishes the job: resume could not know a --source-url that up never recorded).
  const withChanges = (install: StepReport['changes']) =>
    steps(['check', 'ok'], ['preflight', 'ok'], ['install', 'interrupted'], ['bootstrap', 'not-run']).map((s) => ({ ...s, changes: s.id === 'install' ? install : [] }));
  it.each<[string, StepReport['changes'], StopPhase]>([
    ['up, Ctrl-C as the install began, before any write', [], 'nothing-written'],
    ['up, Ctrl-C in the install, every object unchanged', [{ object: 'Namespace/flux-system', change: { kind: 'apply', action: 'unchanged' } }], 'nothing-written'],
    ['up, Ctrl-C in the install after the mirror record was written', [{ object: 'ConfigMap/flux-system/standup-source-url', change: { kind: 'apply', action: 'created' } }], 'stand-up'],
    ['up, Ctrl-C in the install after a reconcile request', [{ object: 'Kustomization/flux-system/apps', change: { kind: 'annotate', key: 'reconcile.fluxcd.io/requestedAt', value: 'x' } }], 'stand-up'],
  ])('%s', (_name, install, phase) => {
    expect(stopPhase('up', withChanges(install))).toBe(phase);
  });
});

describe('the advice for each stop point never undoes what the run did', () => {
  it.each<[RunCommand, StopPhase, StopHow, RegExp, RegExp | null]>([
    ['up', 'nothing-written', 'interrupted', /^Nothing was written; run `standup up` again\.$/, null],
    ['resume', 'nothing-written', 'timeout', /Nothing was written; run `standup resume` again with a longer --timeout/, null],
    ['up', 'stand-up', 'interrupted', /Run `standup resume` to finish the job/, /standup (up|reset)/],
    ['up', 'stand-up', 'timeout', /Run `standup resume` to continue from the first unready tier \(with a longer --timeout, or none\)/, /standup (up|reset)\b/],
    ['resume', 'stand-up', 'interrupted', /Run `standup resume` again/, null],
    ['crds', 'crds', 'interrupted', /Run `standup crds` again/, /resume/],
    ['reset', 'teardown', 'interrupted', /Run `standup reset` again to finish the teardown, or `standup up`/, null],
    ['reset --up', 'teardown', 'interrupted', /Run `standup reset --up` again/, null],
    // Item 3: the teardown is done, so "reset again" would tear down what the stand-up half made.
    ['reset --up', 'stand-up', 'interrupted', /^The teardown is done: run `standup resume` to finish standing the cluster up \(`standup reset` would tear it down again\)\.$/, /Run `standup reset/],
    ['reset --up', 'stand-up', 'timeout', /^The teardown is done: run `standup resume` to continue/, /Run `standup reset/],
  ])('%s stopped in %s (%s)', (command, phase, how, says, never) => {
    const a = adviceFor(command, phase, how, false);
    expect(a).toMatch(says);
    if (never) expect(a).not.toMatch(never);
  });

  it('a dry run wrote nothing, wherever it stopped', () => {
    expect(adviceFor('reset --up', 'stand-up', 'interrupted', true)).toBe('Nothing was written (--dry-run); run `standup reset --up --dry-run` again to see the rest.');
  });
});

describe('a run that stops', () => {
  /** A plan with one tier that fails at once and one that waits forever, under --timeout 3m. */
  const plan = (command: RunPlan['command']): RunPlan => ({
    cluster: 'dev',
    command,
    dryRun: false,
    done: () => 'done',
    parts: [
      step({ id: 'check', kind: 'check', title: 'Check the graph' }, async () => ({ result: 'ok', message: 'ok' })),
      stepGroup([{ id: 'tier:flux-system/apps', kind: 'tier', title: 'flux-system/apps' }, { id: 'tier:flux-system/web', kind: 'tier', title: 'flux-system/web' }, { id: 'tier:flux-system/late', kind: 'tier', title: 'flux-system/late' }], async (s) => {
        s.steps.start('tier:flux-system/apps');
        s.steps.start('tier:flux-system/web');
        s.emit({ type: 'change', id: 'tier:flux-system/apps', object: 'Kustomization/flux-system/apps', change: { kind: 'annotate', key: 'reconcile.fluxcd.io/requestedAt', value: '2026-01-01T00:00:00Z' }, dryRun: false });
        const message = 'flux-system/apps failed: HelmRelease/apps/web cannot get its chart\n  chart "web" version "9.9.9" not found';
        s.steps.end('tier:flux-system/apps', 'failed', message);
        (s.summary.failedTiers ??= []).push({ key: 'flux-system/apps', message, hint: 'Fix spec.chart.spec.version in apps/web.yaml:12; then `standup resume`.' });
        s.steps.status('tier:flux-system/web', 'progressing', 'Running health checks');
        await new Promise<void>((_, reject) => s.signal.addEventListener('abort', () => reject(s.signal.reason as Error)));
      }),
    ],
  });

  it('a terminal failure and then --timeout: exit 1, the failure with its reason and hint, then the timeout, no internal ids', async () => {
    const events: RunEvent[] = [];
    const r = await drive(plan('up'), { client: new FakeCluster(), emit: (e) => void events.push(e), signal: new AbortController().signal, overallMs: 180_000, clock: new FakeClock() });
    expect(r.exitCode).toBe(1);
    expect(r.message).toMatch(/^flux-system\/apps failed: HelmRelease\/apps\/web cannot get its chart\n  chart "web" version "9.9.9" not found\nand then --timeout 3m ran out while waiting on flux-system\/web: Running health checks$/);
    expect(r.message).not.toContain('tier:');
    expect((r.error as { hint: string }).hint).toContain('apps/web.yaml:12');
    const end = events.find((e) => e.type === 'run-end')!;
    expect(end.type === 'run-end' && end.code).toBe('TIER_FAILED');
    // A tier the run never reached says why.
    expect(end.type === 'run-end' && end.steps.find((s) => s.id === 'tier:flux-system/late')?.message).toBe('not run: the run stopped before it: flux-system/apps failed');
  });

  it('Ctrl-C after a terminal failure: exit 130, the failure named, the advice for where it stopped', async () => {
    const ctrlC = new AbortController();
    const clock = new FakeClock();
    clock.at(5000, () => ctrlC.abort());
    const r = await drive(plan('reset --up'), { client: new FakeCluster(), emit: () => undefined, signal: ctrlC.signal, overallMs: Infinity, clock });
    expect(r.exitCode).toBe(130);
    expect(r.message).toMatch(/^interrupted; before that, flux-system\/apps failed: HelmRelease/);
    expect((r.error as { hint: string }).hint).toMatch(/apps\/web.yaml:12.*\nThe teardown is done: run `standup resume`/s);
  });
});

describe('the refusal of a graph that cannot converge', () => {
  const problem = (code: Problem['code'], object: string | null): Problem => ({ code, severity: 'error', message: 'm', file: 'a.yaml', line: 1, object, cluster: 'dev' });

  it('a CRD deadlock offers the CRD fallback (crds:), and says what --force would do', () => {
    const t = runTarget(new FakeCluster(), { problems: [problem('runtime-crd', 'StorageProfile/cdi/local')] });
    expect(() => checkGraph(t, false, () => undefined)).toThrow(expect.objectContaining({ hint: expect.stringMatching(/`crds:` in tiers\.yaml.*--force goes ahead, but a deadlocked tier then waits until its timeout/) }));
  });

  it('other problems keep the plain advice', () => {
    const t = runTarget(new FakeCluster(), { problems: [problem('cycle', null)] });
    expect(() => checkGraph(t, false, () => undefined)).toThrow(expect.objectContaining({ hint: 'Fix them (`standup check` lists the same), or pass --force to go ahead anyway.' }));
  });
});
