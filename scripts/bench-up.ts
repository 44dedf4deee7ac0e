// Benchmark: `standup up` against Flux alone on the testbed (issue 4, Performance). `npm run bench:up`
// [-- --runs 2 --variant flux-30s --variant flux-5s --variant standup-30s --tiers 8 --json FILE].
//
// The repository is generated (scripts/bench/up/fixture.ts): a chain of N Flux Kustomizations, each `wait: true`,
// each dependsOn the previous, each applying a Namespace and three ConfigMaps. Every run gets a FRESH testbed (real
// kube-apiserver, source- and kustomize-controller; started and stopped around the run, never two at once), so every
// run is a cold start. Variants:
//   flux-30s     Flux alone, kustomize-controller --requeue-dependency=30s (upstream default): the root sync
//                (gotk-sync.yaml: GitRepository + root Kustomization) is applied with `kubectl apply --server-side`,
//                and nothing else is done.
//   flux-5s      the same at --requeue-dependency=5s (what homelab templates set).
//   standup-30s  `node bin/standup.js up -o json` on the same repository, kustomize-controller at 30s.
// The runs are interleaved (run 1 of every variant, then run 2, ...) so background load hits all alike.
//
// Timing, the same for every variant: t0 is taken just before the process (kubectl or standup) is spawned; a poller
// in this process lists the Kustomizations every POLL_MS and records when each one is first Ready at the served
// revision (generation == observedGeneration, Ready=True, lastAppliedRevision == main@sha1:<sha>). "all Ready" is
// the first poll that sees all N+1. For standup, its exit time and its JSON events (timestamped here on arrival)
// are recorded too.
// Each tier's own reconcile time comes from kustomize-controller's log: the duration of its "Reconciliation finished
// in X" line for the served revision (the controller's timer around that reconcile: fetch, build, apply, health
// checks, status). The sum over the tiers is the lower bound of a chain where each tier starts the instant its
// dependency is Ready.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { start } from '../test/testbed/harness.js';
import { writeFixture } from './bench/up/fixture.js';
import { kcDependencyRetries, kcReconciles } from './bench/up/kc-log.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const POLL_MS = 200;
const RUN_TIMEOUT_MS = 15 * 60_000;

interface Variant {
  id: string;
  requeue: '30s' | '5s';
  driver: 'flux' | 'standup';
}
const VARIANTS: Variant[] = [
  { id: 'flux-30s', requeue: '30s', driver: 'flux' },
  { id: 'flux-5s', requeue: '5s', driver: 'flux' },
  { id: 'standup-30s', requeue: '30s', driver: 'standup' },
  // Not in the default set: standup should not care about the requeue; available as a check.
  { id: 'standup-5s', requeue: '5s', driver: 'standup' },
];
const DEFAULT_VARIANTS = ['flux-30s', 'flux-5s', 'standup-30s'];

interface StandupEvent {
  /** ms since t0, when the line arrived here. */
  t: number;
  e: Record<string, unknown>;
}

interface RunResult {
  variant: string;
  run: number;
  startedAt: string;
  loadBefore: number[];
  loadAfter: number[];
  testbedStartMs: number;
  revision: string;
  /** ms since t0 until the poller saw every Kustomization Ready at the revision. */
  allReadyMs: number;
  /** ms since t0 when the poller first saw each Kustomization Ready at the revision. */
  readyAt: Record<string, number>;
  /** kustomize-controller's own duration of the reconcile that applied the revision, per Kustomization. */
  kcMs: Record<string, number>;
  /** ms since t0 when that reconcile finished (log timestamp). */
  kcFinishedAt: Record<string, number>;
  /** "Dependencies do not meet ready condition" count per Kustomization. */
  dependencyRetries: Record<string, number>;
  standup?: {
    exitCode: number | null;
    exitMs: number;
    runEnd?: Record<string, unknown>;
    /** Per step id: arrival of step-start and step-end (ms since t0), and the step's durationMs. */
    steps: Record<string, { start?: number; end?: number; durationMs?: number; result?: string }>;
    events: StandupEvent[];
    stderr: string;
    /** After the run, untimed by the table: wall ms of `standup plan` on the same repository (start-up + loading). */
    planMs: number;
  };
}

function parseArgs(argv: string[]) {
  const o = { runs: 2, variants: [] as string[], tiers: 8, json: '' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--runs') o.runs = Number(next());
    else if (a === '--variant') o.variants.push(next());
    else if (a === '--tiers') o.tiers = Number(next());
    else if (a === '--json') o.json = next();
    else if (a === '--') continue;
    else throw new Error(`unknown argument ${a} (known: --runs N, --variant ${VARIANTS.map((v) => v.id).join('|')}, --tiers N, --json FILE)`);
  }
  if (o.variants.length === 0) o.variants = DEFAULT_VARIANTS;
  for (const v of o.variants) if (!VARIANTS.some((x) => x.id === v)) throw new Error(`unknown variant ${v}`);
  return o;
}

const log = (s: string) => process.stderr.write(`[bench:up ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loadavg = () => os.loadavg().map((x) => Math.round(x * 100) / 100);

interface Ks {
  metadata: { name: string; generation?: number };
  status?: { observedGeneration?: number; lastAppliedRevision?: string; conditions?: { type: string; status: string }[] };
}
const readyAt = (ks: Ks, revision: string) =>
  ks.status?.observedGeneration === ks.metadata.generation &&
  ks.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true &&
  ks.status?.lastAppliedRevision === revision;

/** Polls the Kustomizations until every name is Ready at the revision; records when each first was. */
async function pollUntilReady(kc: KubeConfig, names: string[], revision: string, t0: number, seen: Record<string, number>, abort: () => string | undefined): Promise<number> {
  const api = kc.makeApiClient(CustomObjectsApi);
  for (;;) {
    const why = abort();
    if (why) throw new Error(why);
    if (Date.now() - t0 > RUN_TIMEOUT_MS) throw new Error(`not all Ready after ${RUN_TIMEOUT_MS / 1000} s; ready: ${Object.keys(seen).join(', ')}`);
    try {
      const list = (await api.listNamespacedCustomObject({ group: 'kustomize.toolkit.fluxcd.io', version: 'v1', namespace: 'flux-system', plural: 'kustomizations' })) as { items: Ks[] };
      const now = Date.now() - t0;
      for (const ks of list.items) if (seen[ks.metadata.name] === undefined && readyAt(ks, revision)) seen[ks.metadata.name] = now;
      if (names.every((n) => seen[n] !== undefined)) return now;
    } catch (e) {
      log(`poll failed (retrying): ${(e as Error).message}`);
    }
    await sleep(POLL_MS);
  }
}

async function runOnce(v: Variant, run: number, tiers: number): Promise<RunResult> {
  const loadBefore = loadavg();
  const startedAt = new Date().toISOString();
  const ts = Date.now();
  const tb = await start({ requeueDependency: v.requeue });
  const testbedStartMs = Date.now() - ts;
  const fixture = mkdtempSync(path.join(os.tmpdir(), 'standup-bench-up-'));
  try {
    const url = tb.git.url('bench');
    const { names } = writeFixture(fixture, { url, tiers });
    const all = ['flux-system', ...names];
    const sha = await tb.git.createRepo('bench', fixture);
    const revision = `main@sha1:${sha}`;
    const kc = tb.kubeConfig();
    const seen: Record<string, number> = {};
    let result: RunResult['standup'];
    log(`${v.id} run ${run}: testbed up in ${testbedStartMs} ms (load ${loadBefore.join(' ')}), starting`);

    const t0 = Date.now();
    let allReadyMs: number;
    if (v.driver === 'flux') {
      const sync = readFileSync(path.join(fixture, 'clusters/bench/flux-system/gotk-sync.yaml'), 'utf8');
      execFileSync('kubectl', ['--kubeconfig', tb.kubeconfigPath, 'apply', '--server-side', '-f', '-'], { input: sync, stdio: ['pipe', 'ignore', 'inherit'] });
      allReadyMs = await pollUntilReady(kc, all, revision, t0, seen, () => undefined);
    } else {
      const events: StandupEvent[] = [];
      let stderr = '';
      let exit: { code: number | null; at: number } | undefined;
      const child = spawn('node', [path.join(ROOT, 'bin/standup.js'), 'up', '--repo', fixture, '--cluster', 'bench', '--kubeconfig', tb.kubeconfigPath, '--source-url', url, '-o', 'json'],
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
      const exited = new Promise<void>((r) => child.on('close', (code) => { exit = { code, at: Date.now() - t0 }; r(); }));
      allReadyMs = await pollUntilReady(kc, all, revision, t0, seen, () => (exit && exit.code !== 0 ? `standup exited ${exit.code}: ${stderr}` : undefined));
      await exited;
      const steps: NonNullable<RunResult['standup']>['steps'] = {};
      for (const { t, e } of events) {
        const id = String(e.id ?? '');
        if (e.type === 'step-start') (steps[id] ??= {}).start = t;
        if (e.type === 'step-end') Object.assign((steps[id] ??= {}), { end: t, durationMs: e.durationMs as number, result: e.result as string });
      }
      if (exit!.code !== 0) throw new Error(`standup exited ${exit!.code}: ${stderr}`);
      // Where the time before standup's first event goes: the same start-up and repository loading, no cluster.
      const p0 = Date.now();
      execFileSync('node', [path.join(ROOT, 'bin/standup.js'), 'plan', '--repo', fixture, '--cluster', 'bench'], { cwd: ROOT, env: { ...process.env, CI: 'true', NO_COLOR: '1' }, stdio: 'ignore' });
      const planMs = Date.now() - p0;
      result = { exitCode: exit!.code, exitMs: exit!.at, runEnd: events.find((x) => x.e.type === 'run-end')?.e, steps, events, stderr, planMs };
    }
    // Give kustomize-controller a moment to flush its log lines.
    await sleep(300);
    const kcLog = readFileSync(path.join(tb.logs, 'kustomize-controller.log'), 'utf8');
    const kcMs: Record<string, number> = {};
    const kcFinishedAt: Record<string, number> = {};
    for (const r of kcReconciles(kcLog)) {
      if (r.revision !== revision || kcMs[r.name] !== undefined) continue;
      kcMs[r.name] = Math.round(r.durationMs);
      kcFinishedAt[r.name] = r.finishedAt - t0;
    }
    const res: RunResult = {
      variant: v.id, run, startedAt, loadBefore, loadAfter: loadavg(), testbedStartMs, revision, allReadyMs,
      readyAt: seen, kcMs, kcFinishedAt, dependencyRetries: Object.fromEntries(kcDependencyRetries(kcLog)),
      ...(result ? { standup: result } : {}),
    };
    log(`${v.id} run ${run}: all Ready after ${(allReadyMs / 1000).toFixed(2)} s${result ? `, standup exited after ${(result.exitMs / 1000).toFixed(2)} s` : ''}`);
    return res;
  } finally {
    await tb.stop();
    rmSync(fixture, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function report(results: RunResult[], tiers: number): string {
  const names = Array.from({ length: tiers }, (_, i) => `tier-${i + 1}`);
  const byVariant = new Map<string, RunResult[]>();
  for (const r of results) byVariant.set(r.variant, [...(byVariant.get(r.variant) ?? []), r]);
  const standup = byVariant.get('standup-30s') ?? byVariant.get('standup-5s');
  const ref = standup ? median(standup.map((r) => r.allReadyMs)) : NaN;
  const out: string[] = [];
  out.push('| variant | runs | all Ready, median | all Ready, runs | ratio to standup-30s | standup exit, median | standup API calls (requests + watches) | standup API calls/min (run-end) | load (1 min) |');
  out.push('|---|---|---|---|---|---|---|---|---|');
  for (const [id, rs] of byVariant) {
    const su = rs[0]!.standup ? rs : null;
    const api = su?.map((r) => r.standup!.runEnd?.api as { requests: number; watches: number; perMinute: number } | undefined);
    const loads = rs.flatMap((r) => [r.loadBefore[0]!, r.loadAfter[0]!]);
    out.push(`| ${id} | ${rs.length} | ${sec(median(rs.map((r) => r.allReadyMs)))} | ${rs.map((r) => (r.allReadyMs / 1000).toFixed(2)).join(', ')} | ${(median(rs.map((r) => r.allReadyMs)) / ref).toFixed(2)}x | ${su ? sec(median(su.map((r) => r.standup!.exitMs))) : '-'} | ${api ? api.map((a) => (a ? `${a.requests} + ${a.watches}` : '?')).join(', ') : '-'} | ${api ? `${median(api.map((a) => a?.perMinute ?? NaN))} (${api.map((a) => a?.perMinute).join(', ')})` : '-'} | ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} |`);
  }
  out.push('');
  out.push('Per tier, median over runs: kustomize-controller\'s own reconcile time ("Reconciliation finished in") for each variant; for standup also its step duration (dependency Ready seen -> this tier Ready seen).');
  out.push('');
  const ids = [...byVariant.keys()];
  out.push(`| Kustomization | ${ids.map((id) => `KC reconcile (${id})`).join(' | ')}${standup ? ' | standup step (standup-30s) |' : ' |'}`);
  out.push(`|---|${ids.map(() => '---|').join('')}${standup ? '---|' : ''}`);
  const rowsFor = (n: string) => ids.map((id) => `${median(byVariant.get(id)!.map((r) => r.kcMs[n] ?? NaN)).toFixed(0)} ms`);
  for (const n of ['flux-system', ...names]) {
    out.push(`| ${n} | ${rowsFor(n).join(' | ')}${standup ? ` | ${median(standup.map((r) => r.standup!.steps[`tier:flux-system/${n}`]?.durationMs ?? NaN)).toFixed(0)} ms |` : ' |'}`);
  }
  const sumTiers = (r: RunResult) => names.reduce((a, n) => a + (r.kcMs[n] ?? NaN), 0);
  const sumSteps = (r: RunResult) => names.reduce((a, n) => a + (r.standup!.steps[`tier:flux-system/${n}`]?.durationMs ?? NaN), 0);
  out.push(`| **sum of ${tiers} tiers** | ${ids.map((id) => `**${median(byVariant.get(id)!.map(sumTiers)).toFixed(0)} ms**`).join(' | ')}${standup ? ` | **${median(standup.map(sumSteps)).toFixed(0)} ms** |` : ' |'}`);
  if (standup) {
    out.push('');
    out.push('Where standup\'s time goes (median over its runs; ms since spawn, from the arrival of its JSON events):');
    out.push('');
    const phase = (r: RunResult) => {
      const s = r.standup!.steps;
      const first = s['preflight']?.start ?? NaN;
      const t1 = s[`tier:flux-system/${names[0]}`]?.start ?? NaN;
      const tN = s[`tier:flux-system/${names[tiers - 1]}`]?.end ?? NaN;
      const planEvent = r.standup!.events.find((x) => x.e.type === 'plan')?.t ?? NaN;
      return {
        'spawn -> plan event (node, tsx, imports, loading the repository, kubeconfig)': planEvent,
        'plan event -> preflight start': first - planEvent,
        '(for comparison, after the run: `standup plan` on the same repository, whole process)': r.standup!.planMs,
        preflight: s['preflight']!.durationMs!,
        bootstrap: s['bootstrap']!.durationMs!,
        crds: s['crds']?.durationMs ?? 0,
        'source (fetch requested -> artifact)': s['source']!.durationMs!,
        'root sync flux-system/flux-system': s['tier:flux-system/flux-system']!.durationMs!,
        [`tiers: ${names[0]} start -> ${names[tiers - 1]} Ready`]: tN - t1,
        'run-end -> process exit': r.standup!.exitMs - (r.standup!.events.find((x) => x.e.type === 'run-end')?.t ?? NaN),
        'total (spawn -> exit)': r.standup!.exitMs,
        'run-end durationMs (standup\'s own clock)': Number(r.standup!.runEnd?.durationMs),
      };
    };
    const ph = standup.map(phase);
    out.push('| phase | median | runs |');
    out.push('|---|---|---|');
    for (const k of Object.keys(ph[0]!)) out.push(`| ${k} | ${median(ph.map((p) => (p as Record<string, number>)[k]!)).toFixed(0)} ms | ${ph.map((p) => (p as Record<string, number>)[k]!.toFixed(0)).join(', ')} |`);
    const sum = median(standup.map(sumTiers));
    const tierPhase = median(ph.map((p) => (p as Record<string, number>)[`tiers: ${names[0]} start -> ${names[tiers - 1]} Ready`]!));
    out.push('');
    out.push(`Lower bound (sum of the ${tiers} tiers' KC reconcile times in the standup runs, median): ${sec(sum)}. standup's tier phase ${sec(tierPhase)} = ${((tierPhase / sum - 1) * 100).toFixed(0)}% over it; standup's all-Ready time ${sec(ref)} = ${((ref / sum - 1) * 100).toFixed(0)}% over it.`);
  }
  const retries = results.filter((r) => r.variant.startsWith('flux')).map((r) => `${r.variant}#${r.run}: ${names.map((n) => r.dependencyRetries[n] ?? 0).join('/')}`);
  if (retries.length) {
    out.push('');
    out.push(`"Dependencies do not meet ready condition" per tier (${names.join('/')}): ${retries.join('; ')}.`);
  }
  return out.join('\n');
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? '?';
  log(`machine: nproc ${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${cpu}, node ${process.version}`);
  const bin = execFileSync('bash', [path.join(ROOT, 'scripts/build-testbed.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n').pop();
  log(`testbed binaries: ${bin}`);
  const results: RunResult[] = [];
  for (let run = 1; run <= o.runs; run++) {
    for (const id of o.variants) {
      results.push(await runOnce(VARIANTS.find((v) => v.id === id)!, run, o.tiers));
      if (o.json) writeFileSync(o.json, JSON.stringify({ tiers: o.tiers, results }, null, 2));
    }
  }
  process.stdout.write(report(results, o.tiers) + '\n');
}

await main();
