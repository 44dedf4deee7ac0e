import { describe, expect, it } from 'vitest';
import { ClusterError } from '../../src/cluster/errors.js';
import { RunTimeoutError } from '../../src/runner/errors.js';
import { retryTransient } from '../../src/runner/writer.js';
import { FakeClock } from '../fakes/fake-clock.js';

const refused = () => new ClusterError('Unreachable', 'cannot reach the API server https://127.0.0.1:1: ECONNREFUSED');

describe('retryTransient', () => {
  it('waits out an outage longer than its budget until the run ends it, and throws the run\'s reason', async () => {
    const clock = new FakeClock();
    const run = new AbortController();
    const started = clock.now();
    // The run's --timeout fires 3 minutes in: long after the 60 s budget a write of its own would have had.
    clock.at(180_000, () => run.abort(new RunTimeoutError('--timeout 3m ran out', 'resume')));
    let calls = 0;
    const err = await retryTransient(async () => { calls++; throw refused(); }, run.signal, clock).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunTimeoutError);
    expect(clock.now() - started).toBe(180_000);
    expect(calls).toBeGreaterThan(30);
  });

  it('succeeds once the API server is back, however long it was away', async () => {
    const clock = new FakeClock();
    const back = clock.now() + 120_000;
    const v = await retryTransient(async () => {
      if (clock.now() < back) throw new ClusterError('Timeout', 'the API server did not answer');
      return 'done';
    }, new AbortController().signal, clock);
    expect(v).toBe('done');
  });

  it('gives a conflict its budget, and throws anything else at once', async () => {
    const clock = new FakeClock();
    const started = clock.now();
    const conflict = new ClusterError('Conflict', 'the object has been modified');
    await expect(retryTransient(async () => { throw conflict; }, new AbortController().signal, clock, 10_000)).rejects.toBe(conflict);
    expect(clock.now() - started).toBeLessThanOrEqual(10_000);
    expect(clock.now() - started).toBeGreaterThan(5_000);
    const forbidden = new ClusterError('Forbidden', 'no');
    let calls = 0;
    await expect(retryTransient(async () => { calls++; throw forbidden; }, new AbortController().signal, clock)).rejects.toBe(forbidden);
    expect(calls).toBe(1);
  });
});
