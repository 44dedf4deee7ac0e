import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/cluster/client.js';
import { LiveState } from '../../src/runner/live-state.js';
import { FakeFlux } from './fake-flux.js';

describe('LiveState.changed', () => {
  it('leaves no abort listener behind when a wait times out, however many quiet ticks pass', async () => {
    const ac = new AbortController();
    const live = new LiveState(new FakeFlux() as unknown as ClusterClient, ac.signal);
    await live.start();
    const baseline = getEventListeners(ac.signal, 'abort').length;
    // More quiet ticks than Node's default of 10 listeners before MaxListenersExceededWarning.
    for (let i = 0; i < 25; i++) await live.changed(1);
    expect(getEventListeners(ac.signal, 'abort').length).toBe(baseline);
    ac.abort();
  });

  it('still resolves at once on abort', async () => {
    const ac = new AbortController();
    const live = new LiveState(new FakeFlux() as unknown as ClusterClient, ac.signal);
    await live.start();
    const t0 = Date.now();
    const wait = live.changed(60_000);
    ac.abort();
    await wait;
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});
