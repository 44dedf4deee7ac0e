// observe() across a real kube-apiserver restart: the list-watch reconnects with backoff (ECONNREFUSED while the
// server is down) and delivers a change made after it came back; a watch the server ends (timeoutSeconds) resumes;
// and a watch the server answers 410 Gone (its resourceVersion compacted away in etcd) relists.
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { K8sObject } from '../../src/cluster/client.js';
import { loadKubeconfig } from '../../src/cluster/kubeconfig.js';
import { createClusterClient } from '../../src/cluster/node-client.js';
import { connect } from '../testbed/harness.js';

const info = inject('testbed');
const tb = connect(info);
const NS = 'it-cluster-watch';
const retries: string[] = [];
const client = createClusterClient(loadKubeconfig({ kubeconfig: info.kubeconfigPath }), {
  backoff: { initialMs: 200, maxMs: 2000, factor: 2 },
  onRetry: (r) => retries.push((r.error as Error).message),
});
const cm = (name: string): K8sObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { a: '1' } });
const opts = { fieldManager: 'standup', force: true } as const;

afterAll(async () => {
  await client.delete({ apiVersion: 'v1', kind: 'Namespace', namespace: null, name: NS }).catch(() => undefined);
  await client.delete({ apiVersion: 'v1', kind: 'Namespace', namespace: null, name: NS_GONE }).catch(() => undefined);
});

const NS_GONE = 'it-cluster-watch-gone';

/** etcd's JSON gateway: the current revision, and a compaction up to it (what kube-apiserver does every 5 min). */
async function compactEtcd(): Promise<number> {
  const etcd = `http://127.0.0.1:${info.ports.etcdClient}`;
  const post = async (p: string, body: unknown) => {
    const r = await fetch(`${etcd}${p}`, { method: 'POST', body: JSON.stringify(body) });
    if (!r.ok) throw new Error(`etcd ${p}: ${r.status} ${await r.text()}`);
    return (await r.json()) as { header: { revision: string } };
  };
  const rev = Number((await post('/v3/kv/range', { key: Buffer.from('/').toString('base64') })).header.revision);
  await post('/v3/kv/compaction', { revision: String(rev), physical: true });
  return rev;
}

describe('observe: a list-watch that survives the API server', () => {
  it('resumes after the server ends the watch, and reconnects after a kube-apiserver restart', async () => {
    await client.apply([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, cm('first')], opts);
    const ac = new AbortController();
    const seen: string[] = [];
    let restarted = false;
    const run = (async () => {
      for await (const snap of client.observe({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS }, ac.signal, { timeoutSeconds: 2 })) {
        seen.push([...snap.keys()].sort().join(','));
        if (snap.has(`${NS}/after-restart`)) ac.abort();
      }
    })();
    const until = async (cond: () => boolean, ms: number) => {
      const end = Date.now() + ms;
      while (!cond()) {
        if (Date.now() > end) throw new Error(`timed out; seen ${JSON.stringify(seen)}, retries ${JSON.stringify(retries)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await until(() => seen.length > 0, 10_000);
    await new Promise((r) => setTimeout(r, 3000)); // past timeoutSeconds=2: the watch was ended and resumed
    await client.apply([cm('after-timeout')], opts);
    await until(() => seen.some((s) => s.includes('after-timeout')), 10_000);
    const watchesBefore = client.stats().watches;
    expect(watchesBefore).toBeGreaterThanOrEqual(2);

    await tb.restartApiServer();
    restarted = true;
    await client.apply([cm('after-restart')], opts);
    await run;
    expect(restarted).toBe(true);
    // (kube-controller-manager also publishes kube-root-ca.crt into the namespace)
    expect(seen.at(-1)?.split(',')).toEqual(expect.arrayContaining([`${NS}/after-restart`, `${NS}/after-timeout`, `${NS}/first`]));
    expect(client.stats().watches).toBeGreaterThan(watchesBefore);
    process.stderr.write(`[cluster-watch] ${client.stats().watches} watches, ${retries.length} reconnect retries: ${[...new Set(retries.map((m) => m.replace(/^.*reason: /, '')))].join(' | ')}\n`);
  });

  it('relists when the server answers 410 Gone after etcd compacted its resourceVersion away', async () => {
    await client.apply([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS_GONE } }, { ...cm('before'), metadata: { name: 'before', namespace: NS_GONE } }], opts);
    const ac = new AbortController();
    const seen: string[][] = [];
    const relistsBefore = client.stats().relists;
    const run = (async () => {
      for await (const snap of client.observe({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS_GONE }, ac.signal)) {
        seen.push([...snap.keys()].sort());
        if (snap.has(`${NS_GONE}/after-compaction`)) ac.abort();
      }
    })();
    const end = Date.now() + 10_000;
    while (seen.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    expect(seen.length).toBeGreaterThan(0);
    // Writes elsewhere move etcd's revision past the watch's resourceVersion; the compaction then drops it, and a
    // restart makes the watch reconnect from it: the server must answer 410, and the loop must relist.
    await client.apply([cm('elsewhere-1'), cm('elsewhere-2')], opts);
    await compactEtcd();
    await tb.restartApiServer();
    await client.apply([{ ...cm('after-compaction'), metadata: { name: 'after-compaction', namespace: NS_GONE } }], opts);
    await Promise.race([run, new Promise((_, rej) => setTimeout(() => rej(new Error(`no snapshot with after-compaction; seen ${JSON.stringify(seen)}`)), 30_000))]);
    expect(client.stats().relists).toBeGreaterThan(relistsBefore);
    expect(seen.at(-1)).toEqual(expect.arrayContaining([`${NS_GONE}/after-compaction`, `${NS_GONE}/before`]));
  });
});
