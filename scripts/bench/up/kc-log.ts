// Reads kustomize-controller's own account of each reconcile out of its log (the testbed runs it with
// --log-encoding=console: `<RFC3339 ms>\t<LEVEL>\t<message>\t<JSON fields>`).

export interface KcReconcile {
  /** Kustomization name. */
  name: string;
  /** When the controller logged "Reconciliation finished" (ms since the epoch). */
  finishedAt: number;
  /** The duration the controller reports for that reconcile ("Reconciliation finished in 270.2ms"). */
  durationMs: number;
  revision: string;
}

/** A Go time.Duration string (`641.600822ms`, `1.5s`, `1m2.3s`, `850µs`) in ms. */
export function goDurationMs(s: string): number {
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, 'µs': 0.001, 'μs': 0.001, ns: 1e-6 };
  let total = 0;
  let matched = '';
  for (const m of s.matchAll(/(\d+(?:\.\d+)?)(ms|us|µs|μs|ns|h|m|s)/g)) {
    total += Number(m[1]) * unit[m[2]!]!;
    matched += m[0];
  }
  if (matched !== s) throw new Error(`not a Go duration: ${s}`);
  return total;
}

/** Every successful reconcile ("Reconciliation finished in ...") of a Kustomization, in log order. */
export function kcReconciles(log: string): KcReconcile[] {
  const out: KcReconcile[] = [];
  for (const line of log.split('\n')) {
    const f = line.split('\t');
    // The controller's own line, not the `events` logger's copy of it.
    if (f.length < 4 || f[1] !== 'INFO' || !f[2]!.startsWith('Reconciliation finished in ')) continue;
    const m = /^Reconciliation finished in (\S+?),/.exec(f[2]!);
    if (!m) continue;
    let fields: { controllerKind?: string; name?: string; revision?: string };
    try {
      fields = JSON.parse(f.slice(3).join('\t'));
    } catch {
      continue;
    }
    if (fields.controllerKind !== 'Kustomization' || !fields.name) continue;
    out.push({ name: fields.name, finishedAt: Date.parse(f[0]!), durationMs: goDurationMs(m[1]!), revision: fields.revision ?? '' });
  }
  return out;
}

/** How often each Kustomization was turned away with "Dependencies do not meet ready condition". */
export function kcDependencyRetries(log: string): Map<string, number> {
  const n = new Map<string, number>();
  for (const line of log.split('\n')) {
    const f = line.split('\t');
    if (f.length < 4 || f[1] !== 'INFO' || !f[2]!.startsWith('Dependencies do not meet ready condition')) continue;
    try {
      const name = (JSON.parse(f.slice(3).join('\t')) as { name?: string }).name;
      if (name) n.set(name, (n.get(name) ?? 0) + 1);
    } catch {
      // a line cut short
    }
  }
  return n;
}
