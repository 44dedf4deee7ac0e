// `npm run test:integration`: the integration files in STANDUP_INTEGRATION_SHARDS concurrent vitest processes, each
// with its own testbed (its own global setup: ports, node slot, state dir). Most of a file's time is waiting on Flux
// timers and on the timeouts the tests prove, not CPU (one testbed in sequence kept ~0.8 of 2 cores busy on average),
// so two shards nearly halve the wall time. Default: 2 on a machine with 2 or more cores, else 1 (defaultShards).
//
// Files go to shards by expected duration (greedy: longest first, each to the shard with the least so far), from
// test/integration/durations.json (seconds per file, from a CI run; a file missing there counts as DEFAULT_SECONDS).
// Every output line is prefixed with its shard ("[s1] "); at the end one line per shard and the slowest files.
// With STANDUP_TEST_REPORT_DIR each shard writes its own JSON report (integration-s<n>.json), which
// scripts/test-summary.mjs adds up with the others. Exit code: 0 only if every shard passed.
// Ctrl-C (SIGINT), SIGTERM or SIGHUP is passed to every shard's process group (vitest and its workers) once per
// signal; the harness's signal handlers and reapers stop their testbeds, and the runner exits when every shard has.
//
// Arguments are passed to every shard's vitest (e.g. `-- --sequence.shuffle.files`). Positional filters narrow the
// file list before it is split: `npm run test:integration -- runner testbed-` runs only the files whose path contains
// one of them. STANDUP_INTEGRATION_SHARDS=1 runs one vitest with one testbed, as before.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_SECONDS = 60;

export function listFiles() {
  const dir = path.join(root, 'test/integration');
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `test/integration/${f.split(path.sep).join('/')}`)
    .sort();
}

export function readDurations() {
  try {
    return JSON.parse(readFileSync(path.join(root, 'test/integration/durations.json'), 'utf8')).seconds ?? {};
  } catch {
    return {};
  }
}

/**
 * Shards when STANDUP_INTEGRATION_SHARDS is unset: 2 with at least 2 cores (CI's machine), else 1. Not more: each
 * shard's testbed and its files' own testbeds want about 0.8 of a core while they run, and the longest file
 * (runner-failures, ~460 s) bounds the wall time anyway; 3 shards on 2 cores were never measured.
 */
export function defaultShards(cores = availableParallelism()) {
  return cores >= 2 ? 2 : 1;
}

/** Longest expected file first, each to the shard with the least expected time so far (ties: the lower shard). */
export function assign(files, n, durations) {
  const weight = (f) => durations[f] ?? durations[path.basename(f)] ?? DEFAULT_SECONDS;
  const shards = Array.from({ length: n }, () => ({ files: [], seconds: 0 }));
  for (const f of [...files].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b))) {
    const s = shards.reduce((best, x) => (x.seconds < best.seconds ? x : best));
    s.files.push(f);
    s.seconds += weight(f);
  }
  return shards.filter((s) => s.files.length > 0);
}

async function main() {
  const args = process.argv.slice(2);
  const filters = args.filter((a) => !a.startsWith('-'));
  const options = args.filter((a) => a.startsWith('-'));
  const raw = process.env.STANDUP_INTEGRATION_SHARDS || String(defaultShards());
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`STANDUP_INTEGRATION_SHARDS must be a whole number >= 1, not ${JSON.stringify(raw)}\n`);
    process.exitCode = 2;
    return;
  }
  const files = listFiles().filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
  if (files.length === 0) {
    process.stderr.write(`no integration file matches ${filters.join(' ')}\n`);
    process.exitCode = 1;
    return;
  }
  const shards = assign(files, n, readDurations());
  const vitest = path.join(root, 'node_modules/vitest/vitest.mjs');
  const t0 = Date.now();
  for (const [i, s] of shards.entries()) {
    process.stdout.write(`[s${i + 1}] ${s.files.length} files, expected ~${Math.round(s.seconds)} s: ${s.files.map((f) => path.basename(f, '.test.ts')).join(' ')}\n`);
  }
  const children = shards.map((s, i) => {
    const tag = `[s${i + 1}] `;
    // Its own process group, so a terminal's Ctrl-C reaches the shards once, through this runner, not twice.
    const child = spawn(process.execPath, [vitest, 'run', '-c', 'vitest.integration.config.ts', ...options], {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        STANDUP_INTEGRATION_SHARD: shards.length > 1 ? String(i + 1) : '',
        STANDUP_INTEGRATION_FILES: JSON.stringify(s.files),
      },
    });
    const tail = [];
    for (const [stream, out] of [[child.stdout, process.stdout], [child.stderr, process.stderr]]) {
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
        out.write(tag + line + '\n');
        if (stream === child.stdout) tail.push(line);
      });
    }
    const done = new Promise((resolve) => {
      child.on('close', (code, signal) => resolve({ code, signal, seconds: (Date.now() - t0) / 1000, tail }));
    });
    return { child, done };
  });
  let interrupted;
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      interrupted ??= sig;
      process.stderr.write(`[shards] ${sig}: passing it to ${children.length} shard(s), waiting for their testbeds to stop\n`);
      for (const { child } of children) {
        if (child.exitCode === null && child.signalCode === null) {
          try {
            // The whole group: vitest and its test workers (a worker may own testbeds of its own, which its
            // signal handlers or its reaper then stop).
            process.kill(-child.pid, sig);
          } catch {
            // exited meanwhile
          }
        }
      }
    });
  }
  const results = await Promise.all(children.map((c) => c.done));
  // eslint-disable-next-line no-control-regex
  const summary = (tail) => tail.map((l) => l.replace(/\x1b\[[0-9;]*m/g, '')).filter((l) => /^\s*(Test Files|Tests|Duration)\s/.test(l)).map((l) => l.trim().replace(/\s+/g, ' ')).join('; ');
  process.stdout.write('\n');
  for (const [i, r] of results.entries()) {
    const status = r.code === 0 ? 'passed' : r.signal ? `killed by ${r.signal}` : `FAILED (exit ${r.code})`;
    process.stdout.write(`[s${i + 1}] ${status} after ${Math.round(r.seconds)} s: ${summary(r.tail) || 'no summary'}\n`);
  }
  process.stdout.write(`[shards] integration wall time ${Math.round((Date.now() - t0) / 1000)} s with ${shards.length} shard(s)\n`);
  const failed = results.some((r) => r.code !== 0);
  // Set, not exit(): the summary above drains first (the signal handlers hold nothing open).
  process.exitCode = interrupted ? 130 : failed ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
