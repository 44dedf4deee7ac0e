// Benchmark: how `standup plan` and `standup check` grow with the fleet. `npm run bench:scale [-- --n 100 --n 1000
// --layout grouped --runs 1 --json FILE]`.
//
// Generates synthetic fleets (scripts/bench/scale-fleet.ts: N = 100, 1,000, 5,000 Kustomizations by default, flat and
// grouped, ~3 dependsOn each, one ConfigMap each) and times, per fleet, a series of four fresh processes under
// `/usr/bin/time -v`: plan cold (empty TMPDIR and XDG_CACHE_HOME), plan warm (again, same dirs), then check cold and
// warm in fresh dirs of their own. Reports CPU (user+sys, children included: kustomize is most of a cold run), wall,
// the peak RSS of the whole process group, the load at the start of each run, CPU per Kustomization, and the growth
// of CPU per Kustomization per doubling of N (1.00x is linear). standup renders with `kustomize` when it is on PATH,
// else `kubectl kustomize`; --kustomize-bin DIR puts DIR first on PATH (scripts/bench/setup-peers.sh's bin/).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateRepository, writeFiles } from './bench/up/generate.js';
import { specProblems } from './bench/up/graph-spec.js';
import { LAYOUTS, scaleFleet, type Layout } from './bench/scale-fleet.js';
import { timeCommand, type Timed } from './bench/time-v.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BENCH_HOME = process.env.STANDUP_BENCH_HOME ?? path.join(os.homedir(), '.cache', 'standup-bench');
const ENTRY = 'clusters/bench';

type Command = 'plan' | 'check';
type Mode = 'cold' | 'warm';

interface Cell extends Timed {
  layout: Layout;
  n: number;
  command: Command;
  mode: Mode;
  run: number;
  kustomizations: number | null;
  /** warm: stdout is byte for byte the cold run's. */
  sameAsCold: boolean | null;
  stderrTail: string;
}

interface Args {
  ns: number[];
  layouts: Layout[];
  commands: Command[];
  runs: number;
  json: string;
  kustomizeBin: string;
}

function parseArgs(argv: string[]): Args {
  const o: Args = { ns: [], layouts: [], commands: [], runs: 1, json: '', kustomizeBin: '' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = () => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`${a} needs a value`);
      return x;
    };
    if (a === '--n') o.ns.push(Number(v()));
    else if (a === '--layout') {
      const l = v();
      if (!LAYOUTS.includes(l as Layout)) throw new Error(`--layout ${l}: one of ${LAYOUTS.join(', ')}`);
      o.layouts.push(l as Layout);
    } else if (a === '--command') {
      const c = v();
      if (c !== 'plan' && c !== 'check') throw new Error(`--command ${c}: plan or check`);
      o.commands.push(c);
    } else if (a === '--runs') o.runs = Number(v());
    else if (a === '--json') o.json = path.resolve(v());
    else if (a === '--kustomize-bin') o.kustomizeBin = path.resolve(v());
    else if (a === '-h' || a === '--help') {
      console.log('usage: npm run bench:scale -- [--n N]... [--layout flat|grouped]... [--command plan|check]... [--runs N] [--json FILE] [--kustomize-bin DIR]');
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  for (const n of o.ns) if (!Number.isInteger(n) || n < 2) throw new Error(`--n ${n}: a whole number of at least 2`);
  if (!o.ns.length) o.ns = [100, 1000, 5000];
  if (!o.layouts.length) o.layouts = [...LAYOUTS];
  if (!o.commands.length) o.commands = ['plan', 'check'];
  return o;
}

/** Writes the fleet's repository (regenerated every time: generation is cheap and the files must be the code's). */
function writeFleet(layout: Layout, n: number): string {
  const g = scaleFleet(n, layout);
  const problems = specProblems(g);
  if (problems.length) throw new Error(`${g.name}: ${problems.join('; ')}`);
  const repo = generateRepository(g, { gitUrl: (r) => `http://127.0.0.1:1/${r}.git`, chartUrl: 'http://127.0.0.1:1/charts', seed: 1, context: 'bench-scale' });
  const dir = path.join(BENCH_HOME, 'scale', g.name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFiles(dir, repo.files);
  return dir;
}

function kustomizationCount(stdout: string): number | null {
  try {
    const j = JSON.parse(stdout) as { clusters?: { kustomizations?: unknown[] }[] };
    return j.clusters ? j.clusters.reduce((s, c) => s + (c.kustomizations?.length ?? 0), 0) : null;
  } catch {
    return null;
  }
}

async function series(a: Args, layout: Layout, n: number, command: Command, run: number, repo: string, outDir: string): Promise<Cell[]> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'standup-bench-scale-'));
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: path.join(scratch, 'tmp'), XDG_CACHE_HOME: path.join(scratch, 'cache') };
  if (a.kustomizeBin) env.PATH = [a.kustomizeBin, env.PATH ?? ''].join(path.delimiter);
  mkdirSync(env.TMPDIR!);
  mkdirSync(env.XDG_CACHE_HOME!);
  const cells: Cell[] = [];
  let cold: string | null = null;
  try {
    for (const mode of ['cold', 'warm'] as Mode[]) {
      const stem = path.join(outDir, `${layout}-${n}.${command}.${run}.${mode}`);
      const cmd = [process.execPath, path.join(ROOT, 'bin', 'standup.js'), command, '--repo', repo, '--path', ENTRY, '-o', 'json'];
      const t = await timeCommand(cmd, { cwd: repo, env, stdout: `${stem}.out`, stderr: `${stem}.err`, timeFile: `${stem}.time` });
      const stdout = readFileSync(`${stem}.out`, 'utf8');
      if (mode === 'cold') cold = stdout;
      const cell: Cell = {
        ...t,
        layout,
        n,
        command,
        mode,
        run,
        kustomizations: command === 'plan' ? kustomizationCount(stdout) : null,
        sameAsCold: mode === 'warm' ? stdout === cold : null,
        stderrTail: readFileSync(`${stem}.err`, 'utf8').trim().split('\n').slice(-3).join(' | ').slice(0, 300),
      };
      cells.push(cell);
      console.error(
        `${layout}-${n} ${command} ${mode} #${run}: cpu ${t.cpuS.toFixed(2)} s, wall ${t.wallS.toFixed(2)} s, tree RSS ${mib(t.treeRssKiB)}, exit ${t.exitCode}, load ${t.load1.toFixed(2)}` +
          `${cell.kustomizations !== null ? `, ${cell.kustomizations} Kustomizations` : ''}${cell.sameAsCold === false ? ', OUTPUT DIFFERS FROM COLD' : ''}${t.exitCode > 1 ? ` | ${cell.stderrTail}` : ''}`,
      );
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return cells;
}

const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;
const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : NaN;
};

/** One table per layout: a row per command, mode and N, with the growth of CPU per Kustomization per doubling of N. */
function table(cells: Cell[], a: Args): string {
  const out: string[] = [];
  for (const layout of a.layouts) {
    out.push(`#### ${layout}`, '');
    out.push('| command | mode | N | CPU user+sys | wall | peak RSS (tree) | CPU per Kustomization | growth per doubling of N | exit | load (1 min) |');
    out.push('|---|---|---|---|---|---|---|---|---|---|');
    for (const command of a.commands) {
      for (const mode of ['cold', 'warm'] as Mode[]) {
        let prev: { n: number; per: number } | null = null;
        for (const n of a.ns) {
          const rs = cells.filter((c) => c.layout === layout && c.n === n && c.command === command && c.mode === mode);
          if (!rs.length) continue;
          const cpu = median(rs.map((r) => r.cpuS));
          const per = cpu / n;
          // (per-Kustomization cost ratio) ^ (1 / doublings): 1.00x when the cost is linear in N.
          const growth = prev ? `${Math.pow(per / prev.per, 1 / Math.log2(n / prev.n)).toFixed(2)}x` : '-';
          const loads = rs.map((r) => r.load1);
          const exits = [...new Set(rs.map((r) => r.exitCode))].join('/');
          const same = mode === 'warm' && rs.some((r) => r.sameAsCold === false) ? ' (output differs from cold)' : '';
          out.push(
            `| ${command} | ${mode} | ${n} | ${cpu.toFixed(2)} s | ${median(rs.map((r) => r.wallS)).toFixed(2)} s | ${mib(median(rs.map((r) => r.treeRssKiB)))} | ` +
              `${(per * 1000).toFixed(2)} ms | ${growth} | ${exits}${same} | ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} |`,
          );
          prev = { n, per };
        }
      }
    }
    out.push('');
  }
  return out.join('\n');
}

function kustomizeLabel(env: NodeJS.ProcessEnv): string {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, 'kustomize'))) return path.join(dir, 'kustomize');
  }
  return 'kubectl kustomize';
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  if (!existsSync('/usr/bin/time')) throw new Error('/usr/bin/time is missing: apt-get install -y time (or run scripts/bench/setup-peers.sh)');
  if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: npm run build');
  const outDir = path.join(BENCH_HOME, 'out', `scale-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(outDir, { recursive: true });
  const cpu = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown';
  let rev = 'unknown';
  try {
    rev = execFileSync('git', ['describe', '--always', '--dirty'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout
  }
  const env = a.kustomizeBin ? { PATH: [a.kustomizeBin, process.env.PATH ?? ''].join(path.delimiter) } : process.env;
  console.log(`# standup scale benchmark, ${new Date().toISOString()}`);
  console.log(`machine: ${os.availableParallelism()} cores (${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB; node ${process.version}; standup ${rev}; kustomize: ${kustomizeLabel(env)}`);
  console.log(`load average at start: ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}`);
  console.log(`N: ${a.ns.join(', ')}; layouts: ${a.layouts.join(', ')}; runs: ${a.runs}; outputs in ${outDir}`);
  const cells: Cell[] = [];
  for (const layout of a.layouts) {
    for (const n of a.ns) {
      const repo = writeFleet(layout, n);
      for (let run = 1; run <= a.runs; run++) for (const command of a.commands) cells.push(...(await series(a, layout, n, command, run, repo, outDir)));
    }
  }
  console.log(`load average at end: ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}`);
  console.log('');
  console.log(table(cells, a));
  if (a.json) writeFileSync(a.json, JSON.stringify({ date: new Date().toISOString(), cpu, rev, cells }, null, 2) + '\n');
}

main().catch((e: unknown) => {
  console.error(`bench:scale: ${(e as Error).message}`);
  process.exit(1);
});
