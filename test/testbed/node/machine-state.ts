// A snapshot of what a node testbed could leave behind on the host, for "stop() leaves the machine as found" tests:
// compare one taken before start() with one taken after stop().
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cgroupHierarchies, readTunables } from './host-state.js';

const sh = (cmd: string, args: string[]) => {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '';
  }
};

/** Paths kubelet, containerd or the CNI plugins write by default (the node keeps them private or elsewhere). */
export const DEFAULT_PATHS = ['/var/log/pods', '/var/log/containers', '/var/lib/cni', '/var/lib/kubelet', '/var/lib/containerd', '/run/containerd', '/opt/containerd', '/opt/cni', '/etc/cni', '/usr/libexec/kubernetes', '/var/run/netns'];

export interface MachineState {
  /** Processes whose command line names the testbed's dir (none once it stopped). */
  processes: string[];
  mounts: string[];
  links: string[];
  routes: string[];
  /** iptables-save of the host's tables, counters dropped. */
  iptables: string[];
  sysctls: Record<string, string>;
  paths: Record<string, boolean>;
  /** Top-level cgroups named standup-* in every hierarchy. */
  cgroups: string[];
}

export function machineState(testbedDir?: string): MachineState {
  const processes: string[] = [];
  if (testbedDir) {
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
        if (cmd.includes(testbedDir)) processes.push(`${pid} ${cmd.slice(0, 200)}`);
      } catch {
        // exited meanwhile
      }
    }
  }
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ').slice(3, 5).join(' ') + ' ' + (l.split(' - ')[1] ?? ''))
    .sort();
  const links = sh('ip', ['-o', 'link', 'show']).split('\n').filter(Boolean).map((l) => l.split(':')[1]?.trim() ?? l).sort();
  const routes = sh('ip', ['-4', 'route', 'show', 'table', 'all']).split('\n').filter(Boolean).sort();
  const iptables = sh('iptables-save', [])
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.replace(/\[\d+:\d+\]/g, ''));
  const sysctls = { ...readTunables() };
  for (const k of ['net/ipv4/ip_forward', 'net/ipv4/conf/all/route_localnet', 'net/netfilter/nf_conntrack_max']) {
    if (existsSync(`/proc/sys/${k}`)) sysctls[k] = readFileSync(`/proc/sys/${k}`, 'utf8').trim();
  }
  const paths = Object.fromEntries(DEFAULT_PATHS.map((p) => [p, existsSync(p)]));
  const cgroups = cgroupHierarchies()
    .flatMap((h) => (existsSync(h) ? readdirSync(h).filter((d) => d.startsWith('standup-')).map((d) => `${h}/${d}`) : []))
    .sort();
  return { processes, mounts, links, routes, iptables, sysctls, paths, cgroups };
}

/**
 * The snapshot without what other node testbeds own: links and routes on another slot's veth (`stbh<k>`), and
 * `standup-*` cgroups other than `own.cgroup`. Other testbeds (another shard of the integration run, another
 * engineer's) start and stop while a test compares two snapshots, and their own resources come and go with them;
 * what the testbed under test made, and everything that is no testbed's, is still compared.
 */
export function withoutOtherTestbeds(s: MachineState, own: { slot: number; cgroup: string }): MachineState {
  const otherVeth = (l: string) => {
    const m = /\bstbh(\d+)\b/.exec(l);
    return !!m && Number(m[1]) !== own.slot;
  };
  return {
    ...s,
    links: s.links.filter((l) => !otherVeth(l)),
    routes: s.routes.filter((l) => !otherVeth(l)),
    cgroups: s.cgroups.filter((c) => path.basename(c) === own.cgroup),
  };
}
