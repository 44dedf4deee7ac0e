// Benchmark: `standup plan` and `standup check` against peers that derive the same Flux Kustomization graph, on the
// largest corpus repositories, side by side in one run. `npm run bench:plan [-- --runs 3 --repo sulibot --tool flate]`.
//
// Each run is a series of three, each a fresh process under `/usr/bin/time -v` (wall time, max RSS of the largest
// process, CPU) sharing one fresh TMPDIR and XDG_CACHE_HOME: cold (every cache empty: tsx's transpile cache,
// standup's and flate's render caches, flux-local's git cache), warm (the same command again, same cache
// directory), and edit (warm after a one-file change: a comment appended to one app's HelmRelease, which check and
// flate render). A sampler also adds up the RSS of the whole process group every SAMPLE_MS, because every tool
// here fans out to child processes (kustomize, flux) and `time -v` reports only the largest one.
// Peers are installed by scripts/bench/setup-peers.sh, outside the repository; a peer that is missing is skipped
// with a line that says why. Results: a Markdown table per repository on stdout (pasted into BENCHMARKS.md), and
// every run as JSON with --json FILE.
import { execFileSync } from 'node:child_process';
import { cpSync, symlinkSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
// The corpus left out generator inputs; standup reports those tiers as build-failed and goes on, flux-local stops at
// the first failed `flux build`: the copy gets an empty file for each, so every tool does the same complete work.
import { fillGeneratorInputs } from './bench/up/corpus-graph.js';
import { timeCommand } from './bench/time-v.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BENCH_HOME = process.env.STANDUP_BENCH_HOME ?? path.join(os.homedir(), '.cache', 'standup-bench');
const BENCH_BIN = path.join(BENCH_HOME, 'bin');
const CORPUS = process.env.STANDUP_CORPUS ?? path.resolve(ROOT, '..', 'shared', 'corpus');
const SAMPLE_MS = 100;
/** The standup tree that is measured: this checkout, or an export of --standup-rev (main() sets it). */
let standupRoot = ROOT;

interface RepoCase {
  id: string;
  dir: string;
  /** The cluster's entry path (INDEX.md): what its root Flux Kustomization points at. */
  entry: string;
  /** The file the 'edit' run changes: one app's HelmRelease, in a tier that check (and flate) render. */
  edit: string;
}

// The three largest repositories of the corpus and their live cluster entry (../shared/corpus/INDEX.md).
const REPOS: RepoCase[] = [
  { id: 'sulibot', dir: 'sulibot__home-ops', entry: 'kubernetes/clusters/cluster-101', edit: 'kubernetes/apps/tier-2-applications/actions-runner-controller/app/helmrelease.yaml' },
  { id: 'joryirving', dir: 'joryirving__home-ops', entry: 'kubernetes/clusters/main', edit: 'kubernetes/apps/base/actions-runner-system/actions-runner-controller/app/helmrelease.yaml' },
  { id: 'bjw-s', dir: 'bjw-s-labs__home-ops', entry: 'kubernetes/flux/cluster', edit: 'kubernetes/apps/ai/litellm-operator/app/helmrelease.yaml' },
];

type Mode = 'cold' | 'warm' | 'edit';
const MODES: Mode[] = ['cold', 'warm', 'edit'];

interface Graph {
  /** namespace/name of every Kustomization found. */
  keys: Set<string>;
  /** dependsOn entries, or null when the output does not carry them. */
  edges: number | null;
}

interface Tool {
  name: string;
  /** Which kustomize renders for it, for the notes. */
  kustomize: string;
  /** Why it cannot run here, or null. */
  missing(): string | null;
  command(repo: string, entry: string): string[];
  env(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /** Reads the Kustomization graph out of the tool's stdout. */
  parse(stdout: string): Graph;
  /**
   * When the timed command does not print dependsOn: a command run once per repository, untimed, that prints the
   * graph the same engine derived (JSON rows with namespace, name, dependsOn); its edges fill the table.
   */
  graphCommand?(repo: string, entry: string): string[];
  /** Run only when --tool names it. */
  optIn?: boolean;
  /** The output is the same for the same repository, byte for byte (standup's JSON): warm is compared whole. */
  exactOutput?: boolean;
}

interface Run {
  repo: string;
  tool: string;
  run: number;
  mode: Mode;
  /** warm and edit runs: the output equals the cold run's (byte for byte for standup, the same keys otherwise). */
  sameAsCold: boolean | null;
  exitCode: number;
  wallS: number;
  maxRssKiB: number;
  treeRssKiB: number;
  cpuS: number;
  load1: number;
  kustomizations: number | null;
  edges: number | null;
  parseError: string | null;
  stderrTail: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Tools

function which(name: string, envPath: string): string | null {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    if (existsSync(p)) return p;
  }
  return null;
}

/** PATH without the benchmark's bin dir, so standup falls back to what the machine has (kubectl kustomize). */
function pathWithoutBench(envPath: string): string {
  return envPath.split(path.delimiter).filter((d) => path.resolve(d || '.') !== BENCH_BIN).join(path.delimiter);
}

function pathWithBench(envPath: string): string {
  return [BENCH_BIN, pathWithoutBench(envPath)].join(path.delimiter);
}

function key(ns: unknown, name: unknown): string {
  return `${typeof ns === 'string' && ns ? ns : '?'}/${String(name)}`;
}

function parseStandup(stdout: string): Graph {
  const j = JSON.parse(stdout) as { clusters: { kustomizations: { key: string; dependsOn: string[] }[] }[] };
  const keys = new Set<string>();
  let edges = 0;
  for (const c of j.clusters) {
    for (const k of c.kustomizations) {
      keys.add(k.key);
      edges += k.dependsOn.length;
    }
  }
  return { keys, edges };
}

/** `flux-local get cluster -o yaml`: clusters[].kustomizations[] with name, namespace, path (no dependsOn). */
function parseFluxLocalCluster(stdout: string): Graph {
  const keys = new Set<string>();
  for (const doc of parseAllDocuments(stdout)) {
    const data = doc.toJS() as { clusters?: { kustomizations?: { name: string; namespace?: string }[] }[] } | null;
    for (const c of data?.clusters ?? []) for (const k of c.kustomizations ?? []) keys.add(key(k.namespace, k.name));
  }
  return { keys, edges: null };
}

/** `flux-local get ks -A`: a table [CLUSTER] NAMESPACE NAME PATH. */
function parseFluxLocalTable(stdout: string): Graph {
  const lines = stdout.split('\n').filter((l) => l.trim());
  const header = lines.findIndex((l) => /\bNAMESPACE\s+NAME\s+PATH\b/.test(l));
  if (header < 0) throw new Error(`no NAMESPACE NAME PATH table in the output: ${stdout.slice(0, 200)}`);
  const cols = lines[header]!.trim().split(/\s+/);
  const ns = cols.indexOf('NAMESPACE');
  const name = cols.indexOf('NAME');
  const keys = new Set<string>();
  for (const l of lines.slice(header + 1)) {
    const f = l.trim().split(/\s+/);
    keys.add(key(f[ns], f[name]));
  }
  return { keys, edges: null };
}

/** scripts/bench/flux-local-graph.py: [{namespace, name, path, dependsOn}]. */
function parseGraphRows(stdout: string): Graph {
  const rows = JSON.parse(stdout) as { namespace: string | null; name: string; dependsOn: string[] }[];
  return { keys: new Set(rows.map((r) => key(r.namespace, r.name))), edges: rows.reduce((n, r) => n + r.dependsOn.length, 0) };
}

/**
 * `flate get ks -o json` (v0.6.5): a list of summaries {kind, name, namespace, path, prune, sourceRef, targetNamespace,
 * wait}. It prints no dependsOn, so its edge count is 0 and only the keys can be compared.
 */
function parseFlate(stdout: string): Graph {
  const j = JSON.parse(stdout) as unknown;
  const items = (Array.isArray(j) ? j : ((j as { items?: unknown[] }).items ?? [])) as Record<string, unknown>[];
  const keys = new Set<string>();
  let edges = 0;
  for (const it of items) {
    const meta = (it.metadata ?? it) as { name?: string; namespace?: string };
    const spec = (it.spec ?? it) as { dependsOn?: unknown[]; depends_on?: unknown[] };
    keys.add(key(meta.namespace, meta.name));
    edges += (spec.dependsOn ?? spec.depends_on ?? []).length;
  }
  return { keys, edges };
}

function standupKustomize(envPath: string): string {
  const k = which('kustomize', envPath);
  if (k) return `${k} (${goModVersion(k) ?? 'version unknown'})`;
  const kubectl = which('kubectl', envPath);
  return kubectl ? `kubectl kustomize (${kubectlKustomizeVersion(kubectl)})` : 'none on PATH';
}

function goModVersion(bin: string): string | null {
  try {
    const out = execFileSync('go', ['version', '-m', bin], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return /^\s*mod\s+\S+\s+(\S+)/m.exec(out)?.[1] ?? null;
  } catch {
    return null;
  }
}

function kubectlKustomizeVersion(kubectl: string): string {
  try {
    const out = execFileSync(kubectl, ['version', '--client'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return /Kustomize Version:\s*(\S+)/.exec(out)?.[1] ?? 'version unknown';
  } catch {
    return 'version unknown';
  }
}

const FLUX_LOCAL = path.join(BENCH_HOME, 'venv', 'bin', 'flux-local');
const FLUX_LOCAL_PY = path.join(BENCH_HOME, 'venv', 'bin', 'python');
const FLUX_LOCAL_GRAPH = path.join(ROOT, 'scripts', 'bench', 'flux-local-graph.py');
const FLUX_LOCAL_KS_FLAGS = ['-A', '--skip-invalid-kustomization-paths'];
function fluxLocalMissing(): string | null {
  const need = [FLUX_LOCAL, path.join(BENCH_BIN, 'flux'), path.join(BENCH_BIN, 'kustomize')];
  const absent = need.filter((p) => !existsSync(p));
  return absent.length ? `not installed: ${absent.join(', ')} (run scripts/bench/setup-peers.sh)` : null;
}
const fluxLocalEnv = (e: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ ...e, PATH: pathWithBench(e.PATH ?? ''), PYTHONWARNINGS: 'ignore' });

const standupCmd = (cmd: 'plan' | 'check') => (repo: string, entry: string) => [process.execPath, path.join(standupRoot, 'bin', 'standup.js'), cmd, '--repo', repo, '--path', entry, '-o', 'json'];

/** `standup check -o json` prints problems, not the graph: no keys to compare (its loader is plan's), warm vs cold is. */
function parseCheck(stdout: string): Graph {
  JSON.parse(stdout);
  return { keys: new Set(), edges: null };
}

/**
 * flate with every network fetch failing at once: HTTP(S)_PROXY point at a loopback port nothing listens on, so each
 * chart-source fetch is refused immediately instead of waiting out DNS on this offline machine (1.5-15 s each).
 */
let closedPort = 0;
const refuseAll = (e: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
  const proxy = `http://127.0.0.1:${closedPort}`;
  return { ...e, PATH: pathWithBench(e.PATH ?? ''), HTTPS_PROXY: proxy, HTTP_PROXY: proxy, https_proxy: proxy, http_proxy: proxy, NO_PROXY: '', no_proxy: '' };
};

const flateMissing = () => {
  if (existsSync(path.join(BENCH_BIN, 'flate'))) return null;
  const log = path.join(BENCH_HOME, 'logs', 'flate.log');
  const why = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter((l) => l.includes('requires go') || l.includes('error')).pop() : undefined;
  return `not installed${why ? `: ${why.trim()}` : ' (run scripts/bench/setup-peers.sh)'}`;
};
// This machine reaches no chart registry: flate (which also resolves every HelmRelease's chart source) fails those
// fetches and exits 1 after listing the Kustomizations. One attempt each, so its retry backoff is not timed.
const flateCmd = (_repo: string, entry: string) => [path.join(BENCH_BIN, 'flate'), 'get', 'ks', '--path', entry, '-o', 'json', '--no-progress', '--source-retry-attempts', '1'];

const TOOLS: Tool[] = [
  {
    name: 'standup plan (kubectl kustomize)',
    kustomize: standupKustomize(pathWithoutBench(process.env.PATH ?? '')),
    missing: () => (which('kubectl', pathWithoutBench(process.env.PATH ?? '')) || which('kustomize', pathWithoutBench(process.env.PATH ?? '')) ? null : 'neither kubectl nor kustomize on PATH'),
    command: standupCmd('plan'),
    env: (e) => ({ ...e, PATH: pathWithoutBench(e.PATH ?? '') }),
    parse: parseStandup,
    exactOutput: true,
  },
  {
    name: 'standup plan (kustomize binary)',
    kustomize: standupKustomize(pathWithBench(process.env.PATH ?? '')),
    missing: () => (existsSync(path.join(BENCH_BIN, 'kustomize')) ? null : `no ${path.join(BENCH_BIN, 'kustomize')} (run scripts/bench/setup-peers.sh)`),
    command: standupCmd('plan'),
    env: (e) => ({ ...e, PATH: pathWithBench(e.PATH ?? '') }),
    parse: parseStandup,
    exactOutput: true,
  },
  {
    // check renders every tier, as flate does (plan only those that can hold a Flux Kustomization).
    name: 'standup check (kustomize binary)',
    kustomize: standupKustomize(pathWithBench(process.env.PATH ?? '')),
    missing: () => (existsSync(path.join(BENCH_BIN, 'kustomize')) ? null : `no ${path.join(BENCH_BIN, 'kustomize')} (run scripts/bench/setup-peers.sh)`),
    command: standupCmd('check'),
    env: (e) => ({ ...e, PATH: pathWithBench(e.PATH ?? '') }),
    parse: parseCheck,
    exactOutput: true,
  },
  {
    name: 'flux-local get ks',
    kustomize: `\`flux build ks\` per Kustomization (${path.join(BENCH_BIN, 'flux')}, kustomize/api linked in) + ${path.join(BENCH_BIN, 'kustomize')} (\`kustomize cfg grep\`)`,
    missing: fluxLocalMissing,
    // --skip-invalid-kustomization-paths: joryirving's fenrir-crds takes ./crds from an external GitRepository;
    // without the flag flux-local looks for it in this repository and stops (standup lists it as external).
    command: (_repo, entry) => [FLUX_LOCAL, 'get', 'ks', ...FLUX_LOCAL_KS_FLAGS, '--path', entry],
    env: fluxLocalEnv,
    parse: parseFluxLocalTable,
    graphCommand: (_repo, entry) => [FLUX_LOCAL_PY, FLUX_LOCAL_GRAPH, 'ks', ...FLUX_LOCAL_KS_FLAGS, '--path', entry],
  },
  {
    // Opt-in: flux-local's experimental Orchestrator (a simulated source- and kustomize-controller that waits out
    // each dependsOn before it builds). It has no --skip-invalid-kustomization-paths, so joryirving stops early.
    name: 'flux-local get ks-new',
    optIn: true,
    kustomize: `\`flux build ks\` per Kustomization (${path.join(BENCH_BIN, 'flux')})`,
    missing: fluxLocalMissing,
    command: (_repo, entry) => [FLUX_LOCAL, 'get', 'ks-new', '-A', '--path', entry],
    env: fluxLocalEnv,
    parse: parseFluxLocalTable,
    graphCommand: (_repo, entry) => [FLUX_LOCAL_PY, FLUX_LOCAL_GRAPH, 'ks-new', '--path', entry],
  },
  {
    // Opt-in: the same engine as get ks with the cluster selector (and HelmReleases on); from bjw-s's entry it
    // listed 4 of the 93 Kustomizations, so it is not the command that derives the graph compared here.
    name: 'flux-local get cluster',
    optIn: true,
    kustomize: `\`flux build ks\` per Kustomization (${path.join(BENCH_BIN, 'flux')}) + ${path.join(BENCH_BIN, 'kustomize')} (\`kustomize cfg grep\`)`,
    missing: fluxLocalMissing,
    command: (_repo, entry) => [FLUX_LOCAL, 'get', 'cluster', '--path', entry, '-o', 'yaml'],
    env: fluxLocalEnv,
    parse: parseFluxLocalCluster,
    graphCommand: (_repo, entry) => [FLUX_LOCAL_PY, FLUX_LOCAL_GRAPH, 'cluster', '--path', entry],
  },
  {
    // As a user here runs it: offline, each chart-source fetch first waits on DNS (1.5-15 s, in steps of ~5 s).
    name: 'flate (DNS waits)',
    kustomize: 'kustomize/api linked in',
    missing: flateMissing,
    command: flateCmd,
    env: (e) => ({ ...e, PATH: pathWithBench(e.PATH ?? '') }),
    parse: parseFlate,
  },
  {
    // What flate itself costs: the same fetches, refused at once (see refuseAll).
    name: 'flate (fetches fail at once)',
    kustomize: 'kustomize/api linked in',
    missing: flateMissing,
    command: flateCmd,
    env: refuseAll,
    parse: parseFlate,
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Measuring

/**
 * One series of a tool on a repository: cold, warm (the same TMPDIR and XDG_CACHE_HOME again) and edit (warm after
 * a comment is appended to repo.edit, restored afterwards).
 */
async function measureSeries(tool: Tool, repo: RepoCase, repoDir: string, n: number, outDir: string): Promise<Run[]> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'standup-bench-run-'));
  const tmp = path.join(scratch, 'tmp');
  const xdg = path.join(scratch, 'cache');
  mkdirSync(tmp);
  mkdirSync(xdg);
  const env = { ...tool.env(process.env), TMPDIR: tmp, XDG_CACHE_HOME: xdg };
  const editFile = path.join(repoDir, repo.edit);
  const original = readFileSync(editFile, 'utf8');
  const out: Run[] = [];
  let coldStdout: string | null = null;
  let coldKeys: string | null = null;
  try {
    for (const mode of MODES) {
      if (mode === 'edit') writeFileSync(editFile, `${original}\n# bench edit ${n}\n`);
      const r = await measureOnce(tool, repo, repoDir, n, mode, env, outDir);
      const stem = runStem(outDir, repo, tool.name, n, mode);
      const stdout = readFileSync(`${stem}.out`, 'utf8');
      const keys = existsSync(`${stem}.keys`) ? readFileSync(`${stem}.keys`, 'utf8') : null;
      if (mode === 'cold') {
        coldStdout = stdout;
        coldKeys = keys;
      } else {
        // A comment changes no output: edit must print what cold printed, too.
        r.sameAsCold = tool.exactOutput ? stdout === coldStdout : keys !== null && keys === coldKeys;
      }
      out.push(r);
    }
  } finally {
    writeFileSync(editFile, original);
    rmSync(scratch, { recursive: true, force: true });
  }
  return out;
}

const runStem = (outDir: string, repo: RepoCase, tool: string, n: number, mode: Mode) => path.join(outDir, `${repo.id}.${tool.replace(/\W+/g, '_')}.${n}.${mode}`);

async function measureOnce(tool: Tool, repo: RepoCase, repoDir: string, n: number, mode: Mode, env: NodeJS.ProcessEnv, outDir: string): Promise<Run> {
  const stem = runStem(outDir, repo, tool.name, n, mode);
  const timeFile = `${stem}.time`;
  const cmd = tool.command(repoDir, repo.entry);
  const t = await timeCommand(cmd, { cwd: repoDir, env, stdout: `${stem}.out`, stderr: `${stem}.err`, timeFile, sampleMs: SAMPLE_MS });
  const stdout = readFileSync(`${stem}.out`, 'utf8');
  const stderr = readFileSync(`${stem}.err`, 'utf8');
  let graph: Graph | null = null;
  let parseError: string | null = null;
  try {
    graph = tool.parse(stdout);
    if (graph.keys.size > 0) writeFileSync(`${stem}.keys`, [...graph.keys].sort().join('\n') + '\n');
  } catch (e) {
    parseError = (e as Error).message.split('\n')[0] ?? 'parse error';
  }
  return {
    repo: repo.id,
    tool: tool.name,
    run: n,
    mode,
    sameAsCold: null,
    exitCode: t.exitCode,
    wallS: t.wallS,
    maxRssKiB: t.maxRssKiB,
    treeRssKiB: t.treeRssKiB,
    cpuS: t.cpuS,
    load1: t.load1,
    kustomizations: graph && graph.keys.size > 0 ? graph.keys.size : null,
    edges: graph && graph.keys.size > 0 ? graph.edges : null,
    parseError,
    stderrTail: stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 400),
  };
}

/** flux-local needs a git work tree (it asks git for the repository root); the corpus is plain directories. */
function gitCopy(repo: RepoCase): { dir: string; placeholders: string[] } {
  const src = path.join(CORPUS, repo.dir);
  const dst = path.join(BENCH_HOME, 'repos', repo.dir);
  rmSync(dst, { recursive: true, force: true });
  mkdirSync(path.dirname(dst), { recursive: true });
  cpSync(src, dst, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=bench@localhost', '-c', 'user.name=bench', ...args], { cwd: dst, stdio: 'ignore' });
  const placeholders = fillGeneratorInputs(dst);
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'corpus copy for the plan benchmark');
  return { dir: dst, placeholders };
}

/**
 * Other engineers edit this work tree while the benchmark runs; --standup-rev REV measures a clean export of that
 * commit instead (git archive, with this checkout's node_modules linked in), so the numbers name one commit.
 */
function exportStandup(rev: string): { dir: string; label: string } {
  const sha = execFileSync('git', ['rev-parse', '--verify', `${rev}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = path.join(BENCH_HOME, 'standup', sha);
  if (!existsSync(path.join(dir, 'bin', 'standup.js'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${sha} | tar -x -C "$1"`, 'sh', dir], { cwd: ROOT });
  }
  if (!existsSync(path.join(dir, 'node_modules'))) symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  // Compiled as `npm ci` would (the prepare script), so the export runs dist/ like an installed checkout does.
  if (!existsSync(path.join(dir, 'dist', 'cli', 'main.js'))) execFileSync(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], { cwd: dir, stdio: 'inherit' });
  return { dir, label: `commit ${sha.slice(0, 12)} (clean export of ${rev})` };
}

function workTreeLabel(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'bin'], { cwd: ROOT, encoding: 'utf8' }).trim();
    return `work tree at ${sha}${dirty ? ` plus uncommitted changes in src/ or bin/ (${dirty.split('\n').length} files)` : ''}`;
  } catch {
    return `work tree ${ROOT}`;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Report

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? NaN) : ((s[m - 1] ?? NaN) + (s[m] ?? NaN)) / 2;
};
const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;

interface GraphPass {
  kustomizations: number | null;
  edges: number | null;
  error: string | null;
}

/** Runs tool.graphCommand once (untimed) and keeps its keys for keyDiff. */
function graphPass(tool: Tool, repo: RepoCase, repoDir: string, outDir: string): GraphPass | null {
  if (!tool.graphCommand) return null;
  const [bin, ...args] = tool.graphCommand(repoDir, repo.entry);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'standup-bench-graph-'));
  try {
    const stdout = execFileSync(bin!, args, { cwd: repoDir, env: { ...tool.env(process.env), TMPDIR: scratch }, encoding: 'utf8', maxBuffer: 256 * 2 ** 20, stdio: ['ignore', 'pipe', 'pipe'] });
    const g = parseGraphRows(stdout);
    writeFileSync(path.join(outDir, `${repo.id}.${tool.name.replace(/\W+/g, '_')}.graph.json`), stdout);
    writeFileSync(path.join(outDir, `${repo.id}.${tool.name.replace(/\W+/g, '_')}.graph.keys`), [...g.keys].sort().join('\n') + '\n');
    return { kustomizations: g.keys.size, edges: g.edges, error: null };
  } catch (e) {
    const err = e as Error & { stderr?: string };
    return { kustomizations: null, edges: null, error: (err.stderr || err.message).trim().split('\n').slice(-2).join(' | ').slice(0, 300) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const PLAN = 'standup plan (kustomize binary)';
const CHECK = 'standup check (kustomize binary)';

/** peer / standup, both medians of the same mode: how many times longer the peer takes. */
function ratio(runs: Run[], tool: string, versus: string, mode: Mode): string {
  const a = median(runs.filter((r) => r.tool === tool && r.mode === mode).map((r) => r.wallS));
  const b = median(runs.filter((r) => r.tool === versus && r.mode === mode).map((r) => r.wallS));
  return Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}x` : '-';
}

function table(repo: RepoCase, runs: Run[], skipped: Map<string, string>, passes: Map<string, GraphPass>): string {
  const lines = [
    `### ${repo.id} (\`${repo.dir}\`, entry \`${repo.entry}\`)`,
    '',
    `| tool | mode | wall median | wall runs | CPU user+sys median | CPU runs | max RSS (largest process) | peak RSS (process tree) | wall vs plan | wall vs check | Kustomizations | dependsOn edges | output as cold | exit | load (1 min) |`,
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const tool of TOOLS) {
    const all = runs.filter((r) => r.tool === tool.name);
    if (!all.length) {
      if (skipped.has(tool.name)) lines.push(`| ${tool.name} | - | skipped: ${skipped.get(tool.name)} | | | | | | | | | | | | |`);
      continue;
    }
    for (const mode of MODES) {
      const rs = all.filter((r) => r.mode === mode);
      if (!rs.length) continue;
      const ks = [...new Set(rs.map((r) => (r.kustomizations === null ? (r.parseError ? `unparsed (${r.parseError})` : '-') : String(r.kustomizations))))].join(' / ');
      const gp = passes.get(tool.name);
      const edges = gp
        ? gp.error
          ? `graph pass failed: ${gp.error}`
          : `${gp.edges} (graph pass${gp.kustomizations !== rs[0]?.kustomizations ? `, ${gp.kustomizations} Kustomizations` : ''})`
        : [...new Set(rs.map((r) => (r.edges === null ? '-' : String(r.edges))))].join(' / ');
      const same = mode === 'cold' ? '-' : rs.every((r) => r.sameAsCold) ? 'same' : `differs (${rs.filter((r) => !r.sameAsCold).length} of ${rs.length})`;
      const exits = [...new Set(rs.map((r) => r.exitCode))].join(' / ');
      lines.push(
        `| ${tool.name} | ${mode} | ${median(rs.map((r) => r.wallS)).toFixed(2)} s | ${rs.map((r) => r.wallS.toFixed(2)).join(', ')} | ${median(rs.map((r) => r.cpuS)).toFixed(2)} s | ${rs.map((r) => r.cpuS.toFixed(2)).join(', ')} | ` +
          `${mib(median(rs.map((r) => r.maxRssKiB)))} | ${mib(median(rs.map((r) => r.treeRssKiB)))} | ${ratio(runs, tool.name, PLAN, mode)} | ${ratio(runs, tool.name, CHECK, mode)} | ${ks} | ${edges} | ${same} | ${exits} | ` +
          `${Math.min(...rs.map((r) => r.load1)).toFixed(1)}–${Math.max(...rs.map((r) => r.load1)).toFixed(1)} |`,
      );
    }
  }
  return lines.join('\n');
}

/** The fair comparison in one table: each peer's median wall time over standup's, per repository and mode. */
function summary(repos: RepoCase[], runs: Run[]): string {
  const peers = TOOLS.filter((t) => !t.name.startsWith('standup') && runs.some((r) => r.tool === t.name));
  const lines = [
    `| repository | mode | ${PLAN} | ${CHECK} | ${peers.map((p) => `${p.name} (vs plan / vs check)`).join(' | ')} |`,
    `|---|---|---|---|${peers.map(() => '---|').join('')}`,
  ];
  const med = (repo: string, tool: string, mode: Mode) => median(runs.filter((r) => r.repo === repo && r.tool === tool && r.mode === mode).map((r) => r.wallS));
  for (const repo of repos) {
    for (const mode of MODES) {
      const plan = med(repo.id, PLAN, mode);
      const check = med(repo.id, CHECK, mode);
      const cell = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)} s` : '-');
      const rel = (x: number, b: number) => (Number.isFinite(x) && Number.isFinite(b) && b > 0 ? `${(x / b).toFixed(1)}x` : '-');
      lines.push(`| ${repo.id} | ${mode} | ${cell(plan)} | ${cell(check)} | ${peers.map((p) => { const x = med(repo.id, p.name, mode); return `${cell(x)} (${rel(x, plan)} / ${rel(x, check)})`; }).join(' | ')} |`);
    }
  }
  return lines.join('\n');
}

/** Keys one tool found that the baseline did not, and the reverse (from the first run of each). */
function keyDiff(outDir: string, repo: RepoCase, tool: string, baseline: string): string | null {
  const read = (t: string) => {
    const f = path.join(outDir, `${repo.id}.${t.replace(/\W+/g, '_')}.1.cold.keys`);
    return existsSync(f) ? new Set(readFileSync(f, 'utf8').split('\n').filter(Boolean)) : null;
  };
  const a = read(baseline);
  const b = read(tool);
  if (!a || !b) return null;
  const g = path.join(outDir, `${repo.id}.${tool.replace(/\W+/g, '_')}.graph.keys`);
  if (existsSync(g)) {
    const gk = new Set(readFileSync(g, 'utf8').split('\n').filter(Boolean));
    const same = gk.size === b.size && [...gk].every((k) => b.has(k));
    if (!same) return `${tool}: its graph pass found other keys than its timed output (${gk.size} vs ${b.size}); compare ${g}`;
  }
  const onlyPeer = [...b].filter((k) => !a.has(k));
  const onlyBase = [...a].filter((k) => !b.has(k));
  const show = (xs: string[]) => (xs.length > 12 ? `${xs.slice(0, 12).join(', ')}, … (${xs.length})` : xs.join(', ') || 'none');
  const nodes =
    !onlyPeer.length && !onlyBase.length
      ? `${tool}: the same ${a.size} namespace/name keys as ${baseline}`
      : `${tool} vs ${baseline}: only in ${tool}: ${show(onlyPeer)}; only in ${baseline}: ${show(onlyBase)}`;
  // Edges: the baseline's JSON output vs the peer's graph pass.
  const baseOut = path.join(outDir, `${repo.id}.${baseline.replace(/\W+/g, '_')}.1.cold.out`);
  const peerGraph = path.join(outDir, `${repo.id}.${tool.replace(/\W+/g, '_')}.graph.json`);
  const peerOut = path.join(outDir, `${repo.id}.${tool.replace(/\W+/g, '_')}.1.cold.out`);
  const edgeSet = (rows: { key: string; dependsOn: string[] }[]) => new Set(rows.flatMap((r) => r.dependsOn.map((d) => `${r.key} -> ${d}`)));
  let edges = '';
  try {
    const baseRows = (JSON.parse(readFileSync(baseOut, 'utf8')) as { clusters: { kustomizations: { key: string; dependsOn: string[] }[] }[] }).clusters.flatMap((c) => c.kustomizations);
    let peerRows: { key: string; dependsOn: string[] }[] | null = null;
    if (existsSync(peerGraph)) {
      peerRows = (JSON.parse(readFileSync(peerGraph, 'utf8')) as { namespace: string | null; name: string; dependsOn: string[] }[]).map((r) => ({ key: key(r.namespace, r.name), dependsOn: r.dependsOn }));
    } else if (tool.startsWith('standup')) {
      peerRows = (JSON.parse(readFileSync(peerOut, 'utf8')) as { clusters: { kustomizations: { key: string; dependsOn: string[] }[] }[] }).clusters.flatMap((c) => c.kustomizations);
    }
    if (peerRows) {
      const ea = edgeSet(baseRows);
      const eb = edgeSet(peerRows);
      const ob = [...eb].filter((x) => !ea.has(x));
      const oa = [...ea].filter((x) => !eb.has(x));
      edges = !ob.length && !oa.length ? `; the same ${ea.size} dependsOn edges` : `; dependsOn edges only in ${tool}: ${show(ob)}; only in ${baseline}: ${show(oa)}`;
    }
  } catch (e) {
    edges = `; edges not compared (${(e as Error).message.split('\n')[0]})`;
  }
  return nodes + edges;
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let runs = 3;
  const repoFilter: string[] = [];
  const toolFilter: string[] = [];
  let jsonOut: string | null = null;
  let standupRev: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const v = () => {
      const x = args[++i];
      if (x === undefined) throw new Error(`${a} needs a value`);
      return x;
    };
    if (a === '--runs') runs = Number(v());
    else if (a === '--repo') repoFilter.push(v());
    else if (a === '--tool') toolFilter.push(v());
    else if (a === '--json') jsonOut = path.resolve(v());
    else if (a === '--standup-rev') standupRev = v();
    else if (a === '-h' || a === '--help') {
      console.log('usage: npm run bench:plan -- [--runs N] [--repo sulibot|joryirving|bjw-s]... [--tool NAME-SUBSTRING]... [--json FILE] [--standup-rev REV]');
      return;
    } else throw new Error(`unknown argument ${a}`);
  }
  if (!existsSync('/usr/bin/time')) throw new Error('/usr/bin/time is missing: apt-get install -y time (or run scripts/bench/setup-peers.sh)');
  if (!existsSync(CORPUS)) throw new Error(`corpus not found at ${CORPUS} (set STANDUP_CORPUS)`);

  let standupLabel = workTreeLabel();
  if (standupRev) ({ dir: standupRoot, label: standupLabel } = exportStandup(standupRev));
  const repos = REPOS.filter((r) => !repoFilter.length || repoFilter.includes(r.id));
  // --tool NAME: that tool if a name matches exactly, else every tool whose name contains NAME.
  const picked = (t: Tool) => toolFilter.some((f) => (TOOLS.some((x) => x.name === f) ? t.name === f : t.name.includes(f)));
  const tools = TOOLS.filter((t) => (toolFilter.length ? picked(t) : !t.optIn));
  const skipped = new Map<string, string>();
  for (const t of tools) {
    const why = t.missing();
    if (why) {
      skipped.set(t.name, why);
      console.log(`skip ${t.name}: ${why}`);
    }
  }
  const active = tools.filter((t) => !skipped.has(t.name));
  // Keys are compared with standup plan rendering with the same kustomize binary the peers get on PATH.
  const baseline = (active.find((t) => t.name === PLAN) ?? active.find((t) => t.name.startsWith('standup plan')) ?? TOOLS[0]!).name;
  closedPort = await freePort();
  const outDir = path.join(BENCH_HOME, 'out', new Date().toISOString().replace(/[:.]/g, '-'));
  mkdirSync(outDir, { recursive: true });

  const cpu = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown';
  console.log(`# standup plan benchmark, ${new Date().toISOString()}`);
  console.log(`machine: ${os.availableParallelism()} cores (${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB; node ${process.version}`);
  console.log(`load average at start: ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}`);
  console.log(`standup: ${standupLabel}`);
  console.log(`runs per tool: ${runs} series of cold (fresh process, empty TMPDIR and XDG_CACHE_HOME), warm (again, same dirs) and edit (warm after one file changed); outputs in ${outDir}`);
  console.log(`flate (fetches fail at once): HTTPS_PROXY and HTTP_PROXY at http://127.0.0.1:${closedPort}, where nothing listens`);
  for (const t of active) console.log(`  ${t.name}: renders with ${t.kustomize}`);

  const all: Run[] = [];
  const tables: string[] = [];
  for (const repo of repos) {
    const { dir: repoDir, placeholders } = gitCopy(repo);
    console.log(`${repo.id}: copied to ${repoDir}, ${placeholders.length} empty placeholder(s) for generator inputs the corpus left out`);
    const runsHere: Run[] = [];
    // Interleave the tools (run 1 of each, then run 2 of each, ...) so a change in background load hits all alike.
    for (let n = 1; n <= runs; n++) {
      for (const tool of active) {
        for (const r of await measureSeries(tool, repo, repoDir, n, outDir)) {
          runsHere.push(r);
          all.push(r);
          console.error(
            `${repo.id} ${tool.name} #${n} ${r.mode}: ${r.wallS.toFixed(2)} s, max RSS ${mib(r.maxRssKiB)}, tree ${mib(r.treeRssKiB)}, cpu ${r.cpuS.toFixed(2)} s, exit ${r.exitCode}, ` +
              `${r.kustomizations ?? '-'} Kustomizations${r.sameAsCold === false ? ', OUTPUT DIFFERS FROM COLD' : ''}, load ${r.load1.toFixed(2)}${r.exitCode !== 0 || r.parseError ? ` | ${r.parseError ?? ''} ${r.stderrTail}` : ''}`,
          );
        }
      }
    }
    const passes = new Map<string, GraphPass>();
    for (const tool of active) {
      const gp = graphPass(tool, repo, repoDir, outDir);
      if (gp) {
        passes.set(tool.name, gp);
        console.error(`${repo.id} ${tool.name} graph pass: ${gp.error ?? `${gp.kustomizations} Kustomizations, ${gp.edges} dependsOn edges`}`);
      }
    }
    const t = table(repo, runsHere, skipped, passes);
    const diffs = active.filter((x) => x.name !== baseline).map((x) => keyDiff(outDir, repo, x.name, baseline)).filter((x): x is string => !!x);
    tables.push([t, '', `- ${placeholders.length} generator inputs the corpus left out were created empty in the copy: ${placeholders.join(', ') || 'none'}`, ...diffs.map((d) => `- ${d}`)].join('\n'));
  }
  console.log(`load average at end: ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}`);
  console.log('');
  console.log(summary(repos, all));
  console.log('');
  console.log(tables.join('\n\n'));
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ date: new Date().toISOString(), cpu, runs: all, skipped: Object.fromEntries(skipped) }, null, 2) + '\n');
}

/** A loopback port nothing listens on: bound once to learn a free one, then closed (connections are refused). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

main().catch((e: unknown) => {
  console.error(`bench:plan: ${(e as Error).message}`);
  process.exit(1);
});
