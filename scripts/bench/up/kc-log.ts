// kustomize-controller's own account of each reconcile, from its log (log-lines.ts).
import { goDurationMs, parseLogLines, subject, type LogLine } from './log-lines.js';

export { goDurationMs } from './log-lines.js';

export interface KcReconcile {
  /** Kustomization key, `namespace/name`. */
  key: string;
  /** Kustomization name (kept for older callers). */
  name: string;
  /** When the controller logged "Reconciliation finished" (ms since the epoch). */
  finishedAt: number;
  /** The duration the controller reports for that reconcile ("Reconciliation finished in 270.2ms"). */
  durationMs: number;
  /** When that reconcile's server-side apply completed (ms since the epoch); null when the log has no such line. */
  appliedAt: number | null;
  revision: string;
}

const lines = (log: string | LogLine[]) => (typeof log === 'string' ? parseLogLines(log) : log);

/** Every successful reconcile ("Reconciliation finished in ...") of a Kustomization, in log order. */
export function kcReconciles(log: string | LogLine[]): KcReconcile[] {
  const out: KcReconcile[] = [];
  const applied = new Map<string, number>(); // reconcileID -> "server-side apply completed"
  for (const l of lines(log)) {
    const s = subject(l);
    if (!s || s.kind !== 'Kustomization' || l.level !== 'INFO') continue;
    if (l.message.startsWith('server-side apply completed')) applied.set(s.reconcileID, l.at);
    const m = /^Reconciliation finished in (\S+?),/.exec(l.message);
    if (!m) continue;
    const slash = s.key.indexOf('/');
    out.push({ key: s.key, name: s.key.slice(slash + 1), finishedAt: l.at, durationMs: goDurationMs(m[1]!), appliedAt: applied.get(s.reconcileID) ?? null, revision: typeof l.fields.revision === 'string' ? l.fields.revision : '' });
  }
  return out;
}

/** How often each Kustomization was turned away with "Dependencies do not meet ready condition", by key. */
export function kcDependencyRetries(log: string | LogLine[]): Map<string, number> {
  const n = new Map<string, number>();
  for (const l of lines(log)) {
    const s = subject(l);
    if (!s || s.kind !== 'Kustomization' || !l.message.startsWith('Dependencies do not meet ready condition')) continue;
    n.set(s.key, (n.get(s.key) ?? 0) + 1);
  }
  return n;
}
