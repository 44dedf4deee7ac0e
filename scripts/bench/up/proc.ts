// CPU time of one testbed's processes, from /proc: every process whose command line or environment names the
// testbed's state directory (each component gets its kubeconfig, data or log paths there), so a second testbed on
// the machine (another engineer's) is never counted.
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

let ticks: number | undefined;
const clockTicks = () => (ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100);

/** user+system CPU of one process in ms, or null when it is gone. */
export function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: fields start after the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / clockTicks();
  } catch {
    return null;
  }
}

/** The testbed's processes by component name (the binary's name): pid list each. */
export function testbedProcesses(dir: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const pid = Number(e);
    let cmdline: string;
    let environ = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      try {
        environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      } catch {
        // another user's process
      }
    } catch {
      continue;
    }
    if (!cmdline.includes(dir) && !environ.includes(dir)) continue;
    const argv0 = cmdline.split('\0')[0] ?? '';
    const name = path.basename(argv0);
    if (!name || name === 'sh' || name === 'bash') continue;
    out.set(name, [...(out.get(name) ?? []), pid]);
  }
  return out;
}

/** CPU ms per component, summed over its processes. */
export function cpuSnapshot(procs: Map<string, number[]>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, pids] of procs) out.set(name, pids.reduce((n, p) => n + (processCpuMs(p) ?? 0), 0));
  return out;
}
