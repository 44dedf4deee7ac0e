// Benchmark: `standup up` against Flux alone on real graphs (issue 13). `npm run bench:up -- --graph sulibot`.
//
//   --graph NAME     sulibot | joryirving | bjw-s (corpus entries, made inert by scripts/bench/up/generate.ts), or
//                    chain-N, deep-N, wide-N (made up: ConfigMap tiers); repeatable; default sulibot
//   --variant ID     flux-30s-c4, flux-30s-c10, flux-5s-c4, flux-5s-c10 (Flux alone: kustomize- and
//                    helm-controller at that --requeue-dependency, the Flux controllers at that --concurrent) and
//                    standup (`standup up`, Flux at its defaults: 30s, 4); also standup-<requeue>-c<n>; repeatable;
//                    default all five
//   --runs N         runs per graph and variant, interleaved (run 1 of every variant, then run 2, ...); default 1
//   --seed N, --delay MIN-MAX   the HelmReleases' readiness delays (s), drawn per release; default 1, 1-5
//   --timeout MIN    per run; default 30
//   --json FILE      every run's raw measurements
//   --keep-logs DIR  copy each run's testbed logs (controllers, audit log) there
//   --scale          report the graphs as scale runs (one row each: standup's memory and API traffic)
//   --report FILE    no runs: print the report of an earlier --json FILE again (with this checkout's report code);
//                    with --keep-logs DIR, each run is measured again from its kept logs (this checkout's measure code)
//
// Profiling standup's side: STANDUP_BENCH_NODE_OPTIONS adds node flags to the standup process (e.g. `--cpu-prof
// --cpu-prof-dir=/tmp/prof`; NODE_OPTIONS refuses --cpu-prof), STANDUP_BENCH_ARGS adds standup flags (e.g.
// `--verbose`); standup's stderr is kept as standup.stderr beside each run's logs under --keep-logs.
//
// Every run gets a fresh testbed (test/testbed: real kube-apiserver, a real node when the graph has HelmReleases,
// source-, kustomize- and helm-controller), started and stopped around it, never two at once. t0 is taken just
// before the driver is spawned (kubectl applying the root sync, or standup); "all Ready" is when the benchmark's own
// watch (scripts/bench/up/watch.ts) has seen every Kustomization Ready at the served revision and every HelmRelease
// Ready. The physical limit is computed from the same run's controller logs (scripts/bench/up/limit.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusGraph, isCorpusGraph } from './bench/up/corpus-graph.js';
import { specProblems, type GraphSpec } from './bench/up/graph-spec.js';
import { nameProblems } from './bench/up/generate.js';
import { describeGraph, graphReport, scaleReport } from './bench/up/report.js';
import { kcReconciles } from './bench/up/kc-log.js';
import { physicalLimit } from './bench/up/limit.js';
import { parseLogLines } from './bench/up/log-lines.js';
import { measureRun } from './bench/up/measure.js';
import { loadavg, parseVariant, runOnce, type RunResult, type Variant } from './bench/up/run.js';
import { syntheticGraph } from './bench/up/synthetic.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_VARIANTS = ['flux-30s-c4', 'flux-30s-c10', 'flux-5s-c4', 'flux-5s-c10', 'standup'];

interface Args {
  graphs: string[];
  variants: Variant[];
  runs: number;
  seed: number;
  delay: [number, number];
  timeoutMin: number;
  json: string;
  keepLogs: string;
  scale: boolean;
  report: string;
}

function parseArgs(argv: string[]): Args {
  const o: Args = { graphs: [], variants: [], runs: 1, seed: 1, delay: [1, 5], timeoutMin: 30, json: '', keepLogs: '', scale: false, report: '' };
  const problems: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--graph') o.graphs.push(next());
    else if (a === '--variant') {
      const id = next();
      const v = parseVariant(id);
      if (v) o.variants.push(v);
      else problems.push(`unknown variant ${id} (flux-<requeue>-c<concurrent>, standup, standup-<requeue>-c<concurrent>)`);
    } else if (a === '--runs') o.runs = Number(next());
    else if (a === '--seed') o.seed = Number(next());
    else if (a === '--delay') {
      const m = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(next());
      if (m && Number(m[1]) <= Number(m[2])) o.delay = [Number(m[1]), Number(m[2])];
      else problems.push('--delay takes MIN-MAX in seconds, e.g. 1-5');
    } else if (a === '--timeout') o.timeoutMin = Number(next());
    else if (a === '--json') o.json = next();
    else if (a === '--keep-logs') o.keepLogs = path.resolve(next());
    else if (a === '--scale') o.scale = true;
    else if (a === '--report') o.report = next();
    else if (a === '--') continue;
    else problems.push(`unknown argument ${a}`);
  }
  if (o.graphs.length === 0) o.graphs = ['sulibot'];
  for (const g of o.graphs) if (!isCorpusGraph(g) && !syntheticGraph(g)) problems.push(`unknown graph ${g} (sulibot, joryirving, bjw-s, chain-N, deep-N, wide-N)`);
  if (o.variants.length === 0) o.variants = DEFAULT_VARIANTS.map((id) => parseVariant(id)!);
  if (!(o.runs >= 1) || !Number.isInteger(o.runs)) problems.push('--runs takes a whole number >= 1');
  if (!(o.timeoutMin > 0)) problems.push('--timeout takes minutes > 0');
  if (problems.length) throw new Error(`${problems.join('\n')}\n(see the top of scripts/bench-up.ts)`);
  return o;
}

const log = (s: string) => process.stderr.write(`[bench:up ${new Date().toISOString().slice(11, 19)}] ${s}\n`);

async function loadGraph(name: string): Promise<GraphSpec> {
  const g = isCorpusGraph(name) ? await corpusGraph(name) : syntheticGraph(name)!;
  const problems = [...specProblems(g), ...nameProblems(g)];
  if (problems.length) throw new Error(`graph ${name} cannot be generated:\n  ${problems.join('\n  ')}`);
  return g;
}

interface Saved {
  machine: string;
  standup: string;
  dirty: boolean;
  started?: string;
  finished?: string;
  args: Omit<Args, 'variants'> & { variants: string[] };
  results: RunResult[];
}

function render(o: { scale: boolean; seed: number; delay: [number, number] }, graphs: GraphSpec[], results: RunResult[], head: string): string {
  const out = [head, ''];
  if (o.scale) out.push(scaleReport(graphs.flatMap((g) => results.filter((r) => r.graph === g.name).map((r) => ({ g, r })))));
  else {
    for (const g of graphs) {
      out.push(graphReport(g, results.filter((r) => r.graph === g.name), { seed: o.seed, delaySeconds: o.delay }), '');
      if (g.notes.length) out.push('What the generated repository leaves out or rewrites:', '', ...g.notes.map((n) => `- ${n}`), '');
    }
  }
  return out.join('\n') + '\n';
}

/** Measures a run again from its kept logs (every revision kustomize-controller applied there is one the run served). */
function remeasure(g: GraphSpec, r: RunResult, dir: string): void {
  const read = (f: string) => (existsSync(path.join(dir, f)) ? parseLogLines(readFileSync(path.join(dir, f), 'utf8')) : []);
  if (!r.ok || !existsSync(dir)) return;
  const logs = { kc: read('kustomize-controller.log'), helm: read('helm-controller.log'), source: read('source-controller.log') };
  const revisions = new Set(kcReconciles(logs.kc).map((x) => x.revision).filter(Boolean));
  const m = measureRun(g, logs, revisions, parseVariant(r.variant)?.concurrent);
  let limit: RunResult['limit'] = null;
  if (m.missing.length === 0) {
    try {
      const l = physicalLimit(m.input);
      limit = { ms: l.ms, kustomizationsMs: l.kustomizationsMs, path: l.path };
    } catch (e) {
      m.missing.push((e as Error).message);
    }
  }
  const { input: _input, ...measured } = m;
  Object.assign(r, { measured, limit, limitMissing: m.missing });
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.report) {
    const saved = JSON.parse(readFileSync(o.report, 'utf8')) as Saved;
    const graphs: GraphSpec[] = [];
    for (const name of saved.args.graphs) graphs.push(await loadGraph(name));
    if (o.keepLogs) for (const r of saved.results) remeasure(graphs.find((g) => g.name === r.graph)!, r, path.join(o.keepLogs, `${r.graph}-${r.variant}-${r.run}`));
    const when = saved.started ? `Run ${saved.started.slice(0, 16).replace('T', ' ')}–${(saved.finished ?? '').slice(11, 16)} UTC, ` : '';
    process.stdout.write(render({ scale: o.scale || saved.args.scale, seed: saved.args.seed, delay: saved.args.delay }, graphs, saved.results, `${when}standup ${saved.standup}${saved.dirty ? ' (src/ or bin/ modified)' : ''}; ${saved.machine}.`));
    return;
  }
  const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? '?';
  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'bin'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
  const machine = `nproc ${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${cpu}, Linux ${os.release()}, node ${process.version}`;
  log(`machine: ${machine}; standup ${head}${dirty ? ' (src/ or bin/ modified)' : ''}`);
  const bin = execFileSync('bash', [path.join(ROOT, 'scripts/build-testbed.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n').pop();
  log(`testbed binaries: ${bin}`);
  const graphs: GraphSpec[] = [];
  for (const name of o.graphs) {
    const g = await loadGraph(name);
    log(`${name}: ${describeGraph(g)}`);
    graphs.push(g);
  }
  const started = new Date();
  const results: RunResult[] = [];
  for (let run = 1; run <= o.runs; run++) {
    for (const g of graphs) {
      for (const v of o.variants) {
        try {
          results.push(await runOnce(g, v, run, { seed: o.seed, delaySeconds: o.delay, timeoutMs: o.timeoutMin * 60_000, keepLogs: o.keepLogs || undefined, log }));
        } catch (e) {
          log(`${g.name} ${v.id} run ${run}: the run itself failed: ${(e as Error).stack ?? e}`);
          results.push({ graph: g.name, variant: v.id, run, startedAt: new Date().toISOString(), loadBefore: loadavg(), loadAfter: loadavg(), testbedStartMs: 0, revision: '', ok: false, error: (e as Error).message, allReadyMs: null, kustomizationsReadyMs: null, readyAt: {}, helmReadyAt: {}, limit: null, limitMissing: [], measured: null, kcDependencyRetries: {}, cpuMs: {} });
        }
        if (o.json) writeFileSync(o.json, JSON.stringify({ machine, standup: head, dirty, started: started.toISOString(), finished: new Date().toISOString(), args: { ...o, variants: o.variants.map((v) => v.id) }, graphs: graphs.map((g) => ({ name: g.name, origin: g.origin, notes: g.notes })), results }, null, 2));
      }
    }
  }
  process.stdout.write(render(o, graphs, results, `Run ${started.toISOString().slice(0, 16).replace('T', ' ')}–${new Date().toISOString().slice(11, 16)} UTC, standup ${head}${dirty ? ' (src/ or bin/ modified)' : ''}; ${machine}.`));
}

await main();
