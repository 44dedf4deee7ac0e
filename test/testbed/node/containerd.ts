// The node's own containerd (Debian's 1.6): its socket, root and state under the testbed's dir, so it never talks to,
// or is confused with, a system containerd. Settings from ../../shared/REALNODE.md (all measured on this machine).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { TestbedStartError } from '../errors.js';
import type { ManagedProcess } from '../process.js';
import { pollUntil } from '../wait.js';
import type { NodeNamespace } from './namespace.js';

const execFileP = promisify(execFile);

export interface ContainerdPaths {
  socket: string;
  root: string;
  state: string;
  config: string;
  cniConfDir: string;
}

export const containerdPaths = (dir: string): ContainerdPaths => ({
  socket: path.join(dir, 'containerd', 'containerd.sock'),
  root: path.join(dir, 'containerd', 'root'),
  state: path.join(dir, 'containerd', 'state'),
  config: path.join(dir, 'containerd', 'config.toml'),
  cniConfDir: path.join(dir, 'cni', 'net.d'),
});

export const CNI_BIN_DIR = '/usr/lib/cni';

function configToml(p: ContainerdPaths, sandboxImage: string): string {
  const s = JSON.stringify;
  return `version = 2
root = ${s(p.root)}
state = ${s(p.state)}
# Plugins that would write outside root/state (opt creates /opt/containerd) or that a node here never needs.
disabled_plugins = ["io.containerd.internal.v1.opt", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.tracing.processor.v1.otlp"]

[grpc]
  address = ${s(p.socket)}
[ttrpc]
  address = ${s(`${p.socket}.ttrpc`)}
[debug]
  address = ""
[metrics]
  address = ""

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = ${s(sandboxImage)}
  # root here lacks CAP_SYS_RESOURCE: runc cannot set oom_score_adj=-998, and every sandbox would fail.
  restrict_oom_score_adj = true
  # Pod network namespaces as bind mounts under state, not /var/run/netns.
  netns_mounts_under_state_dir = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = ${s(CNI_BIN_DIR)}
    conf_dir = ${s(p.cniConfDir)}
    max_conf_num = 1
`;
}

/**
 * The pods' network: a bridge (created by the plugin in the node's namespace) with host-local IPAM, no masquerade,
 * and routes only for the pod, service and link ranges: no default route, so nothing in a pod reaches past the node.
 */
export function cniConflist(o: { name: string; podCidr: string; podGateway: string; routes: string[]; ipamDir: string }): string {
  return JSON.stringify(
    {
      cniVersion: '0.4.0',
      name: o.name,
      plugins: [
        {
          type: 'bridge',
          bridge: 'cni0',
          isGateway: true,
          ipMasq: false,
          // A pod reaching a Service that picks the pod itself.
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            ranges: [[{ subnet: o.podCidr, gateway: o.podGateway }]],
            routes: o.routes.map((dst) => ({ dst })),
            dataDir: o.ipamDir,
          },
        },
      ],
    },
    null,
    2,
  );
}

export async function startContainerd(
  ns: NodeNamespace,
  o: { dir: string; logFile: string; sandboxImage: string; cni: Parameters<typeof cniConflist>[0] },
  timeoutMs = 30_000,
): Promise<{ proc: ManagedProcess; paths: ContainerdPaths }> {
  const p = containerdPaths(o.dir);
  for (const d of [p.root, p.state, p.cniConfDir]) mkdirSync(d, { recursive: true });
  writeFileSync(p.config, configToml(p, o.sandboxImage));
  writeFileSync(path.join(p.cniConfDir, '10-standup.conflist'), cniConflist(o.cni));
  const proc = ns.spawn('containerd', 'containerd', ['--config', p.config, '--log-level', 'warn'], { logFile: o.logFile });
  try {
    await pollUntil(
      'containerd socket',
      async () => {
        if (!existsSync(p.socket)) return undefined;
        await ctr(p.socket, ['version']);
        return true;
      },
      { timeoutMs, intervalMs: 100, abort: () => (proc.exit ? `exited with ${JSON.stringify(proc.exit)}` : undefined) },
    );
  } catch (e) {
    await proc.stop(1000);
    throw new TestbedStartError('containerd', (e as Error).message, o.logFile);
  }
  return { proc, paths: p };
}

/** `ctr` against this containerd, in the CRI's namespace (k8s.io). ctr runs on the host: the socket is a file here. */
export async function ctr(socket: string, args: string[]): Promise<string> {
  const { stdout } = await execFileP('ctr', ['--address', socket, '--namespace', 'k8s.io', ...args], { maxBuffer: 16 << 20 });
  return stdout;
}

/** Imports OCI archives (see oci.ts) and unpacks them for the overlayfs snapshotter, so the first pod starts at once. */
export async function importImages(socket: string, archives: string[]): Promise<void> {
  // One at a time: containerd serializes content writes anyway, and parallel imports only add memory.
  for (const a of archives) await ctr(socket, ['images', 'import', '--snapshotter', 'overlayfs', a]);
}
