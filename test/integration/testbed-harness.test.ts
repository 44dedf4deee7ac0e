// The testbed itself: admin kubeconfig, kube-controller-manager doing its job
// (namespace deletion, garbage collection), the control route that restarts
// kube-apiserver, and Flux surviving that restart.
import { readFileSync } from 'node:fs';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { describe, expect, inject, it } from 'vitest';
import { connect } from '../testbed/harness.js';
import { exists } from '../testbed/kube.js';
import { pollUntil } from '../testbed/wait.js';

const info = inject('testbed');
const tb = connect(info);
const kc = tb.kubeConfig();
const core = kc.makeApiClient(CoreV1Api);

const gone = (read: () => Promise<unknown>) => async () => ((await exists(read)) ? undefined : true);

describe('testbed: control plane', () => {
  it('writes an admin kubeconfig with context standup-testbed', () => {
    const cfg = parse(readFileSync(tb.kubeconfigPath, 'utf8')) as {
      'current-context': string;
      clusters: { cluster: { server: string } }[];
      users: { user: { token: string } }[];
    };
    expect(cfg['current-context']).toBe('standup-testbed');
    expect(tb.contextName).toBe('standup-testbed');
    expect(cfg.clusters[0]?.cluster.server).toBe(tb.server);
    // Loopback without a node; with one, the host end of the node's link, which pods reach too.
    expect(tb.server).toBe(`https://${tb.node ? tb.node.hostIp : '127.0.0.1'}:${tb.ports.apiServer}`);
    expect(cfg.users[0]?.user.token).toBe(tb.token);
    expect(kc.getCurrentContext()).toBe('standup-testbed');
  });

  it('deletes namespaces and garbage-collects dependents (kube-controller-manager)', async () => {
    await core.createNamespace({ body: { metadata: { name: 'tb-kcm' } } });
    const owner = await core.createNamespacedConfigMap({ namespace: 'tb-kcm', body: { metadata: { name: 'owner' } } });
    const dependent: V1ConfigMap = {
      metadata: {
        name: 'dependent',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata?.uid ?? '' }],
      },
    };
    await core.createNamespacedConfigMap({ namespace: 'tb-kcm', body: dependent });
    await core.deleteNamespacedConfigMap({ name: 'owner', namespace: 'tb-kcm' });
    await pollUntil('dependent ConfigMap garbage-collected', gone(() => core.readNamespacedConfigMap({ name: 'dependent', namespace: 'tb-kcm' })), { timeoutMs: 60_000 });

    await core.deleteNamespace({ name: 'tb-kcm' });
    await pollUntil('namespace tb-kcm deleted', gone(() => core.readNamespace({ name: 'tb-kcm' })), { timeoutMs: 60_000 });
  });

  it('restartApiServer() brings kube-apiserver back on the same port with the same data; Flux stays healthy', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'survives-restart' }, data: { a: '1' } } });
    const t0 = Date.now();
    await tb.restartApiServer();
    const restartMs = Date.now() - t0;
    process.stderr.write(`[testbed] kube-apiserver restart took ${restartMs} ms\n`);
    const cm = await core.readNamespacedConfigMap({ name: 'survives-restart', namespace: 'default' });
    expect(cm.data).toEqual({ a: '1' });
    for (const port of [tb.ports.sourceHealth, tb.ports.kustomizeHealth]) {
      await pollUntil(`flux controller on ${port} healthy`, async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok ? true : undefined), { timeoutMs: 30_000 });
    }
  });
});
