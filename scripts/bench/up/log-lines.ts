// The Flux controllers' log lines as the testbed writes them (--log-encoding=console):
// `<RFC3339 ms>\t<LEVEL>\t<message>\t<JSON fields>`, and for the `events` logger
// `<RFC3339 ms>\t<LEVEL>\tevents\t<message>\t<JSON fields>`. A message with a newline continues on lines of its own.

export interface LogLine {
  /** ms since the epoch. */
  at: number;
  level: string;
  /** 'events' for the event recorder's copies, '' for the controller's own lines. */
  logger: string;
  message: string;
  fields: Record<string, unknown>;
}

export function parseLogLines(text: string): LogLine[] {
  const out: LogLine[] = [];
  for (const line of text.split('\n')) {
    const f = line.split('\t');
    if (f.length < 4) continue;
    const at = Date.parse(f[0]!);
    if (Number.isNaN(at)) continue;
    const events = f.length >= 5 && f[2] === 'events';
    let fields: Record<string, unknown>;
    try {
      fields = JSON.parse(f.slice(events ? 4 : 3).join('\t')) as Record<string, unknown>;
    } catch {
      continue; // a line cut short, or a message that itself held a tab
    }
    out.push({ at, level: f[1]!, logger: events ? 'events' : '', message: events ? f[3]! : f[2]!, fields });
  }
  return out;
}

/** The object a controller line is about: `namespace/name` of the reconciled object and its kind, or null. */
export function subject(l: LogLine): { kind: string; key: string; reconcileID: string } | null {
  const kind = l.fields.controllerKind;
  const name = l.fields.name;
  const namespace = l.fields.namespace;
  if (l.logger || typeof kind !== 'string' || typeof name !== 'string' || typeof namespace !== 'string') return null;
  return { kind, key: `${namespace}/${name}`, reconcileID: typeof l.fields.reconcileID === 'string' ? l.fields.reconcileID : '' };
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

/** Whether a controller has logged "Starting workers" for every named kind: it is serving, not starting up. */
export function workersStarted(log: string | LogLine[], kinds: string[]): boolean {
  const started = new Set<string>();
  for (const l of typeof log === 'string' ? parseLogLines(log) : log) if (l.message === 'Starting workers' && typeof l.fields.controllerKind === 'string') started.add(l.fields.controllerKind);
  return kinds.every((k) => started.has(k));
}
