// kubelet v1.36 against Debian's containerd 1.6 on this kind of host (cgroup v1, no CAP_SYS_RESOURCE): the settings
// that were needed are in ../../shared/REALNODE.md. Everything it writes is under the testbed's dir or inside the
// node's mount namespace; its cgroups are under the testbed's own cgroupRoot.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CoreV1Api, type KubeConfig, type V1Node } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { TestbedStartError } from '../errors.js';
import type { ManagedProcess } from '../process.js';
import { pollUntil } from '../wait.js';
import type { NodeNamespace } from './namespace.js';

export const NODE_NAME = 'standup-node';

export interface KubeletOptions {
  bin: string;
  dir: string;
  logFile: string;
  kubeconfig: string;
  containerdSocket: string;
  cgroupRoot: string;
  nodeIp: string;
  dnsServiceIp: string;
}

function kubeletConfig(o: KubeletOptions, resolvConf: string) {
  return {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    // A cgroup v1 host: kubelet 1.36 refuses it unless told otherwise (then it only logs a deprecation).
    failCgroupV1: false,
    // containerd 1.6 answers RuntimeConfig with Unimplemented, so kubelet cannot ask it for the driver.
    cgroupDriver: 'cgroupfs',
    cgroupRoot: o.cgroupRoot,
    containerRuntimeEndpoint: `unix://${o.containerdSocket}`,
    // In the node's own network namespace: these ports collide with nothing.
    address: o.nodeIp,
    port: 10250,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: 10248,
    authentication: { anonymous: { enabled: true }, webhook: { enabled: false }, x509: {} },
    authorization: { mode: 'AlwaysAllow' },
    failSwapOn: false,
    // A small shared disk: never evict or garbage-collect images for space.
    evictionHard: { 'memory.available': '1Mi', 'nodefs.available': '1%', 'nodefs.inodesFree': '1%', 'imagefs.available': '1%' },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    clusterDomain: 'cluster.local',
    clusterDNS: [o.dnsServiceIp],
    // No upstream resolvers: nothing in a pod resolves names outside the cluster.
    resolvConf,
    serializeImagePulls: false,
    nodeStatusUpdateFrequency: '2s',
    // The default 110 is fewer than the HelmReleases of the benchmark's largest graph (134); the node's /24 pod
    // range bounds it anyway.
    maxPods: 250,
  };
}

export function startKubelet(ns: NodeNamespace, o: KubeletOptions): ManagedProcess {
  const root = path.join(o.dir, 'kubelet');
  mkdirSync(path.join(root, 'pki'), { recursive: true });
  mkdirSync(path.join(root, 'volume-plugins'), { recursive: true });
  const resolvConf = path.join(o.dir, 'resolv.conf');
  writeFileSync(resolvConf, '# standup testbed: no upstream DNS\n');
  const config = path.join(o.dir, 'kubelet-config.yaml');
  writeFileSync(config, stringify(kubeletConfig(o, resolvConf)));
  return ns.spawn(
    'kubelet',
    o.bin,
    [
      `--config=${config}`,
      `--kubeconfig=${o.kubeconfig}`,
      `--root-dir=${root}`,
      `--cert-dir=${path.join(root, 'pki')}`,
      // Default /usr/libexec/kubernetes/...: kubelet would create it on the host.
      `--volume-plugin-dir=${path.join(root, 'volume-plugins')}`,
      `--hostname-override=${NODE_NAME}`,
      `--node-ip=${o.nodeIp}`,
      '--v=1',
    ],
    { logFile: o.logFile },
  );
}

const nodeReady = (n: V1Node) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

export async function waitNodeReady(kc: KubeConfig, proc: ManagedProcess, timeoutMs = 60_000): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  try {
    await pollUntil(
      `node ${NODE_NAME} Ready`,
      async () => {
        const n = await core.readNode({ name: NODE_NAME });
        if (nodeReady(n)) return true;
        throw new Error(n.status?.conditions?.filter((c) => c.status !== 'False' || c.type === 'Ready').map((c) => `${c.type}=${c.status} ${c.message ?? ''}`).join('; '));
      },
      { timeoutMs, intervalMs: 200, abort: () => (proc.exit ? `kubelet exited with ${JSON.stringify(proc.exit)}` : undefined) },
    );
  } catch (e) {
    throw new TestbedStartError('kubelet', (e as Error).message, proc.logFile);
  }
}
