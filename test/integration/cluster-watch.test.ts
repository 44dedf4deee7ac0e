// observe() across a real kube-apiserver restart: the list-watch reconnects with backoff (ECONNREFUSED while the
// server is down) and delivers a change made after it came back; and a watch the server ends (timeoutSeconds) resumes.
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
  await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: NS }).catch(() => undefined);
});

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
});
