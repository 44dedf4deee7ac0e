// Preflight's wait for the API server's first answer: said after a moment, bounded, and ended by Ctrl-C with what it
// was waiting on.
import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/model/errors.js';
import { InterruptedError, RunTimeoutError } from '../../src/runner/errors.js';
import { firstAnswer, type FirstAnswerOptions } from '../../src/runner/first-answer.js';
import { FakeClock } from '../fakes/fake-clock.js';

const never = new Promise<never>(() => undefined);

function options(o: { answered?: boolean; signal?: AbortSignal; clock?: FakeClock } = {}) {
  const said: string[] = [];
  const opts: FirstAnswerOptions = {
    client: { reachability: () => ({ reachable: true, since: 0, error: null, lastOk: 0, answered: !!o.answered }) },
    server: 'https://10.0.0.1:6443',
    context: 'prod',
    connectMs: 10_000,
    signal: o.signal ?? new AbortController().signal,
    clock: o.clock ?? new FakeClock(),
    say: (l) => said.push(l),
  };
  return { opts, said };
}

describe('the first answer of the API server', () => {
  it('is taken as it comes, and a prompt one says nothing of connecting', async () => {
    const { opts, said } = options();
    await expect(firstAnswer(Promise.resolve('answer'), opts)).resolves.toBe('answer');
    expect(said).toEqual([]);
  });

  it('says what it waits on, then gives up with API_UNREACHABLE naming the server, after the connect timeout', async () => {
    const clock = new FakeClock();
    const { opts, said } = options({ clock });
    const t0 = clock.now();
    const e = await firstAnswer(never, opts).catch((x: unknown) => x as CliError);
    expect(said).toEqual(['connecting to https://10.0.0.1:6443 (context prod)…']);
    expect(clock.now() - t0).toBe(10_000);
    expect(e).toBeInstanceOf(CliError);
    expect([e.code, e.exitCode]).toEqual(['API_UNREACHABLE', 1]);
    expect(e.message).toBe('cannot reach the API server of context prod (https://10.0.0.1:6443): no answer in 10s');
    expect(e.hint).toMatch(/^Nothing was written\. .*VIP or load balancer.*--context or --kubeconfig.*STANDUP_CONNECT_TIMEOUT/);
  });

  it('keeps waiting on a server that has answered something (its requests have their own timeouts)', async () => {
    const clock = new FakeClock();
    const { opts } = options({ clock, answered: true });
    const late = new Promise<string>((resolve) => clock.at(25_000, () => resolve('late answer')));
    await expect(firstAnswer(late, opts)).resolves.toBe('late answer');
  });

  it('passes on the question\'s own failure (ECONNREFUSED is said as before)', async () => {
    const { opts } = options();
    await expect(firstAnswer(Promise.reject(new Error('ECONNREFUSED')), opts)).rejects.toThrow('ECONNREFUSED');
  });

  it('ends at Ctrl-C with what it was waiting on', async () => {
    const clock = new FakeClock();
    const run = new AbortController();
    clock.at(2_000, () => run.abort(new InterruptedError()));
    const { opts } = options({ clock, signal: run.signal });
    const e = await firstAnswer(never, opts).catch((x: unknown) => x as InterruptedError);
    expect(e).toBeInstanceOf(InterruptedError);
    expect(e.message).toBe('interrupted while connecting to https://10.0.0.1:6443 (context prod)');
    expect(clock.now() - Date.parse('2026-01-01T00:00:00Z')).toBe(2_000);
  });

  it('ends at Ctrl-C also after the server answered something, and a closed output keeps its why', async () => {
    const run = new AbortController();
    const { opts } = options({ answered: true, signal: run.signal, clock: new FakeClock() });
    const waiting = firstAnswer(never, opts).catch((x: unknown) => x as Error);
    setTimeout(() => run.abort(new InterruptedError(undefined, 'stdout was closed (the program reading it exited)')), 10);
    expect((await waiting).message).toBe('interrupted while connecting to https://10.0.0.1:6443 (context prod): stdout was closed (the program reading it exited)');
  });

  it('leaves a --timeout that ran out as it is', async () => {
    const clock = new FakeClock();
    const run = new AbortController();
    const timeout = new RunTimeoutError('--timeout 5s ran out while waiting on Preflight', '');
    clock.at(5_000, () => run.abort(timeout));
    const { opts } = options({ clock, signal: run.signal });
    await expect(firstAnswer(never, opts)).rejects.toBe(timeout);
  });
});
