// What a node changes outside its own directory and namespaces, and how it is put back: cgroups (one subtree per
// testbed, in every hierarchy) and the kernel tunables kubelet sets at start-up. The clean-up is one shell script,
// written at start, that both stop() and the reaper (after a SIGKILLed host) run, so both paths do the same thing.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SLOT_GLOB, slotFile } from './network.js';

/** kubelet's setupKernelTunables (pkg/kubelet/cm/container_manager_linux.go): it writes these when they differ. */
export const KERNEL_TUNABLES = ['vm.overcommit_memory', 'vm.panic_on_oom', 'kernel.panic', 'kernel.panic_on_oops', 'kernel.keys.root_maxkeys', 'kernel.keys.root_maxbytes'];
/** The values from before the first node testbed started; restored when the last one stops. */
export const SYSCTL_FILE = path.join(tmpdir(), 'standup-node-sysctl.txt');

const sysctlPath = (k: string) => path.join('/proc/sys', ...k.split('.'));

export function readTunables(): Record<string, string> {
  return Object.fromEntries(KERNEL_TUNABLES.filter((k) => existsSync(sysctlPath(k))).map((k) => [k, readFileSync(sysctlPath(k), 'utf8').trim()]));
}

/**
 * Records the machine's own values, unless a file is there already: it is deleted only after a restore, so an
 * existing file always holds the values from before any node testbed (a running one, or one that died).
 */
export function saveTunables(): void {
  if (existsSync(SYSCTL_FILE)) return;
  const text = Object.entries(readTunables()).map(([k, v]) => `${k} ${v}\n`).join('');
  try {
    writeFileSync(SYSCTL_FILE, text, { flag: 'wx' });
  } catch {
    // another node testbed saved them a moment ago
  }
}

/** Mount points of cgroup hierarchies: every v1 controller (and named) hierarchy, and the v2 one. */
export function cgroupHierarchies(): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => {
      const [pre, post] = l.split(' - ');
      const fstype = post?.split(' ')[0];
      return fstype === 'cgroup' || fstype === 'cgroup2' ? pre?.split(' ')[4] : undefined;
    })
    .filter((m): m is string => !!m);
}

/** Where node processes are tracked: the v1 pids hierarchy if there is one, else the v2 one. */
export function trackingHierarchy(hierarchies = cgroupHierarchies()): string {
  const v1pids = hierarchies.find((h) => path.basename(h) === 'pids');
  if (v1pids) return v1pids;
  const v2 = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').find((l) => l.split(' - ')[1]?.startsWith('cgroup2 '));
  const mp = v2?.split(' ')[4];
  if (!mp) throw new Error('no cgroup hierarchy found (neither a v1 pids controller nor cgroup2)');
  return mp;
}

/**
 * Creates `<hierarchy>/<name>` (kubelet's cgroupRoot: it insists it exists in every controller) and
 * `<name>/node` for the node's own processes. A new v1 cpuset group has no CPUs until given its parent's.
 */
export function createCgroups(name: string): { hierarchies: string[]; tracking: string } {
  const hierarchies = cgroupHierarchies();
  for (const h of hierarchies) {
    for (const rel of [name, `${name}/node`]) {
      const d = path.join(h, rel);
      mkdirSync(d, { recursive: true });
      if (path.basename(h) === 'cpuset') {
        const parent = path.dirname(d);
        for (const f of ['cpuset.cpus', 'cpuset.mems']) writeFileSync(path.join(d, f), readFileSync(path.join(parent, f)));
      }
    }
  }
  return { hierarchies, tracking: path.join(trackingHierarchy(hierarchies), name, 'node') };
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The clean-up script: kill every process in the testbed's cgroup subtree (node components, shims, containers),
 * remove the subtree from every hierarchy, free the slot, and, if no other node testbed is alive, restore the
 * kernel tunables. Idempotent.
 */
export function cleanupScript(o: { cgroup: string; hierarchies: string[]; tracking: string; slot: number }): string {
  const tracked = path.join(path.dirname(o.tracking));
  return `#!/bin/sh
# Written by the testbed's node (test/testbed/node/host-state.ts); run by stop() and by the reaper.
tracked=${q(tracked)}
i=0
while [ -d "$tracked" ] && [ $i -lt 100 ]; do
  procs=$(find "$tracked" -name cgroup.procs -exec cat {} + 2>/dev/null)
  [ -z "$procs" ] && break
  kill -KILL $procs 2>/dev/null
  i=$((i+1)); sleep 0.1
done
i=0
while [ $i -lt 50 ]; do
  left=0
  for h in ${o.hierarchies.map((h) => q(path.join(h, o.cgroup))).join(' ')}; do
    [ -d "$h" ] || continue
    find "$h" -depth -type d -exec rmdir {} + 2>/dev/null
    [ -d "$h" ] && left=1
  done
  [ $left = 0 ] && break
  i=$((i+1)); sleep 0.1
done
rm -f ${q(slotFile(o.slot))}
others=0
for f in ${SLOT_GLOB.replace(/ /g, '\\ ')}; do
  [ -f "$f" ] || continue
  p=$(sed -n 's/.*"pid":\\([0-9]*\\).*/\\1/p' "$f")
  [ -n "$p" ] && kill -0 "$p" 2>/dev/null && others=1
done
if [ $others = 0 ] && [ -f ${q(SYSCTL_FILE)} ]; then
  while read -r k v; do
    [ -n "$k" ] && echo "$v" > "/proc/sys/$(echo "$k" | tr . /)"
  done < ${q(SYSCTL_FILE)}
  rm -f ${q(SYSCTL_FILE)}
fi
exit 0
`;
}

export function runCleanup(script: string): void {
  if (existsSync(script)) execFileSync('sh', [script], { stdio: 'ignore', timeout: 30_000 });
}
