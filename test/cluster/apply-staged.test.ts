// applyStaged's requests over fake ApplyOps: a stage's reads and dry-runs overlap, its writes come after all of them,
// a rejected dry-run leaves the stage unwritten, results keep apply order. (Against a real API server:
// test/integration/cluster-apply.test.ts.)
import { describe, expect, it } from 'vitest';
import { applyStaged, type ApplyOps } from '../../src/cluster/apply.js';
import type { K8sObject } from '../../src/cluster/client.js';
import { ApplyError, ClusterError } from '../../src/cluster/errors.js';
import { refKey, type ApiRef } from '../../src/model/ref.js';

const cm = (name: string, data = 'x'): K8sObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'a' }, data: { v: data } });

/** Ops whose every request takes `ms` and is logged; `live` holds what exists; `reject` names objects and phases refused. */
function fakeOps(o: { live?: Record<string, K8sObject>; reject?: { name: string; phase: 'dry-run' | 'apply' }[]; ms?: number } = {}) {
  const log: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const live = new Map(Object.entries(o.live ?? {}));
  const req = async <T>(what: string, f: () => T): Promise<T> => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    log.push(`${what} start`);
    await new Promise((r) => setTimeout(r, o.ms ?? 5));
    inFlight--;
    log.push(`${what} end`);
    return f();
  };
  const refused = (name: string, phase: string) => o.reject?.some((r) => r.name === name && r.phase === phase);
  const ops: ApplyOps = {
    find: (ref: ApiRef) => req(`get ${ref.name}`, () => live.get(ref.name!)),
    ssa: (obj, _o, dryRun) => req(`${dryRun ? 'dry' : 'write'} ${obj.metadata.name}`, () => {
      if (refused(obj.metadata.name, dryRun ? 'dry-run' : 'apply')) throw new ClusterError('Invalid', `${obj.metadata.name} is invalid`, 422);
      if (!dryRun) live.set(obj.metadata.name, obj);
      return obj;
    }),
    waitEstablished: async () => undefined,
    toError: (e) => ({ error: e instanceof ClusterError ? e : new ClusterError('Other', String(e)) }),
    delay: async () => undefined,
  };
  return { ops, log, max: () => maxInFlight };
}

const opts = { fieldManager: 'standup', force: true };

describe('applyStaged', () => {
  it("overlaps a stage's reads and dry-runs, and writes only after every one of them answered", async () => {
    const f = fakeOps();
    const r = await applyStaged([cm('a'), cm('b'), cm('c')], opts, f.ops);
    expect(r.map((x) => [x.id, x.action])).toEqual([['ConfigMap/a/a', 'created'], ['ConfigMap/a/b', 'created'], ['ConfigMap/a/c', 'created']]);
    expect(f.max()).toBeGreaterThanOrEqual(6); // 3 GETs and 3 dry-runs at once
    const firstWrite = f.log.findIndex((l) => l.startsWith('write'));
    const lastCheck = Math.max(...f.log.map((l, i) => (/^(get|dry) .* end$/.test(l) ? i : -1)));
    expect(firstWrite).toBeGreaterThan(lastCheck);
  });

  it('writes nothing of a stage one of whose dry-runs is refused, and names the first refused in apply order', async () => {
    const f = fakeOps({ reject: [{ name: 'c', phase: 'dry-run' }, { name: 'b', phase: 'dry-run' }] });
    const e = await applyStaged([cm('a'), cm('b'), cm('c')], opts, f.ops).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApplyError);
    expect((e as ApplyError).message).toMatch(/^ConfigMap\/a\/b dry-run failed/);
    expect(f.log.some((l) => l.startsWith('write'))).toBe(false);
  });

  it('writes no unchanged object, and a refused write carries the writes that went through beside it', async () => {
    const f = fakeOps({ live: { a: cm('a') }, reject: [{ name: 'b', phase: 'apply' }] });
    const e = (await applyStaged([cm('a'), cm('b'), cm('c')], opts, f.ops).catch((x: unknown) => x)) as ApplyError;
    expect(e.message).toMatch(/^ConfigMap\/a\/b apply failed/);
    expect(e.applied.map((x) => [refKey(x.ref), x.action])).toEqual([['ConfigMap/a/a', 'unchanged'], ['ConfigMap/a/c', 'created']]);
    expect(f.log).not.toContain('write a start');
  });

  it('caps the requests in flight', async () => {
    const f = fakeOps({ ms: 2 });
    await applyStaged(Array.from({ length: 30 }, (_, i) => cm(`n${i}`)), opts, f.ops);
    expect(f.max()).toBeLessThanOrEqual(16); // 8 objects, each its GET beside its dry-run
  });
});
