// The benchmark's Markdown: per graph, the variants side by side, the physical limit, standup's API traffic and
// resources, and where standup's time goes.
import { levelCount, releaseCount, type GraphSpec } from './graph-spec.js';
import type { RunResult } from './run.js';

export const median = (xs: number[]): number => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const sec = (ms: number | null | undefined) => (ms === null || ms === undefined || !Number.isFinite(ms) ? '–' : `${(ms / 1000).toFixed(2)} s`);
const s1 = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(1) : '–');
const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}x` : '–');
const mib = (kib: number | null | undefined) => (kib ? `${Math.round(kib / 1024)} MiB` : '–');
const range = (xs: number[]) => (xs.length ? `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}` : '–');

/** Counts of the graph, as `standup plan` would see them. */
export function describeGraph(g: GraphSpec): string {
  const edges = g.tiers.reduce((n, t) => n + t.dependsOn.length, 0);
  const waits = g.tiers.filter((t) => t.wait).length;
  const checks = g.tiers.filter((t) => t.healthChecks.length > 0).length;
  const hrDeps = g.tiers.reduce((n, t) => n + t.helmReleases.reduce((m, r) => m + r.dependsOn.length, 0), 0);
  return `${g.tiers.length + (g.root.inEntry ? 1 : 0)} Kustomizations, ${edges} dependsOn edges, ${levelCount(g)} levels, ${waits} with wait: true, ${checks} with healthChecks, ${releaseCount(g)} HelmReleases (${hrDeps} HelmRelease dependsOn)`;
}

const CONTROLLERS = ['kustomize-controller', 'helm-controller', 'source-controller', 'kube-apiserver', 'etcd'];

/** The largest of the per-controller worker bounds of a run (measure.ts), ms; NaN without measurements. */
const workerBound = (r: RunResult) => (r.measured?.workerBound ? Math.max(r.measured.workerBound.kustomize, r.measured.workerBound.helm, r.measured.workerBound.charts) : NaN);
const boundName = (r: RunResult | undefined) => {
  const b = r?.measured?.workerBound;
  if (!b) return '–';
  const [name, , w] = ([['kustomize-controller', b.kustomize, b.workers.kustomize], ['helm-controller', b.helm, b.workers.helm], ['source-controller', b.charts, b.workers.source]] as const).reduce((a, x) => (x[1] > a[1] ? x : a));
  return `${name}, ${w} workers`;
};

export function graphReport(g: GraphSpec, results: RunResult[], o: { seed: number; delaySeconds: [number, number] }): string {
  const out: string[] = [];
  const byVariant = new Map<string, RunResult[]>();
  for (const r of results) byVariant.set(r.variant, [...(byVariant.get(r.variant) ?? []), r]);
  const standupRuns = byVariant.get('standup') ?? [...byVariant].find(([id]) => id.startsWith('standup'))?.[1] ?? [];
  const ref = median(standupRuns.filter((r) => r.ok).map((r) => r.allReadyMs ?? NaN));
  out.push(`#### ${g.name}: ${describeGraph(g)}`, '');
  out.push(`From ${g.origin}. Readiness delay per HelmRelease ${o.delaySeconds[0]}–${o.delaySeconds[1]} s (seed ${o.seed}).`, '');
  out.push('| variant | runs | all Ready, median | all Ready, runs | Kustomizations Ready, median | ratio to standup | limit (longest path), median | ratio to the limit | worker bound, median | ratio to max(limit, bound) | load (1 min) |');
  out.push('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [id, rs] of byVariant) {
    const ok = rs.filter((r) => r.ok);
    const all = median(ok.map((r) => r.allReadyMs ?? NaN));
    const lim = median(ok.map((r) => r.limit?.ms ?? NaN));
    const bound = median(ok.map((r) => workerBound(r)));
    const both = median(ok.map((r) => Math.max(r.limit?.ms ?? NaN, workerBound(r))));
    const runs = rs.map((r) => (r.ok ? s1(r.allReadyMs ?? NaN) : 'failed')).join(', ');
    out.push(`| ${id} | ${rs.length} | ${sec(all)} | ${runs} | ${sec(median(ok.map((r) => r.kustomizationsReadyMs ?? NaN)))} | ${ratio(all, ref)} | ${sec(lim)} | ${ratio(all, lim)} | ${sec(bound)} (${boundName(ok[0])}) | ${ratio(all, both)} | ${range(rs.flatMap((r) => [r.loadBefore[0]!, r.loadAfter[0]!]))} |`);
  }
  out.push('', 'CPU seconds during the run (t0 to all Ready, from /proc; median), and helm-controller\'s workers:', '');
  out.push(`| variant | ${CONTROLLERS.join(' | ')} | kubelet + containerd | Helm installs at once (mean / max) | all helm workers busy | release time queued, total |`);
  out.push(`|---|${CONTROLLERS.map(() => '---|').join('')}---|---|---|---|`);
  for (const [id, rs] of byVariant) {
    const ok = rs.filter((r) => r.ok && r.measured?.helmBusy);
    const cpu = (c: string) => s1(median(ok.map((r) => r.cpuMs[c] ?? NaN)));
    const node = s1(median(ok.map((r) => (r.cpuMs['kubelet'] ?? 0) + (r.cpuMs['containerd'] ?? 0))));
    const busy = ok.map((r) => r.measured!.helmBusy).filter((b) => b.max > 0);
    const queued = median(ok.map((r) => Object.values(r.measured!.helmQueuedMs).reduce((a, b) => a + b, 0)));
    out.push(`| ${id} | ${CONTROLLERS.map(cpu).join(' | ')} | ${node} | ${busy.length ? `${median(busy.map((b) => b.mean)).toFixed(1)} / ${Math.max(...busy.map((b) => b.max))} of ${busy[0]!.workers}` : '–'} | ${busy.length ? `${Math.round(median(busy.map((b) => b.fullShare)) * 100)}% of ${s1(median(busy.map((b) => b.spanMs)))} s` : '–'} | ${busy.length ? `${s1(queued)} s` : '–'} |`);
  }
  const failed = results.filter((r) => !r.ok);
  if (failed.length) {
    out.push('', 'Failed runs:');
    for (const r of failed) out.push(`- ${r.variant} run ${r.run}: ${r.error}`);
  }
  const limitless = results.filter((r) => r.ok && !r.limit);
  for (const r of limitless) out.push(`- ${r.variant} run ${r.run}: no limit: ${r.limitMissing.slice(0, 5).join('; ')}`);

  if (standupRuns.length) {
    out.push('', 'standup, per run (API traffic from the audit log, spawn to exit; resources from GNU time, kustomize children included):', '');
    out.push('| run | all Ready | exit | limit | ratio to the limit | API requests + watches | writes | requests/min | requests/min while tiers converge | peak RSS | CPU user+sys |');
    out.push('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const r of standupRuns) {
      const s = r.standup;
      out.push(`| ${r.run} | ${sec(r.allReadyMs)} | ${sec(s?.exitMs)} | ${sec(r.limit?.ms)} | ${ratio(r.allReadyMs ?? NaN, r.limit?.ms ?? NaN)} | ${s?.api ? `${s.api.requests} + ${s.api.watches}` : '–'} | ${s?.api?.writes ?? '–'} | ${s?.api?.perMinute ?? '–'} | ${s?.apiWaiting ? `${s.apiWaiting.perMinute} (${s.apiWaiting.requests} in ${s1(s.apiWaiting.windowMs)} s)` : '–'} | ${mib(s?.maxRssKiB)} | ${s?.cpuUserS !== null && s?.cpuUserS !== undefined ? `${(s.cpuUserS + (s.cpuSysS ?? 0)).toFixed(2)} s` : '–'} |`);
    }
    const med = standupRuns.filter((r) => r.ok && r.limit).sort((a, b) => (a.allReadyMs ?? 0) - (b.allReadyMs ?? 0))[Math.floor(standupRuns.filter((r) => r.ok && r.limit).length / 2)];
    if (med?.limit) {
      out.push('', `The limit's longest path in standup run ${med.run} (${sec(med.limit.ms)}; ms since the root source could be fetched, each step's own time from the controllers' logs):`, '');
      out.push(...med.limit.path.map((p) => `1. ${p}`));
    }
    const phases = standupRuns.filter((r) => r.ok && r.standup).map((r) => phase(r));
    if (phases.length) {
      out.push('', 'Where standup\'s time goes (ms since spawn, from the arrival of its JSON events; median of its runs):', '');
      out.push('| phase | median | runs |', '|---|---|---|');
      for (const k of Object.keys(phases[0]!)) out.push(`| ${k} | ${median(phases.map((p) => p[k]!)).toFixed(0)} ms | ${phases.map((p) => p[k]!.toFixed(0)).join(', ')} |`);
    }
  }
  const sum = (o: Record<string, number> | undefined) => Object.values(o ?? {}).reduce((a, b) => a + b, 0);
  const retries = [...byVariant].map(([id, rs]) => {
    const kc = median(rs.map((r) => sum(r.kcDependencyRetries)));
    const hc = median(rs.map((r) => sum(r.measured?.helmDependencyRetries)));
    const waited = rs.filter((r) => r.measured?.helmDependencyWaitMs).map((r) => r.measured!.helmDependencyWaitMs);
    const n = median(waited.map((w) => Object.keys(w).length));
    return `${id}: ${kc} / ${hc}${n ? `, ${n} releases waited ${s1(median(waited.map(sum)))} s in total after their dependencies were Ready (max ${s1(median(waited.map((w) => Math.max(0, ...Object.values(w)))))} s)` : ''}`;
  });
  out.push('', `"Dependencies do not meet ready condition" (kustomize-controller / helm-controller, all tiers, median) and HelmReleases' --requeue-dependency waits: ${retries.join('; ')}.`);
  return out.join('\n');
}

function phase(r: RunResult): Record<string, number> {
  const s = r.standup!;
  const st = s.steps;
  const tiers = Object.entries(st).filter(([id]) => id.startsWith('tier:'));
  const firstTier = Math.min(...tiers.map(([, x]) => x.start ?? Infinity));
  const lastTier = Math.max(...tiers.map(([, x]) => x.end ?? -Infinity));
  const planEvent = s.events.find((x) => x.e.type === 'plan')?.t ?? NaN;
  const runEnd = s.events.find((x) => x.e.type === 'run-end')?.t ?? NaN;
  return {
    'spawn -> plan event (node start-up, imports, loading the repository, kubeconfig)': planEvent,
    'preflight': st['preflight']?.durationMs ?? NaN,
    'bootstrap (apply the root sync)': st['bootstrap']?.durationMs ?? NaN,
    'source (fetch requested -> artifact)': st['source']?.durationMs ?? NaN,
    'first tier start -> last tier Ready': lastTier - firstTier,
    'last Kustomization Ready -> all HelmReleases Ready (seen by the benchmark)': (r.allReadyMs ?? NaN) - (r.kustomizationsReadyMs ?? NaN),
    'run-end -> process exit': s.exitMs - runEnd,
    'total: spawn -> exit': s.exitMs,
    '(after the run: `standup plan` on the same repository, whole process)': s.planMs,
  };
}

/** Scale runs: one row per graph, standup only. */
export function scaleReport(rows: { g: GraphSpec; r: RunResult }[]): string {
  const out = ['| graph | Kustomizations | levels | all Ready | exit | limit | worker bound | API requests + watches | requests/min | requests/min while tiers converge | peak RSS | CPU user+sys | kustomize-controller CPU | kube-apiserver CPU | load (1 min) |', '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|'];
  for (const { g, r } of rows) {
    const s = r.standup;
    const levels = levelCount(g);
    out.push(`| ${g.name} | ${g.tiers.length + 1} | ${levels} | ${r.ok ? sec(r.allReadyMs) : `failed: ${r.error}`} | ${sec(s?.exitMs)} | ${sec(r.limit?.ms)} | ${sec(workerBound(r))} | ${s?.api ? `${s.api.requests} + ${s.api.watches}` : '–'} | ${s?.api?.perMinute ?? '–'} | ${s?.apiWaiting ? `${s.apiWaiting.perMinute}` : '–'} | ${mib(s?.maxRssKiB)} | ${s?.cpuUserS !== null && s?.cpuUserS !== undefined ? `${(s.cpuUserS + (s.cpuSysS ?? 0)).toFixed(2)} s` : '–'} | ${s1(r.cpuMs['kustomize-controller'] ?? NaN)} s | ${s1(r.cpuMs['kube-apiserver'] ?? NaN)} s | ${range([r.loadBefore[0]!, r.loadAfter[0]!])} |`);
  }
  return out.join('\n');
}
