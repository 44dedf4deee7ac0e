// helm-controller's and source-controller's accounts, from their logs (log-lines.ts): when each HelmRelease's
// successful attempt began and when its release was in sync, and how long the root source's fetch took.
import { parseLogLines, subject, type LogLine } from './log-lines.js';

export interface HelmReconcile {
  /** HelmRelease key, `namespace/name`. */
  key: string;
  /**
   * Start of the attempt that installed it: its "all dependencies are ready" line (after being turned away), else
   * the controller's first line about it. Waiting out --requeue-dependency is not part of the release's own time.
   */
  startedAt: number;
  /** The last "running '<action>' action" before that: Helm's own install (or upgrade), its wait included. */
  actionStartedAt: number;
  /** "release in-sync with desired state": installed, and ready as far as Helm's wait goes. */
  readyAt: number;
  /** "dependencies do not meet ready condition" lines before that. */
  dependencyRetries: number;
  /** When it was first turned away for its dependsOn (ms since the epoch), if it was. */
  firstTurnedAwayAt: number | null;
}

const lines = (log: string | LogLine[]) => (typeof log === 'string' ? parseLogLines(log) : log);

/** The first time each HelmRelease's release was in sync, with the start of the attempt that got it there. */
export function helmReconciles(log: string | LogLine[]): Map<string, HelmReconcile> {
  const first = new Map<string, number>();
  const depsReady = new Map<string, number>();
  const retries = new Map<string, number>();
  const action = new Map<string, number>();
  const turned = new Map<string, number>();
  const out = new Map<string, HelmReconcile>();
  for (const l of lines(log)) {
    const s = subject(l);
    if (!s || s.kind !== 'HelmRelease' || out.has(s.key)) continue;
    if (!first.has(s.key)) first.set(s.key, l.at);
    if (l.message.startsWith('dependencies do not meet ready condition')) {
      retries.set(s.key, (retries.get(s.key) ?? 0) + 1);
      if (!turned.has(s.key)) turned.set(s.key, l.at);
    }
    if (l.message === 'all dependencies are ready') depsReady.set(s.key, l.at);
    if (/^running '\w+' action/.test(l.message)) action.set(s.key, l.at);
    if (l.message === 'release in-sync with desired state') {
      out.set(s.key, { key: s.key, startedAt: depsReady.get(s.key) ?? first.get(s.key)!, actionStartedAt: action.get(s.key) ?? l.at, readyAt: l.at, dependencyRetries: retries.get(s.key) ?? 0, firstTurnedAwayAt: turned.get(s.key) ?? null });
    }
  }
  return out;
}

/**
 * source-controller's first artifact of a source (`Kind` as in the log, `namespace/name`): when it first looked at it
 * and when it had the artifact ("stored artifact" for a GitRepository, "pulled '<chart>' chart" for a HelmChart).
 */
export function sourceFetch(log: string | LogLine[], kind: string, key: string): { startedAt: number; storedAt: number } | null {
  let startedAt: number | null = null;
  for (const l of lines(log)) {
    const s = subject(l);
    if (!s || s.kind !== kind || s.key !== key) continue;
    startedAt ??= l.at;
    if (l.message.startsWith('stored artifact') || /^pulled '.*' chart/.test(l.message) || /^packaged '.*' chart/.test(l.message)) return { startedAt, storedAt: l.at };
  }
  return null;
}

/**
 * How many Helm actions ran at once, from each release's action start to in-sync: the share of time that `workers`
 * or more ran (helm-controller's workers all busy) and the mean, over the span from the first start to the last end.
 */
export function helmBusy(recs: Iterable<HelmReconcile>, workers: number): { spanMs: number; fullShare: number; mean: number; max: number } {
  const ev: [number, number][] = [];
  for (const r of recs) ev.push([r.actionStartedAt, 1], [r.readyAt, -1]);
  ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (ev.length === 0) return { spanMs: 0, fullShare: 0, mean: 0, max: 0 };
  let n = 0;
  let max = 0;
  let full = 0;
  let area = 0;
  for (let i = 0; i < ev.length; i++) {
    n += ev[i]![1];
    max = Math.max(max, n);
    const dt = (ev[i + 1]?.[0] ?? ev[i]![0]) - ev[i]![0];
    area += n * dt;
    if (n >= workers) full += dt;
  }
  const span = ev[ev.length - 1]![0] - ev[0]![0];
  return { spanMs: span, fullShare: span > 0 ? full / span : 0, mean: span > 0 ? area / span : 0, max };
}
