import type { PlanContext } from '../plan/plan.js';
import { findCondition, type LiveKustomization, type LiveSource } from '../status/conditions.js';
import { humanizeDurations } from '../status/durations.js';
import { kustomizationReadiness } from '../status/kustomization.js';
import { shortRevision } from '../status/revision.js';
import { sourceReadiness } from '../status/source.js';
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
}

/** Builds the rows in tier order from live objects. Pure. */
export function statusRows(ctx: PlanContext, kss: Map<string, LiveKustomization>, sourceOf: (ks: LiveKustomization | undefined, key: string) => LiveSource | undefined): StatusRow[] {
  return ctx.plan.kustomizations.map((k) => {
    const live = kss.get(k.key);
    const src = sourceReadiness(sourceOf(live, k.key));
    const r = kustomizationReadiness(live, { sourceRevision: src.revision ?? undefined, dependencyKeys: k.dependsOn });
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
      message: live ? (ready?.message ?? 'waiting to be reconciled').trim().split('\n')[0]! : 'not found in the cluster',
      exists: !!live,
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

/** The `flux get ks`-style table, in tier order. */
export function renderStatusTable(rows: StatusRow[], now: number, o: TableOptions = { header: true, wide: false }): string {
  const header = ['LEVEL', 'NAME', 'READY', 'REVISION', 'SUSPENDED', 'AGE', ...(o.wide ? ['STATE', 'REASON'] : []), 'MESSAGE'];
  const cells = rows.map((r) => [
    r.level === null ? '-' : String(r.level),
    r.key,
    r.ready,
    shortRevision(r.revision) || '-',
    r.exists ? (r.suspended ? 'True' : 'False') : '-',
    age(r.createdAt, now),
    ...(o.wide ? [r.state, r.reason] : []),
    humanizeDurations(shortRevision(r.message)),
  ]);
  const columns = o.columns;
  const lastWidth = !o.wide && columns ? (used: number) => Math.max(10, columns - used - 1) : undefined;
  return rows.length === 0 && !o.header ? '' : table(header, cells, '  ', { header: o.header, lastWidth }) + '\n';
}
