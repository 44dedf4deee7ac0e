// Measuring one benchmarked process: GNU time's `-v` report (wall, CPU with children, the largest process's RSS) and
// the summed RSS of its whole process group, sampled, since every tool here fans out to child processes.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';

export interface TimeV {
  wallS: number;
  maxRssKiB: number;
  cpuS: number;
  exitCode: number;
}

export function parseTimeV(text: string): TimeV {
  const field = (label: string) => new RegExp(`^\\s*${label.replace(/[()]/g, '\\$&')}:\\s*(.+)$`, 'm').exec(text)?.[1]?.trim() ?? '';
  const wall = field('Elapsed (wall clock) time (h:mm:ss or m:ss)').split(':').map(Number);
  const wallS = wall.reduce((acc, v) => acc * 60 + v, 0);
  return {
    wallS,
    maxRssKiB: Number(field('Maximum resident set size (kbytes)')),
    cpuS: Number(field('User time (seconds)')) + Number(field('System time (seconds)')),
    exitCode: Number(field('Exit status') || 0),
  };
}

/** Sum of RSS (KiB) over every process whose process group is pgid. */
export function groupRssKiB(pgid: number, pageKiB: number): number {
  let total = 0;
  for (const ent of readdirSync('/proc')) {
    if (!/^\d+$/.test(ent)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${ent}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after "(comm)": state ppid pgrp ... rss is field 24 overall, i.e. index 21 after the comm.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(rest[2]) === pgid) total += Number(rest[21]) * pageKiB;
  }
  return total;
}

export interface Timed extends TimeV {
  /** Peak of the process group's summed RSS, at least time's own maximum. */
  treeRssKiB: number;
  /** 1-minute load average when the process started. */
  load1: number;
}

/**
 * Runs cmd under `/usr/bin/time -v` in its own process group, stdout and stderr to the given files, sampling the
 * group's RSS every sampleMs.
 */
export async function timeCommand(cmd: string[], o: { cwd: string; env: NodeJS.ProcessEnv; stdout: string; stderr: string; timeFile: string; sampleMs?: number }): Promise<Timed> {
  const outFd = openSync(o.stdout, 'w');
  const errFd = openSync(o.stderr, 'w');
  const load1 = os.loadavg()[0] ?? 0;
  let treeRssKiB = 0;
  const child = spawn('/usr/bin/time', ['-v', '-o', o.timeFile, ...cmd], { cwd: o.cwd, env: o.env, stdio: ['ignore', outFd, errFd], detached: true });
  const pgid = child.pid ?? -1;
  const timer = setInterval(() => {
    treeRssKiB = Math.max(treeRssKiB, groupRssKiB(pgid, 4));
  }, o.sampleMs ?? 100);
  try {
    await new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', () => resolve());
    });
  } finally {
    clearInterval(timer);
    closeSync(outFd);
    closeSync(errFd);
  }
  const t = parseTimeV(readFileSync(o.timeFile, 'utf8'));
  return { ...t, treeRssKiB: Math.max(treeRssKiB, t.maxRssKiB), load1 };
}
