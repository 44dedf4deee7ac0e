import { start } from '../test/testbed/harness.js';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { execFileSync } from 'node:child_process';
const tb = await start({ log: (l) => console.error('[tb]', l) });
try {
  const kc = tb.kubeConfig();
  const apps = kc.makeApiClient(AppsV1Api), core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'demo' } } });
  const t = Date.now();
  await apps.createNamespacedDeployment({ namespace: 'demo', body: { metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'standup.invalid/testbed-app:v1', imagePullPolicy: 'Never', env: [{ name: 'READY_AFTER', value: '1' }, { name: 'MESSAGE', value: 'hello' }], readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 1 } }] } } } } });
  await core.createNamespacedService({ namespace: 'demo', body: { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } } });
  for (;;) {
    const d = await apps.readNamespacedDeployment({ namespace: 'demo', name: 'web' });
    if (d.status?.availableReplicas === 2) break;
    if (Date.now() - t > 60000) { console.error(JSON.stringify(d.status)); const pods = await core.listNamespacedPod({ namespace: 'demo' }); console.error(JSON.stringify(pods.items.map(p => p.status), null, 1)); throw new Error('timeout'); }
    await new Promise((r) => setTimeout(r, 200));
  }
  console.error('available in', Date.now() - t);
  const svc = await core.readNamespacedService({ namespace: 'demo', name: 'web' });
  const ip = svc.spec!.clusterIP;
  for (let i = 0; i < 20; i++) { try { const r = await fetch(`http://${ip}/`); console.error('svc', ip, r.status, (await r.text()).trim(), Date.now() - t); break; } catch (e) { await new Promise((r) => setTimeout(r, 300)); } }
  console.error(execFileSync('nsenter', ['-t', String(tb.node!.namespacePid), '-n', 'iptables-save'], { encoding: 'utf8' }).split('\n').filter(l => l.startsWith(':')).slice(0, 40).join('\n'));
  if (process.env.HOLD) await new Promise((r) => setTimeout(r, Number(process.env.HOLD)));
} finally {
  await tb.stop();
}
