import { describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/cluster/client.js';
import { ReachabilityTracker } from '../../src/cluster/reachability.js';
import type { RunEvent } from '../../src/runner/events.js';
import { OutageLog } from '../../src/runner/outages.js';

const at = (hms: string) => new Date(`2026-12-02T${hms}`).getTime();
const hms = (ms: number) => new Date(ms).toTimeString().slice(0, 8);

function setup(start: string) {
  let now = at(start);
  const reach = new ReachabilityTracker(() => now);
  const logs: string[] = [];
  const client = { onReachability: (fn: Parameters<ClusterClient['onReachability']>[0]) => reach.subscribe(fn) } as unknown as ClusterClient;
  const log = new OutageLog(client, (e: RunEvent) => e.type === 'log' && logs.push(e.message), () => now);
  log.start();
  return { reach, logs, log, set: (t: string) => (now = at(t)) };
}

describe('outages, told from the last answer', () => {
  it('a freeze: "since" is the last answer, not the first failed request 10 s later; the length counts from it too; each fact once', () => {
    const { reach, logs, log, set } = setup('10:00:00');
    set('10:00:05');
    reach.ok();
    set('10:00:15');
    reach.failed('request timed out');
    set('10:00:20');
    reach.failed('ECONNREFUSED'); // the same outage, said once
    reach.failed('ECONNREFUSED');
    expect(log.phrase()).toBe(`the API server has been unreachable since ${hms(at('10:00:05'))} (its last answer; request timed out)`);
    set('10:00:37');
    reach.ok();
    reach.ok();
    expect(logs).toEqual([
      `cluster unreachable since ${hms(at('10:00:05'))} (its last answer; request timed out), retrying`,
      `cluster reachable again at ${hms(at('10:00:37'))} (unreachable for 32s)`,
    ]);
    expect(log.phrase(at('10:00:00'))).toBe('the API server was unreachable for 32s meanwhile');
  });

  it('a server that never answered: no "retrying" beside the error that ends the run, no "reachable again"', () => {
    const { reach, logs, set } = setup('10:00:00');
    set('10:00:00.150');
    reach.failed('ECONNREFUSED');
    reach.ok();
    expect(logs).toEqual([]);
  });
});
