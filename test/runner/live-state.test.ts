import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { LiveState } from '../../src/runner/live-state.js';
import { FakeCluster } from '../fakes/fake-cluster.js';

describe('LiveState.changed', () => {
  it('leaves no abort listener behind when a wait times out, however many quiet ticks pass', async () => {
    const ac = new AbortController();
    const live = new LiveState(new FakeCluster(), ac.signal);
    await live.start();
    const baseline = getEventListeners(ac.signal, 'abort').length;
    // More quiet ticks than Node's default of 10 listeners before MaxListenersExceededWarning.
    for (let i = 0; i < 25; i++) await live.changed(1);
    expect(getEventListeners(ac.signal, 'abort').length).toBe(baseline);
    ac.abort();
  });

  it('still resolves at once on abort', async () => {
    const ac = new AbortController();
    const live = new LiveState(new FakeCluster(), ac.signal);
    await live.start();
    const t0 = Date.now();
    const wait = live.changed(60_000);
    ac.abort();
    await wait;
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('rejects at once when the run was already aborted, so a 0s deadline cannot hang a run', async () => {
    const ac = new AbortController();
    const live = new LiveState(new FakeCluster(), ac.signal);
    await live.start();
    ac.abort();
    const t0 = Date.now();
    await expect(live.changed(60_000)).rejects.toMatchObject({ code: 'INTERRUPTED' });
    expect(Date.now() - t0).toBeLessThan(100);
  });

  it('start() waits for the sources too, so the first look never says a source is "not created yet" when it exists', async () => {
    const ac = new AbortController();
    const live = new LiveState(new FakeCluster(), ac.signal);
    await live.start();
    expect(live.sources.has('GitRepository/flux-system/flux-system')).toBe(true);
    ac.abort();
  });
});
