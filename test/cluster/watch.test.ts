import { afterEach, describe, expect, it } from 'vitest';
import type { K8sObject } from '../../src/cluster/client.js';
import { createClusterClient } from '../../src/cluster/node-client.js';
import { listWatch, type ListWatchTransport } from '../../src/cluster/watch.js';
import { FakeApiServer } from './fake-apiserver.js';

const ks = (name: string, rv: string, ready = 'Unknown'): K8sObject => ({
  apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
  kind: 'Kustomization',
  metadata: { name, namespace: 'flux-system', resourceVersion: rv },
  status: { conditions: [{ type: 'Ready', status: ready }] },
});

type Step =
  | { list: K8sObject[]; rv: string }
  | { listError: unknown }
  | { events: [string, unknown][]; then: 'close' | { error: unknown } | 'hang' };

/** A scripted transport: each LIST or WATCH call consumes the next step and records what it was asked. */
function scripted(steps: Step[]) {
  const calls: string[] = [];
  const t: ListWatchTransport<K8sObject> = {
    async list() {
      const s = steps.shift();
      calls.push('list');
      if (!s || 'events' in s) throw new Error(`unexpected list (next step: ${JSON.stringify(s)})`);
      if ('listError' in s) throw s.listError;
      return { items: s.list, resourceVersion: s.rv };
    },
    async watch(rv, timeoutSeconds, onEvent, signal) {
      const s = steps.shift();
      calls.push(`watch rv=${rv} timeout=${timeoutSeconds}`);
      if (!s || !('events' in s)) {
        // out of script: behave like a quiet, open watch until the test stops
        await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
        return;
      }
      for (const [type, obj] of s.events) onEvent(type, obj);
      if (s.then === 'close') return;
      if (s.then === 'hang') return new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
      throw s.then.error;
    },
  };
  return { t, calls };
}

/**
 * Runs the loop until a snapshot satisfies `until` (or `n` snapshots arrived), then stops it; returns each snapshot
 * as `name:Ready` strings. Snapshots published faster than they are read coalesce, so tests wait on content.
 */
async function take(t: ListWatchTransport<K8sObject>, until: number | ((s: string[]) => boolean), o: Parameters<typeof listWatch<K8sObject>>[2] = {}) {
  const ac = new AbortController();
  const seen: string[][] = [];
  for await (const snap of listWatch(t, ac.signal, { delay: async () => {}, ...o })) {
    const s = [...snap.values()].map((k) => `${k.metadata.name}:${(k.status as any).conditions[0].status}`);
    seen.push(s);
    if (typeof until === 'number' ? seen.length === until : until(s)) ac.abort();
  }
  return seen;
}

const econnrefused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });

describe('listWatch (scripted transport)', () => {
  it('lists, then applies watch events to the snapshot', async () => {
    const { t, calls } = scripted([
      { list: [ks('infra', '10')], rv: '10' },
      { events: [['MODIFIED', ks('infra', '11', 'True')], ['ADDED', ks('apps', '12')]], then: 'hang' },
    ]);
    const seen = await take(t, (s) => s.length === 2);
    expect(seen.at(-1)).toEqual(['infra:True', 'apps:Unknown']);
    expect(calls).toEqual(['list', 'watch rv=10 timeout=300']);
  });

  it('relists on a 410 Gone ERROR event instead of resuming from the expired resourceVersion', async () => {
    const { t, calls } = scripted([
      { list: [ks('infra', '10')], rv: '10' },
      { events: [['ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 10 (2000)' }]], then: 'close' },
      { list: [ks('infra', '2001', 'True')], rv: '2001' },
      { events: [], then: 'hang' },
    ]);
    const seen = await take(t, (s) => s[0] === 'infra:True');
    expect(seen).toEqual([['infra:Unknown'], ['infra:True']]);
    expect(calls).toEqual(['list', 'watch rv=10 timeout=300', 'list', 'watch rv=2001 timeout=300']);
  });

  it('relists on a watch request rejected with HTTP 410', async () => {
    const { t, calls } = scripted([
      { list: [], rv: '5' },
      { events: [], then: { error: Object.assign(new Error('Gone'), { statusCode: 410 }) } },
      { list: [ks('apps', '9')], rv: '9' },
    ]);
    await take(t, 2);
    expect(calls.slice(0, 3)).toEqual(['list', 'watch rv=5 timeout=300', 'list']);
  });

  it('resumes from the last seen resourceVersion when the server ends the watch (timeoutSeconds)', async () => {
    const { t, calls } = scripted([
      { list: [ks('infra', '10')], rv: '10' },
      { events: [['MODIFIED', ks('infra', '15')], ['BOOKMARK', { metadata: { resourceVersion: '20' } }]], then: 'close' },
      { events: [['MODIFIED', ks('infra', '21', 'True')]], then: 'hang' },
    ]);
    const seen = await take(t, (s) => s[0] === 'infra:True', { timeoutSeconds: 60 });
    expect(seen.at(-1)).toEqual(['infra:True']);
    expect(calls).toEqual(['list', 'watch rv=10 timeout=60', 'watch rv=20 timeout=60']);
  });

  it('reconnects with exponential backoff while the API server is down, then resets it', async () => {
    const delays: number[] = [];
    const { t, calls } = scripted([
      { list: [ks('infra', '10')], rv: '10' },
      { events: [], then: { error: econnrefused } },
      { events: [], then: { error: econnrefused } },
      { events: [], then: { error: econnrefused } },
      { events: [['MODIFIED', ks('infra', '11', 'True')]], then: { error: econnrefused } },
      { events: [['MODIFIED', ks('infra', '12', 'False')]], then: 'hang' },
    ]);
    const seen = await take(t, (s) => s[0] === 'infra:False', { onRetry: (r) => delays.push(r.delayMs) });
    expect(delays).toEqual([1000, 2000, 4000, 1000]);
    expect(seen.at(-1)).toEqual(['infra:False']);
    expect(calls.filter((c) => c === 'list')).toHaveLength(1); // resumed from rv, no relist needed
  });

  it('retries a LIST that fails (a kind whose CRD is not installed yet), capped at maxMs', async () => {
    const delays: number[] = [];
    const noKind = Object.assign(new Error('no matches for kind'), { status: 404 });
    const { t } = scripted([{ listError: noKind }, { listError: noKind }, { listError: noKind }, { list: [ks('a', '1')], rv: '1' }]);
    await take(t, 1, { onRetry: (r) => delays.push(r.delayMs), backoff: { initialMs: 100, maxMs: 250, factor: 2 } });
    expect(delays).toEqual([100, 200, 250]);
  });

  it('ends with the error on 403, which retrying cannot fix', async () => {
    const { t } = scripted([{ listError: Object.assign(new Error('forbidden'), { statusCode: 403 }) }]);
    await expect(take(t, 1)).rejects.toThrow('forbidden');
  });

  it('abandons a silent watch after timeoutSeconds + idleGraceMs and resumes', async () => {
    const { t, calls } = scripted([{ list: [ks('a', '1')], rv: '1' }, { events: [], then: 'hang' }, { events: [['MODIFIED', ks('a', '2', 'True')]], then: 'hang' }]);
    const seen = await take(t, (s) => s[0] === 'a:True', { timeoutSeconds: 0, idleGraceMs: 50 });
    expect(seen.at(-1)).toEqual(['a:True']);
    expect(calls.slice(0, 3)).toEqual(['list', 'watch rv=1 timeout=0', 'watch rv=1 timeout=0']);
  });
});

describe('observe over HTTP (node-client + fake apiserver)', () => {
  let api: FakeApiServer | undefined;
  afterEach(async () => {
    await api?.stop();
  });

  it('follows a Kustomization through 410, a server-ended watch and an API server restart', async () => {
    api = await new FakeApiServer().start();
    api.addCrd('kustomize.toolkit.fluxcd.io', 'v1', 'Kustomization', 'kustomizations');
    api.put(ks('infra', '0'));
    const retries: string[] = [];
    const client = createClusterClient(api.kubeconfig(), {
      delay: (ms, s) => new Promise((r) => setTimeout(r, 20)), // real but short: the server needs to come back
      onRetry: (r) => retries.push((r.error as Error).message),
    });
    const ac = new AbortController();
    const it = client.observe({ apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization' }, ac.signal, { timeoutSeconds: 1 })[Symbol.asyncIterator]();
    const next = async () => (await it.next()).value as Map<string, K8sObject>;
    const readyOf = (m: Map<string, K8sObject>) => ((m.get('flux-system/infra')?.status as any)?.conditions[0].status as string);
    expect(readyOf(await next())).toBe('Unknown');

    // 1. a watch event
    await waitFor(() => api!.watches.length === 1);
    api.put(ks('infra', '0', 'False'), 'MODIFIED');
    expect(readyOf(await next())).toBe('False');

    // 2. the server says 410 Gone: the client relists
    const lists = () => api!.log.filter((l) => l.method === 'GET' && l.url.startsWith('/apis/kustomize.toolkit.fluxcd.io/v1/kustomizations') && !l.url.includes('watch=true')).length;
    expect(lists()).toBe(1);
    api.watches[0]!.res.end(JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } }) + '\n');
    await next(); // the relist's snapshot
    expect(lists()).toBe(2);

    // 3. the server ends the watch after timeoutSeconds=1: the client resumes from its resourceVersion
    await waitFor(() => api!.log.filter((l) => l.url.includes('watch=true')).length >= 3, 5000);
    const resumed = api.log.filter((l) => l.url.includes('watch=true')).at(-1)!.url;
    expect(resumed).toContain(`resourceVersion=${api.rv}`);
    expect(resumed).toContain('timeoutSeconds=1');

    // 4. the API server goes away (ECONNREFUSED) and comes back on the same port
    const port = api.port;
    const objects = api.objects;
    await api.stop();
    await waitFor(() => retries.some((m) => m.includes('ECONNREFUSED')), 5000);
    api = await new FakeApiServer().start(port);
    api.addCrd('kustomize.toolkit.fluxcd.io', 'v1', 'Kustomization', 'kustomizations');
    api.objects = objects;
    api.rv = 1000;
    await waitFor(() => api!.watches.length === 1, 5000);
    api.put(ks('infra', '0', 'True'), 'MODIFIED');
    let snap = await next();
    while (readyOf(snap) !== 'True') snap = await next();
    expect(readyOf(snap)).toBe('True');
    expect(client.stats().watches).toBeGreaterThanOrEqual(4);
    ac.abort();
    await it.return?.();
  }, 20_000);
});

async function waitFor(cond: () => boolean, ms = 2000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
