import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

/**
 * A detached shell that outlives a host killed with SIGKILL (where no Node
 * handler runs): once `hostPid` is gone it kills the process groups listed in
 * `pidFile`, runs `cleanupScript` if it exists, and removes `stateDir`. Returns its pid so a clean stop can end it.
 */
export function startReaper(hostPid: number, pidFile: string, stateDir: string, cleanupScript = ''): number {
  writeFileSync(pidFile, '');
  // The clean-up script (a node's: its cgroups, slot, kernel tunables) runs after the kill, before the dir goes.
  const script = `
    while kill -0 ${hostPid} 2>/dev/null; do sleep 1; done
    # dash: no "--" for kill; "-PID" names the process group.
    for p in $(cat "$1" 2>/dev/null); do kill -KILL "-$p" 2>/dev/null; done
    [ -n "$3" ] && [ -f "$3" ] && sh "$3"
    rm -rf "$2"
  `;
  const child = spawn('sh', ['-c', script, 'reaper', pidFile, stateDir, cleanupScript], { detached: true, stdio: 'ignore' });
  child.unref();
  return child.pid ?? -1;
}

export function writeReaperPids(pidFile: string, pids: number[]): void {
  writeFileSync(pidFile, pids.join('\n') + '\n');
}
