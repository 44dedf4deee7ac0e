import type { PlanContext } from '../plan/plan.js';
import type { CelEngine } from '../status/cel.js';
import { findCondition, type LiveKustomization, type LiveSource } from '../status/conditions.js';
import { humanizeDurations } from '../status/durations.js';
import { kustomizationReadiness } from '../status/kustomization.js';
import { shortRevision } from '../status/revision.js';
import { sourceReadiness } from '../status/source.js';
import { parseKsKey } from '../model/ref.js';
import { table } from './table.js';

/** One row of `standup status`; the shape of its `-o json`. */
export interface StatusRow {
  key: string;
  level: number | null;
  /** The Ready condition's status as Flux shows it: True, False, Unknown; `-` when the object does not exist. */
  ready: string;
  /** standup's reading with Flux's exact meaning (ready, waiting, failed, stale, …). */
  state: string;
  reason: string;
  revision: string | null;
  /** spec.suspend (false, too, when the object does not exist: `exists` says which). */
  suspended: boolean;
  createdAt: string | null;
  message: string;
  /** The Kustomization exists in the cluster. */
  exists: boolean;
  /**
   * While its health check holds it: what its healthCheckExprs give on the objects they judge, one line each
   * (`SealedSecret/ns/s: InProgress by healthCheckExprs[0] (...): ...`). Absent when it has none or is not held there.
   */
  healthCheckExprs?: string[];
}

/** Builds the rows in tier order from live objects. Pure. */
export function statusRows(
  ctx: PlanContext,
  kss: Map<string, LiveKustomization>,
  sourceOf: (ks: LiveKustomization | undefined, key: string) => LiveSource | undefined,
  cel: CelEngine | null = null,
  healthExprs: ReadonlyMap<string, readonly string[]> = new Map(),
  /** kustomize-controller's AdditiveCELDependencyCheck gate: on, a true readyExpr still needs the dependency Ready. */
  additive = false,
): StatusRow[] {
  return ctx.plan.kustomizations.map((k) => {
    const exprs = healthExprs.get(k.key);
    const live = kss.get(k.key);
    const src = sourceReadiness(sourceOf(live, k.key));
    const r = kustomizationReadiness(live, { sourceRevision: src.revision ?? undefined, dependencyKeys: k.dependsOn, readyExpr: { dependency: (key) => kss.get(key), cel, additive } });
    const ready = findCondition(live?.status?.conditions, 'Ready');
    return {
      key: k.key,
      level: k.level,
      ready: live ? (ready?.status ?? 'False') : '-',
      state: r.state,
      reason: r.reason,
      revision: live?.status?.lastAppliedRevision ?? null,
      suspended: !!live?.spec?.suspend,
      createdAt: live?.metadata.creationTimestamp ?? null,
      // flux get ks prints `waiting to be reconciled` when there is no Ready condition yet.
      message: live ? (r.readyExpr ? r.message : (ready?.message ?? 'waiting to be reconciled')).trim().split('\n')[0]! + (exprs?.length ? `; ${exprs.join('; ')}` : '') : 'not found in the cluster',
      exists: !!live,
      ...(exprs?.length ? { healthCheckExprs: [...exprs] } : {}),
    };
  });
}

/** kubectl's AGE: the largest unit or two (`45s`, `5m12s`, `3h`, `2d`). */
export function age(from: string | null, now: number): string {
  if (!from) return '-';
  const s = Math.max(0, Math.floor((now - Date.parse(from)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 600) return `${Math.floor(s / 60)}m${s % 60 ? `${s % 60}s` : ''}`;
  if (s < 3 * 3600) return `${Math.floor(s / 60)}m`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

export interface TableOptions {
  /** Print the column names (kubectl's --no-headers turns them off). */
  header: boolean;
  /** `wide`: STATE and REASON columns, and MESSAGE whole. */
  wide: boolean;
  /** The terminal's width: MESSAGE is cut to what is left of it (not in wide). */
  columns?: number;
}

/** MESSAGE gets at least this much of a terminal before other columns give way. */
const MIN_MESSAGE = 32;

/**
 * The `flux get ks`-style table, in tier order. At a terminal too narrow for every column and a readable MESSAGE,
 * columns give way before MESSAGE is cut (kubectl's rule: what a row says matters most): SUSPENDED (unless a row is
 * suspended), then AGE, then REVISION shortened to its commit, then LEVEL (the rows are in tier order anyway), then
 * the namespace when every row has the same one (the header names it).
 * `-o wide` has every column, MESSAGE whole.
 */
export function renderStatusTable(rows: StatusRow[], now: number, o: TableOptions = { header: true, wide: false }): string {
  type Col = { name: string; cell: (r: StatusRow) => string };
  let cols: Col[] = [
    { name: 'LEVEL', cell: (r) => (r.level === null ? '-' : String(r.level)) },
    { name: 'NAME', cell: (r) => r.key },
    { name: 'READY', cell: (r) => r.ready },
    { name: 'REVISION', cell: (r) => shortRevision(r.revision) || '-' },
    { name: 'SUSPENDED', cell: (r) => (r.exists ? (r.suspended ? 'True' : 'False') : '-') },
    { name: 'AGE', cell: (r) => age(r.createdAt, now) },
    ...(o.wide ? [{ name: 'STATE', cell: (r: StatusRow) => r.state }, { name: 'REASON', cell: (r: StatusRow) => r.reason }] : []),
    { name: 'MESSAGE', cell: (r) => humanizeDurations(shortRevision(r.message)) },
  ];
  const columns = o.columns;
  if (!o.wide && columns) {
    const fixed = (cs: Col[]) => cs.slice(0, -1).reduce((n, c) => n + Math.max(o.header ? c.name.length : 0, ...rows.map((r) => c.cell(r).length)) + 2, 0);
    const giveWay: ((cs: Col[]) => Col[])[] = [
      (cs) => (rows.some((r) => r.suspended) ? cs : cs.filter((c) => c.name !== 'SUSPENDED')),
      (cs) => cs.filter((c) => c.name !== 'AGE'),
      (cs) => cs.map((c) => (c.name === 'REVISION' ? { ...c, cell: (r: StatusRow) => commitOf(r.revision) } : c)),
      (cs) => cs.filter((c) => c.name !== 'LEVEL'),
      // Every row in one namespace (`-n`, or a repository that keeps its tiers in flux-system): said once, in the header.
      (cs) => {
        const ns = new Set(rows.map((r) => parseKsKey(r.key).namespace));
        if (ns.size !== 1) return cs;
        const [only] = ns;
        return cs.map((c) => (c.name === 'NAME' ? { name: `NAME (${only}/)`, cell: (r: StatusRow) => parseKsKey(r.key).name } : c));
      },
    ];
    for (const step of giveWay) {
      if (columns - fixed(cols) >= MIN_MESSAGE) break;
      cols = step(cols);
    }
  }
  const lastWidth = !o.wide && columns ? (used: number) => Math.max(10, columns - used - 1) : undefined;
  const cells = rows.map((r) => cols.map((c) => c.cell(r)));
  return rows.length === 0 && !o.header ? '' : table(cols.map((c) => c.name), cells, '  ', { header: o.header, lastWidth }) + '\n';
}

/** A revision as its commit alone (`main@sha1:0123abcd` -> `0123abcd`), for a narrow terminal. */
const commitOf = (rev: string | null): string => {
  const short = shortRevision(rev);
  return short ? short.slice(short.lastIndexOf(':') + 1) : '-';
};
