// One benchmark run: a fresh testbed, the generated repository pushed to it, one driver (Flux alone or `standup up`)
// started at t0, and everything measured until every Kustomization and HelmRelease is Ready. Then the testbed goes.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { publishCharts } from '../../../test/testbed/charts.js';
import { openRequests } from '../../../test/testbed/audit.js';
import { start, type Testbed } from '../../../test/testbed/harness.js';
import { apiTraffic, type ApiTraffic } from './api-traffic.js';
import { benchChart } from './chart.js';
import { BENCH_CLUSTER, generateRepository, MAIN_REPO, writeFiles } from './generate.js';
import { graphKeys, keyOf, releaseCount, rootKey, type GraphSpec } from './graph-spec.js';
import { kcDependencyRetries } from './kc-log.js';
import { physicalLimit, type Limit } from './limit.js';
import { parseLogLines, workersStarted, type LogLine } from './log-lines.js';
import { measureRun, type Measured } from './measure.js';
import { cpuSnapshot, testbedProcesses } from './proc.js';
import { WATCH_USER_AGENT, watchReady } from './watch.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface Variant {
  id: string;
  driver: 'flux' | 'standup';
  /** kustomize- and helm-controller --requeue-dependency. */
  requeue: string;
  /** --concurrent of the Flux controllers; undefined: their default (4 for kustomize- and helm-controller). */
  concurrent?: number;
}

/** `flux-30s-c4`, `flux-5s-c10`, `standup` (Flux at its defaults), `standup-5s-c10`. */
export function parseVariant(id: string): Variant | null {
  if (id === 'standup') return { id, driver: 'standup', requeue: '30s' };
  const m = /^(flux|standup)-(\d+(?:ms|s|m))-c(\d+)$/.exec(id);
  if (!m) return null;
  const concurrent = Number(m[3]);
  return { id, driver: m[1] as Variant['driver'], requeue: m[2]!, ...(concurrent === 4 ? {} : { concurrent }) };
}

export interface StandupEvent {
  /** ms since t0, when the line arrived here. */
  t: number;
  e: Record<string, unknown>;
}

export interface RunResult {
  graph: string;
  variant: string;
  run: number;
  startedAt: string;
  loadBefore: number[];
  loadAfter: number[];
  testbedStartMs: number;
  revision: string;
  ok: boolean;
  error?: string;
  /** ms since t0 until every Kustomization and HelmRelease was seen Ready. */
  allReadyMs: number | null;
  /** ms since t0 until every Kustomization was. */
  kustomizationsReadyMs: number | null;
  /** ms since t0, per Kustomization / HelmRelease key. */
  readyAt: Record<string, number>;
  helmReadyAt: Record<string, number>;
  /** The physical limit (limit.ts) from this run's logs, and how long bootstrap took before the source could be fetched. */
  limit: { ms: number; kustomizationsMs: number; path: string[] } | null;
  limitMissing: string[];
  measured: Omit<Measured, 'input'> | null;
  kcDependencyRetries: Record<string, number>;
  /** CPU ms per testbed component during the run (t0 to all Ready). */
  cpuMs: Record<string, number>;
  standup?: {
    exitCode: number | null;
    exitMs: number;
    runEnd?: Record<string, unknown>;
    steps: Record<string, { start?: number; end?: number; durationMs?: number; result?: string }>;
    events: StandupEvent[];
    stderr: string;
    /** GNU time: largest resident set (KiB) and CPU (s) of standup, kustomize children included. */
    maxRssKiB: number | null;
    cpuUserS: number | null;
    cpuSysS: number | null;
    /** Audit log: t0 to exit, and first tier start to last tier end. */
    api: ApiTraffic | null;
    apiWaiting: ApiTraffic | null;
    /** After the run, untimed by the table: wall ms of `standup plan` on the same repository. */
    planMs: number;
  };
}

export interface RunOptions {
  seed: number;
  delaySeconds: [number, number];
  timeoutMs: number;
  /** Copy the testbed's logs here (one directory per run) before it is removed. */
  keepLogs?: string;
  log: (s: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const loadavg = () => os.loadavg().map((x) => Math.round(x * 100) / 100);

/** The controllers answer /readyz before their workers run; a run starts only when they do. */
async function waitForWorkers(tb: Testbed, withHelm: boolean): Promise<void> {
  const want: [string, string[]][] = [
    ['source-controller.log', ['GitRepository', ...(withHelm ? ['HelmRepository', 'HelmChart'] : [])]],
    ['kustomize-controller.log', ['Kustomization']],
    ...(withHelm ? [['helm-controller.log', ['HelmRelease']] as [string, string[]]] : []),
  ];
  const deadline = Date.now() + 60_000;
  for (;;) {
    const pending = want.filter(([f, kinds]) => !existsSync(path.join(tb.logs, f)) || !workersStarted(readFileSync(path.join(tb.logs, f), 'utf8'), kinds));
    if (pending.length === 0) return;
    if (Date.now() > deadline) throw new Error(`controllers not working after 60 s: ${pending.map(([f]) => f).join(', ')}`);
    await sleep(200);
  }
}

const readLog = (tb: Testbed, file: string): LogLine[] => (existsSync(path.join(tb.logs, file)) ? parseLogLines(readFileSync(path.join(tb.logs, file), 'utf8')) : []);

export async function runOnce(g: GraphSpec, v: Variant, run: number, o: RunOptions): Promise<RunResult> {
  const loadBefore = loadavg();
  const startedAt = new Date().toISOString();
  const withHelm = releaseCount(g) > 0;
  const ts = Date.now();
  const tb = await start({ requeueDependency: v.requeue, concurrent: v.concurrent, node: withHelm, handleSignals: true });
  const testbedStartMs = Date.now() - ts;
  const work = mkdtempSync(path.join(os.tmpdir(), 'standup-bench-up-'));
  const base: Pick<RunResult, 'graph' | 'variant' | 'run' | 'startedAt' | 'loadBefore' | 'testbedStartMs'> = { graph: g.name, variant: v.id, run, startedAt, loadBefore, testbedStartMs };
  let watcher: Awaited<ReturnType<typeof watchReady>> | undefined;
  try {
    await waitForWorkers(tb, withHelm);
    const chartUrl = withHelm ? publishCharts({ testbedDir: tb.dir, baseUrl: tb.gitBaseUrl, repo: 'bench', charts: [benchChart()] }) : 'http://127.0.0.1:1/unused';
    const gen = generateRepository(g, { gitUrl: (r) => tb.git.url(r), chartUrl, seed: o.seed, delaySeconds: o.delaySeconds, context: tb.contextName });
    const repoDir = path.join(work, 'repo');
    writeFiles(repoDir, gen.files);
    const revisions = new Set<string>();
    const sha = await tb.git.createRepo(MAIN_REPO, repoDir, `generated from ${g.origin}`);
    revisions.add(`main@sha1:${sha}`);
    for (const [name, files] of Object.entries(gen.extraRepos)) {
      const d = path.join(work, name);
      writeFiles(d, files);
      revisions.add(`main@sha1:${await tb.git.createRepo(name, d)}`);
    }
    const kc = tb.kubeConfig();
    watcher = await watchReady(kc, () => revisions);
    const allKs = [...new Set([rootKey(g), ...graphKeys(g)])];
    const allHrs = [...g.entryContent.helmReleases, ...g.tiers.flatMap((t) => t.helmReleases)].map(keyOf);
    const procs = testbedProcesses(tb.dir);
    const cpu0 = cpuSnapshot(procs);
    o.log(`${g.name} ${v.id} run ${run}: testbed up in ${testbedStartMs} ms, ${allKs.length} Kustomizations, ${allHrs.length} HelmReleases (load ${loadBefore.join(' ')})`);

    let standup: RunResult['standup'];
    let error: string | undefined;
    let allReadyAt: number | null = null;
    const t0 = Date.now();
    if (v.driver === 'flux') {
      // What `flux bootstrap` leaves behind, and nothing else: the root sync, applied once.
      await execa('kubectl', ['--kubeconfig', tb.kubeconfigPath, 'apply', '--server-side', '--field-manager', 'standup-bench', '-k', path.join(repoDir, gen.syncDir)]);
      allReadyAt = await watcher.until(allKs, allHrs, o.timeoutMs).catch((e: Error) => ((error = e.message), null));
    } else {
      const events: StandupEvent[] = [];
      let stderr = '';
      let exit: { code: number | null; at: number } | undefined;
      const timeFile = path.join(work, 'time.txt');
      const child = spawn('/usr/bin/time', ['-f', '%M %U %S', '-o', timeFile, process.execPath, ...words(process.env.STANDUP_BENCH_NODE_OPTIONS), path.join(ROOT, 'bin/standup.js'), 'up', '--repo', repoDir, '--cluster', BENCH_CLUSTER, '--kubeconfig', tb.kubeconfigPath, '--source-url', tb.git.url(MAIN_REPO), '-o', 'json', ...words(process.env.STANDUP_BENCH_ARGS)],
        { cwd: ROOT, env: { ...process.env, CI: 'true', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let buf = '';
      child.stdout.on('data', (d: Buffer) => {
        const t = Date.now() - t0;
        buf += d.toString();
        const lines = buf.split('\n');
        buf = lines.pop()!;
        for (const l of lines) if (l.startsWith('{')) events.push({ t, e: JSON.parse(l) as Record<string, unknown> });
      });
      child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
      const exited = new Promise<void>((r) => child.on('close', (code) => ((exit = { code, at: Date.now() - t0 }), r())));
      allReadyAt = await watcher.until(allKs, allHrs, o.timeoutMs, () => (exit && exit.code !== 0 ? `standup exited ${exit.code}: ${stderr.trim().split('\n').slice(-5).join(' | ')}` : undefined)).catch((e: Error) => ((error = e.message), null));
      if (!exit && error) child.kill('SIGINT');
      await exited;
      // Kept with the controllers' logs (--keep-logs): what --verbose (STANDUP_BENCH_ARGS) printed, or a failure's words.
      writeFileSync(path.join(tb.logs, 'standup.stderr'), stderr);
      const steps: NonNullable<RunResult['standup']>['steps'] = {};
      for (const { t, e } of events) {
        const id = String(e.id ?? '');
        if (e.type === 'step-start') (steps[id] ??= {}).start = t;
        if (e.type === 'step-end') Object.assign((steps[id] ??= {}), { end: t, durationMs: e.durationMs as number, result: e.result as string });
      }
      const [rss, user, sys] = existsSync(timeFile) ? readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number) : [];
      await sleep(500); // the audit log's last events (watches end when standup exits)
      const tierSteps = Object.entries(steps).filter(([id]) => id.startsWith('tier:'));
      const firstTier = Math.min(...tierSteps.map(([, s]) => s.start ?? Infinity));
      const lastTier = Math.max(...tierSteps.map(([, s]) => s.end ?? -Infinity));
      const p0 = Date.now();
      await execa(process.execPath, [path.join(ROOT, 'bin/standup.js'), 'plan', '--repo', repoDir, '--cluster', BENCH_CLUSTER], { cwd: ROOT, env: { ...process.env, CI: 'true', NO_COLOR: '1' }, reject: false });
      standup = {
        exitCode: exit!.code,
        exitMs: exit!.at,
        runEnd: events.find((x) => x.e.type === 'run-end')?.e,
        steps,
        events,
        stderr,
        maxRssKiB: Number.isFinite(rss) ? rss! : null,
        cpuUserS: Number.isFinite(user) ? user! : null,
        cpuSysS: Number.isFinite(sys) ? sys! : null,
        api: apiTraffic(tb.auditLog, t0, t0 + exit!.at),
        apiWaiting: Number.isFinite(firstTier) && lastTier > firstTier ? apiTraffic(tb.auditLog, t0 + firstTier, t0 + lastTier) : null,
        planMs: Date.now() - p0,
      };
    }
    const cpuEnd = cpuSnapshot(procs);
    await sleep(1000); // the controllers' last log lines
    const logs = { kc: readLog(tb, 'kustomize-controller.log'), helm: readLog(tb, 'helm-controller.log'), source: readLog(tb, 'source-controller.log') };
    const measured = measureRun(g, logs, revisions, v.concurrent);
    let limit: Limit | null = null;
    if (measured.missing.length === 0) {
      try {
        limit = physicalLimit(measured.input);
      } catch (e) {
        measured.missing.push((e as Error).message);
      }
    }
    const rel = (m: Map<string, number>) => Object.fromEntries([...m].map(([k, at]) => [k, at - t0]));
    const ksReady = allKs.map((k) => watcher!.kustomizations.get(k));
    const { input: _input, ...measuredOut } = measured;
    const res: RunResult = {
      ...base,
      loadAfter: loadavg(),
      revision: `main@sha1:${sha}`,
      ok: !error && (standup?.exitCode ?? 0) === 0,
      ...(error ? { error } : standup && standup.exitCode !== 0 ? { error: `standup exited ${standup.exitCode}: ${standup.stderr.trim().split('\n').slice(-3).join(' | ')}` } : {}),
      allReadyMs: allReadyAt === null ? null : allReadyAt - t0,
      kustomizationsReadyMs: ksReady.every((x) => x !== undefined) ? Math.max(...(ksReady as number[])) - t0 : null,
      readyAt: rel(watcher.kustomizations),
      helmReadyAt: rel(watcher.helmReleases),
      limit: limit ? { ms: limit.ms, kustomizationsMs: limit.kustomizationsMs, path: limit.path } : null,
      limitMissing: measured.missing,
      measured: measuredOut,
      kcDependencyRetries: Object.fromEntries(kcDependencyRetries(logs.kc)),
      cpuMs: Object.fromEntries([...cpuEnd].map(([k, ms]) => [k, Math.round(ms - (cpu0.get(k) ?? 0))])),
      ...(standup ? { standup } : {}),
    };
    o.log(`${g.name} ${v.id} run ${run}: ${res.ok ? `all Ready after ${((res.allReadyMs ?? 0) / 1000).toFixed(2)} s` : `FAILED: ${res.error}`}${limit ? `, limit ${(limit.ms / 1000).toFixed(2)} s` : ''}${standup ? `, standup exited ${standup.exitCode} after ${(standup.exitMs / 1000).toFixed(2)} s` : ''}`);
    return res;
  } finally {
    watcher?.stop();
    // The watches' audit events are written when the API server notices they ended; copy the log after that.
    for (const until = Date.now() + 5000; openRequests(tb.auditLog, WATCH_USER_AGENT).length > 0 && Date.now() < until; ) await sleep(100);
    if (o.keepLogs) {
      const dest = path.join(o.keepLogs, `${g.name}-${v.id}-${run}`);
      mkdirSync(dest, { recursive: true });
      cpSync(tb.logs, dest, { recursive: true });
    }
    await tb.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** An environment variable's words (no quoting: node flags and standup flags need none). */
const words = (v: string | undefined): string[] => (v ? v.split(/\s+/).filter(Boolean) : []);
