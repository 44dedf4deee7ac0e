// The node's own network and mount namespaces. A holder process (`unshare --net --mount`) owns them; every node
// component is started inside them with nsenter. So the node's bridge, iptables chains, conntrack table, routes and
// net sysctls (ip_forward, route_localnet) exist only there, and kubelet's and containerd's mounts (volumes, overlay
// snapshots, the root-dir bind mount, pod network namespaces) live in a mount namespace nobody else sees. /run,
// /var/lib and /var/log are private there too, so nothing lands in the host's (pod logs, CNI caches, runc state).
// When the last process inside exits, the kernel drops all of it, the veth pair included.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { TestbedStartError } from '../errors.js';
import { spawnManaged, type ManagedProcess } from '../process.js';
import { pollUntil } from '../wait.js';
import type { NodeNetwork } from './network.js';

export interface NodeNamespace {
  holder: ManagedProcess;
  /** Starts `bin args` inside the node's namespaces, its pid in the tracking cgroup. */
  spawn(name: string, bin: string, args: string[], o: { logFile: string; env?: NodeJS.ProcessEnv }): ManagedProcess;
  /** Runs a command inside the node's namespaces and returns stdout. */
  exec(cmd: string, args: string[]): string;
}

const run = (cmd: string, args: string[]) => {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')}: ${(err.stderr || err.message).trim()}`);
  }
};

/** `sh -c` that joins the tracking cgroup, then becomes the command (same pid all the way). */
const inCgroup = (cgroupProcs: string, argv: string[]) => ['-c', `echo $$ > "$0" && exec "$@"`, cgroupProcs, ...argv];

export async function startNamespace(o: { dir: string; logsDir: string; tracking: string; net: NodeNetwork }): Promise<NodeNamespace> {
  const varlog = path.join(o.dir, 'varlog');
  mkdirSync(varlog, { recursive: true });
  const ready = path.join(o.dir, 'namespace-ready');
  const procs = path.join(o.tracking, 'cgroup.procs');
  // Private mounts first, then signal readiness through a file on the shared /tmp, then hold the namespaces.
  const setup = [
    'set -e',
    'mount -t tmpfs -o mode=755 standup-run /run',
    'mount -t tmpfs -o mode=755 standup-varlib /var/lib',
    `mount --bind ${JSON.stringify(varlog)} /var/log`,
    'ip link set lo up',
    `touch ${JSON.stringify(ready)}`,
    'exec sleep infinity',
  ].join('\n');
  const holder = spawnManaged('node-namespace', 'sh', inCgroup(procs, ['unshare', '--net', '--mount', '--propagation', 'private', 'sh', '-c', setup]), {
    logFile: path.join(o.logsDir, 'node-namespace.log'),
  });
  try {
    await pollUntil('node namespaces', async () => (existsSync(ready) ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 50,
      abort: () => (holder.exit ? `exited with ${JSON.stringify(holder.exit)}` : undefined),
    });
    const n = o.net;
    const netns = `/proc/${holder.pid}/ns/net`;
    run('ip', ['link', 'add', n.hostIf, 'type', 'veth', 'peer', 'name', 'uplink', 'netns', netns]);
    run('ip', ['addr', 'add', `${n.hostIp}/30`, 'dev', n.hostIf]);
    run('ip', ['link', 'set', n.hostIf, 'up']);
    const inNs = (args: string[]) => run('nsenter', ['-t', String(holder.pid), '-n', '-m', ...args]);
    inNs(['ip', 'addr', 'add', `${n.nodeIp}/30`, 'dev', 'uplink']);
    inNs(['ip', 'link', 'set', 'uplink', 'up']);
    // Forwarding between the pods' bridge and the link, inside the namespace only (the host's stays as it is).
    inNs(['sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    // The host reaches pods and Services through the link; these routes go away with the veth.
    run('ip', ['route', 'add', n.podCidr, 'via', n.nodeIp, 'dev', n.hostIf]);
    run('ip', ['route', 'add', n.serviceCidr, 'via', n.nodeIp, 'dev', n.hostIf]);
  } catch (e) {
    await holder.stop(1000);
    throw new TestbedStartError('node namespace', (e as Error).message, holder.logFile);
  }
  const nsenter = (argv: string[]) => ['nsenter', '-t', String(holder.pid), '-n', '-m', '--', ...argv];
  return {
    holder,
    spawn: (name, bin, args, so) => spawnManaged(name, 'sh', inCgroup(procs, nsenter([bin, ...args])), so),
    exec: (cmd, args) => run('nsenter', ['-t', String(holder.pid), '-n', '-m', '--', cmd, ...args]),
  };
}
