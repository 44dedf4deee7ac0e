// One real node for a testbed: containerd, kubelet and kube-proxy in the node's own namespaces, pods on a CNI
// bridge there. Started in two halves, because the API server must listen on the link address that only exists once
// the namespace is up: prepareNode() (slot, cgroups, namespaces, containerd and images: no API needed) and
// joinNode() (kubelet and kube-proxy, once the API server runs).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { TestbedError } from '../errors.js';
import { repoRoot } from '../paths.js';
import type { ManagedProcess } from '../process.js';
import { importImages, startContainerd } from './containerd.js';
import { cgroupHierarchies, cleanupScript, createCgroups, runCleanup, saveTunables, trackingHierarchy } from './host-state.js';
import { baseImages, imageArchives, PAUSE_IMAGE } from './images.js';
import { NODE_NAME, startKubelet, waitNodeReady } from './kubelet.js';
import { startNamespace, type NodeNamespace } from './namespace.js';
import { allocateSlot, releaseSlot, type NodeNetwork } from './network.js';
import type { ImageSpec } from './oci.js';
import { startKubeProxy } from './proxy-scheduler.js';

export { NODE_NAME } from './kubelet.js';
export type { NodeNetwork } from './network.js';

/** Plain data about the node, for tests (part of TestbedInfo). */
export interface NodeInfo extends NodeNetwork {
  name: string;
  /** The testbed's own cgroup subtree (kubelet's cgroupRoot). */
  cgroup: string;
  containerdSocket: string;
  /** Holder of the node's network and mount namespaces: `nsenter -t <pid> -n -m` runs a command on the node. */
  namespacePid: number;
  /** kubelet's pod logs (the node's /var/log, a directory of the testbed). */
  podLogs: string;
  images: string[];
}

export interface Node {
  /** Complete once start() and join() resolved; the network part is there from the beginning. */
  info: NodeInfo;
  ns: NodeNamespace;
  procs: ManagedProcess[];
  /** Where the reaper finds the clean-up (also run by stop). */
  cleanup: string;
  /** containerd and the images: needs no API server, so it runs while the control plane starts. */
  startRuntime(): Promise<void>;
  /** kubelet and kube-proxy, each with its own kubeconfig; resolves once the node is Ready. */
  join(o: { kubeconfig: string; proxyKubeconfig: string; kc: KubeConfig; bins: Record<string, string> }): Promise<void>;
  stop(): Promise<void>;
}

export function requireRoot(): void {
  if (process.getuid?.() !== 0) {
    throw new TestbedError('a testbed with a node needs root (network and mount namespaces, cgroups, containerd). Run as root, or start it with node: false (STANDUP_TESTBED_NODE=0).');
  }
}

/**
 * The node's host packages (containerd, runc, CNI plugins, iptables, conntrack) from Debian when missing, through the
 * project's own script, so `npm test` and `npm run demo` work on a fresh machine. Costs one `command -v` each when
 * they are there.
 */
export function ensureNodePackages(): void {
  const script = path.join(repoRoot, 'scripts/testbed-deps.sh');
  try {
    execFileSync('bash', [script, '--check'], { stdio: 'ignore' });
  } catch {
    try {
      execFileSync('bash', [script], { stdio: ['ignore', 'ignore', 'inherit'] });
    } catch (e) {
      throw new TestbedError(`the node's host packages are missing and could not be installed (${(e as Error).message.split('\n')[0]}); see scripts/testbed-deps.sh, or start the testbed with node: false (STANDUP_TESTBED_NODE=0)`);
    }
  }
}

export async function prepareNode(o: {
  dir: string;
  logs: string;
  bins: Record<string, string>;
  binDir: string;
  extraImages?: ImageSpec[];
  track: (p: ManagedProcess) => void;
  log?: (l: string) => void;
}): Promise<Node> {
  requireRoot();
  ensureNodePackages();
  const dir = path.join(o.dir, 'node');
  mkdirSync(dir, { recursive: true });
  const cgroupName = `standup-${path.basename(o.dir)}`;
  const cleanup = path.join(dir, 'cleanup.sh');
  const procs: ManagedProcess[] = [];
  const track = (p: ManagedProcess) => {
    procs.push(p);
    o.track(p);
    return p;
  };
  const net = allocateSlot(o.dir);
  let cg: ReturnType<typeof createCgroups>;
  try {
    const hierarchies = cgroupHierarchies();
    // Written before anything is changed, so every later failure (and the reaper) can undo what was done.
    writeFileSync(cleanup, cleanupScript({ cgroup: cgroupName, hierarchies, tracking: path.join(trackingHierarchy(hierarchies), cgroupName, 'node'), slot: net.slot }), { mode: 0o755 });
    saveTunables();
    cg = createCgroups(cgroupName);
  } catch (e) {
    if (existsSync(cleanup)) runCleanup(cleanup);
    else releaseSlot(net.slot);
    throw e;
  }

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // kubelet first, so it does not restart what the clean-up kills; then everything in the cgroup at once.
    const byName = (n: string) => procs.find((p) => p.name === n);
    await Promise.all(['kubelet', 'kube-proxy'].map((n) => byName(n)?.stop(3000)));
    runCleanup(cleanup);
    await Promise.all(procs.map((p) => p.stop(1000)));
  };

  let ns: NodeNamespace;
  try {
    ns = await startNamespace({ dir, logsDir: o.logs, tracking: cg.tracking, net });
    track(ns.holder);
  } catch (e) {
    await stop();
    throw e;
  }
  const specs = [...baseImages(o.binDir), ...(o.extraImages ?? [])];
  const info: NodeInfo = {
    ...net,
    name: NODE_NAME,
    cgroup: cgroupName,
    containerdSocket: '',
    namespacePid: ns.holder.pid,
    podLogs: path.join(dir, 'varlog', 'pods'),
    images: specs.map((s) => s.ref),
  };
  return {
    info,
    ns,
    procs,
    cleanup,
    async startRuntime() {
      const t0 = Date.now();
      const { proc, paths } = await startContainerd(ns, {
        dir,
        logFile: path.join(o.logs, 'containerd.log'),
        sandboxImage: PAUSE_IMAGE,
        cni: { name: cgroupName, podCidr: net.podCidr, podGateway: net.podGateway, routes: [net.serviceCidr, net.linkCidr], ipamDir: path.join(dir, 'cni', 'ipam') },
      });
      track(proc);
      info.containerdSocket = paths.socket;
      o.log?.(`node: containerd in ${Date.now() - t0} ms`);
      const t1 = Date.now();
      await importImages(paths.socket, await imageArchives(o.binDir, specs));
      o.log?.(`node: ${specs.length} images imported in ${Date.now() - t1} ms`);
    },
    async join(j) {
      if (!info.containerdSocket) throw new TestbedError('node: join() before startRuntime()');
      const kubelet = track(
        startKubelet(ns, {
          bin: j.bins.kubelet!,
          dir,
          logFile: path.join(o.logs, 'kubelet.log'),
          kubeconfig: j.kubeconfig,
          containerdSocket: info.containerdSocket,
          cgroupRoot: `/${cgroupName}`,
          nodeIp: net.nodeIp,
          dnsServiceIp: net.dnsServiceIp,
        }),
      );
      track(startKubeProxy(ns, { bin: j.bins['kube-proxy']!, kubeconfig: j.proxyKubeconfig, podCidr: net.podCidr, logFile: path.join(o.logs, 'kube-proxy.log') }));
      await waitNodeReady(j.kc, kubelet);
    },
    stop,
  };
}
