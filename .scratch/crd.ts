import { start } from '../test/testbed/harness.js';
import { standup } from '../test/integration/cli.js';
import { deleteCrd } from '../test/testbed/operator.js';
import { ApiextensionsV1Api } from '@kubernetes/client-node';
const tb = await start({ node: process.env.NODE !== '0' });
try {
  const r = await standup(['crds', '--cluster', 'dev', '--kubeconfig', tb.kubeconfigPath]);
  console.error('crds', r.code);
  await deleteCrd(tb.kubeConfig(), 'storageprofiles.cdi.kubevirt.io');
  for (let i = 0; i < 10; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    try { const c = await tb.kubeConfig().makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition({ name: 'storageprofiles.cdi.kubevirt.io' }); console.error(i, c.metadata?.deletionTimestamp, JSON.stringify(c.status?.conditions?.map(x => [x.type, x.status, x.message]))); } catch (e) { console.error(i, 'gone'); break; }
  }
} finally { await tb.stop(); }
