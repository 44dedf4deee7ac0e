// kube-proxy (inside the node's network namespace, so its iptables chains are the node's alone) and kube-scheduler
// (an API client on the host, loopback only).
import { TestbedStartError } from '../errors.js';
import { apiGetStatus } from '../apiserver.js';
import { spawnManaged, type ManagedProcess } from '../process.js';
import { pollUntil } from '../wait.js';
import { NODE_NAME } from './kubelet.js';
import type { NodeNamespace } from './namespace.js';

export function startKubeProxy(ns: NodeNamespace, o: { bin: string; kubeconfig: string; podCidr: string; logFile: string }): ManagedProcess {
  return ns.spawn(
    'kube-proxy',
    o.bin,
    [
      `--kubeconfig=${o.kubeconfig}`,
      '--proxy-mode=iptables',
      `--cluster-cidr=${o.podCidr}`,
      `--hostname-override=${NODE_NAME}`,
      // 0: leave the host-wide conntrack limits (nf_conntrack_max is not per namespace) alone.
      '--conntrack-max-per-core=0',
      '--conntrack-tcp-timeout-established=0',
      '--conntrack-tcp-timeout-close-wait=0',
      // Without it kube-proxy sets route_localnet=1 for NodePorts on 127.0.0.1.
      '--nodeport-addresses=primary',
      '--v=1',
    ],
    { logFile: o.logFile },
  );
}

export async function startScheduler(o: { bin: string; kubeconfig: string; port: number; logFile: string }, timeoutMs = 30_000): Promise<ManagedProcess> {
  const proc = spawnManaged('kube-scheduler', o.bin, [
    `--kubeconfig=${o.kubeconfig}`,
    `--authentication-kubeconfig=${o.kubeconfig}`,
    `--authorization-kubeconfig=${o.kubeconfig}`,
    '--leader-elect=false',
    '--bind-address=127.0.0.1',
    `--secure-port=${o.port}`,
    '--v=1',
  ], { logFile: o.logFile });
  try {
    await pollUntil(
      'kube-scheduler /healthz',
      async () => ((await apiGetStatus(`https://127.0.0.1:${o.port}/healthz`)).status === 200 ? true : undefined),
      { timeoutMs, abort: () => (proc.exit ? `exited with ${JSON.stringify(proc.exit)}` : undefined) },
    );
  } catch (e) {
    await proc.stop(1000);
    throw new TestbedStartError('kube-scheduler', (e as Error).message, o.logFile);
  }
  return proc;
}
