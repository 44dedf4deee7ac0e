// What the loads of one command share and leave behind: their temp work directories, their parse memos and their
// statistics. The CLI makes one per command and closes it when the command ends (cli/main.ts runCli): close()
// saves each memo again with what the command parsed after its load (objects are parsed lazily, and check's rules
// read most of them after the load has returned), so that the next run finds them.
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ParseMemo } from '../cache/parse-memo.js';

/** What one load did, for `--verbose` and for tests and benchmarks. */
export interface LoadStats {
  /** kustomize processes started. */
  spawned: number;
  /** Builds requested (each path + overlay once). */
  builds: number;
  ms: number;
  /** Builds read from the render cache, and builds looked up there and not found. */
  cacheHits: number;
  cacheMisses: number;
  /** Builds the render cache cannot key (a remote base, an unknown field: cache/build-input-hashes.ts). */
  uncached: number;
}

export const noLoadStats = (): LoadStats => ({ spawned: 0, builds: 0, ms: 0, cacheHits: 0, cacheMisses: 0, uncached: 0 });

export class LoadSession {
  /** The statistics of this session's latest load. */
  stats: LoadStats = noLoadStats();
  private readonly memos = new Set<ParseMemo>();

  /** @param env STANDUP_DEBUG_KEEP (keep the work directories), STANDUP_CACHE_MAX_MB (the render cache's bound) */
  constructor(readonly env: NodeJS.ProcessEnv = process.env) {}

  /**
   * A fresh work directory for one load's overlays and batches: hundreds of tiny files, kept in RAM (/dev/shm) where
   * there is one. STANDUP_DEBUG_KEEP=1 keeps it after the load.
   */
  makeWorkDir(): string {
    return mkdtempSync(path.join(workBase(), 'standup-render-'));
  }

  /** Removes a load's work directory without holding up the command, unless STANDUP_DEBUG_KEEP is set. */
  removeWorkDir(dir: string): void {
    if (this.env.STANDUP_DEBUG_KEEP) return;
    removeLater(dir);
  }

  /** The parse memo kept at `file` (null: in memory, for this load only); close() saves it again. */
  openMemo(file: string | null): ParseMemo {
    const memo = new ParseMemo(file);
    if (file) this.memos.add(memo);
    return memo;
  }

  /** Ends the session: saves each memo with what was parsed since the load saved it. */
  close(): void {
    for (const m of this.memos) m.save();
    this.memos.clear();
  }
}

/** /dev/shm when it is a writable directory, else the system's temp directory. */
function workBase(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    if (statSync('/dev/shm').isDirectory()) return '/dev/shm';
  } catch {
    /* fall through */
  }
  return os.tmpdir();
}

/**
 * Removing hundreds of overlay dirs takes a noticeable time on a busy disk; a detached `rm -rf` does it without
 * holding up the command. Falls back to removing in process where there is no `rm`.
 */
function removeLater(dir: string): void {
  try {
    const child = spawn('rm', ['-rf', dir], { detached: true, stdio: 'ignore' });
    child.on('error', () => rmSync(dir, { recursive: true, force: true }));
    child.unref();
  } catch {
    rmSync(dir, { recursive: true, force: true });
  }
}
