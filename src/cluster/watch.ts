// A list-watch loop that survives the API server: relists on 410 Gone, resumes from the last resourceVersion when
// the server ends a watch (timeoutSeconds), and reconnects with capped exponential backoff when the server goes away
// (ECONNREFUSED during an apiserver restart). It has no client-node import: node-client.ts supplies the transport,
// tests supply a fake one and an instant delay.

import type { K8sObject } from './client.js';

/** What the loop needs from the API: one LIST, and one WATCH from a resourceVersion. */
export interface ListWatchTransport<T> {
  list(signal: AbortSignal): Promise<{ items: T[]; resourceVersion: string }>;
  /**
   * Streams events to `onEvent` until the server closes the stream (resolve) or the connection fails (reject; an HTTP
   * error carries `statusCode`). Must resolve promptly when `signal` aborts.
   */
  watch(
    resourceVersion: string,
    timeoutSeconds: number,
    onEvent: (type: string, object: unknown) => void,
    signal: AbortSignal,
  ): Promise<void>;
}

export type DelayFn = (ms: number, signal: AbortSignal) => Promise<void>;

export interface ListWatchOptions<T> {
  /** Passed to the server; it ends the watch after this long and the loop resumes. Default 300. */
  timeoutSeconds?: number;
  /** A watch silent for timeoutSeconds + this is presumed dead (half-open TCP) and resumed. Default 30 000. */
  idleGraceMs?: number;
  /** Reconnect backoff: 1 s doubling to 30 s, reset after a successful LIST or a watch that delivered events. */
  backoff?: { initialMs: number; maxMs: number; factor: number };
  /** Injected so unit tests run without real time. */
  delay?: DelayFn;
  /** Called before each backoff wait (for logs and tests). */
  onRetry?: (r: { error: unknown; attempt: number; delayMs: number }) => void;
  /** Called when the server answers 410 Gone and the loop relists. */
  onGone?: () => void;
  /** Map key; default `namespace/name`. */
  key?: (o: T) => string;
}

/** Resolves after `ms`, or early (without error) when `signal` aborts. */
export const realDelay: DelayFn = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

const statusCodeOf = (e: unknown): number | undefined => {
  const c = (e as { statusCode?: unknown; code?: unknown } | null)?.statusCode ?? (e as { status?: unknown } | null)?.status;
  return typeof c === 'number' ? c : undefined;
};

/** 401/403 will not heal by retrying: end the iteration with the error instead of looping forever. */
const isFatal = (e: unknown): boolean => {
  const c = statusCodeOf(e);
  return c === 401 || c === 403;
};

const defaultKey = (o: unknown): string => {
  const m = (o as K8sObject).metadata;
  return m.namespace ? `${m.namespace}/${m.name}` : m.name;
};

/**
 * Yields a full snapshot (key → object) after the initial LIST, after every relist and after each change. Snapshots
 * produced faster than the consumer reads them are coalesced into the latest. Ends when `signal` aborts or the
 * consumer stops; throws only for errors that cannot heal (401, 403).
 */
export async function* listWatch<T>(
  t: ListWatchTransport<T>,
  signal: AbortSignal,
  o: ListWatchOptions<T> = {},
): AsyncGenerator<Map<string, T>, void, undefined> {
  const timeoutSeconds = o.timeoutSeconds ?? 300;
  const idleMs = timeoutSeconds * 1000 + (o.idleGraceMs ?? 30_000);
  const backoff = o.backoff ?? { initialMs: 1000, maxMs: 30_000, factor: 2 };
  const delay = o.delay ?? realDelay;
  const key = o.key ?? defaultKey;
  const stop = new AbortController();
  const onOuterAbort = () => stop.abort();
  signal.addEventListener('abort', onOuterAbort, { once: true });
  if (signal.aborted) stop.abort();

  let store = new Map<string, T>();
  let pending: Map<string, T> | undefined;
  let wake: (() => void) | undefined;
  let finished = false;
  let failure: unknown;
  const publish = () => {
    pending = new Map(store);
    wake?.();
  };

  async function run(): Promise<void> {
    let rv: string | undefined;
    let attempt = 0;
    const sig = stop.signal;
    while (!sig.aborted) {
      try {
        if (rv === undefined) {
          const l = await t.list(sig);
          if (sig.aborted) return;
          store = new Map(l.items.map((i) => [key(i), i]));
          rv = l.resourceVersion;
          attempt = 0;
          publish();
        }
        const watchAbort = new AbortController();
        const onStop = () => watchAbort.abort();
        sig.addEventListener('abort', onStop, { once: true });
        let idle = setTimeout(() => watchAbort.abort(), idleMs);
        let gone = false;
        let watchError: unknown;
        let events = 0;
        try {
          await t.watch(
            rv,
            timeoutSeconds,
            (type, obj) => {
              if (watchAbort.signal.aborted) return;
              clearTimeout(idle);
              idle = setTimeout(() => watchAbort.abort(), idleMs);
              const m = (obj as K8sObject | undefined)?.metadata;
              if (type === 'ERROR') {
                const st = obj as { code?: number; reason?: string; message?: string };
                if (st?.code === 410 || st?.reason === 'Expired' || st?.reason === 'Gone') gone = true;
                else watchError = Object.assign(new Error(`watch error: ${st?.message ?? JSON.stringify(obj)}`), { statusCode: st?.code });
                watchAbort.abort();
                return;
              }
              if (m?.resourceVersion) rv = m.resourceVersion;
              attempt = 0; // the connection works: a later failure starts the backoff afresh
              if (type === 'BOOKMARK') return;
              events++;
              if (type === 'DELETED') store.delete(key(obj as T));
              else if (type === 'ADDED' || type === 'MODIFIED') store.set(key(obj as T), obj as T);
              else return;
              publish();
            },
            watchAbort.signal,
          );
        } finally {
          clearTimeout(idle);
          sig.removeEventListener('abort', onStop);
        }
        if (sig.aborted) return;
        if (gone) {
          rv = undefined; // 410: our resourceVersion is too old; relist immediately
          o.onGone?.();
          continue;
        }
        if (watchError) throw watchError;
        if (events > 0) attempt = 0;
        // A clean close (the server's timeoutSeconds, or our idle watchdog) resumes from rv. Back off only when
        // the server keeps closing at once without events, so a misbehaving proxy cannot make us spin.
        else if (attempt > 0) await backoffWait(new Error('watch closed without events'));
      } catch (e) {
        if (sig.aborted) return;
        if (statusCodeOf(e) === 410) {
          rv = undefined;
          o.onGone?.();
          continue;
        }
        if (isFatal(e)) throw e;
        await backoffWait(e);
      }
    }

    async function backoffWait(error: unknown) {
      attempt++;
      const delayMs = Math.min(backoff.maxMs, backoff.initialMs * backoff.factor ** (attempt - 1));
      o.onRetry?.({ error, attempt, delayMs });
      await delay(delayMs, sig);
    }
  }

  const running = run()
    .catch((e: unknown) => {
      failure = e;
    })
    .finally(() => {
      finished = true;
      wake?.();
    });
  try {
    for (;;) {
      if (pending) {
        const snap = pending;
        pending = undefined;
        yield snap;
        continue;
      }
      if (finished) {
        if (failure !== undefined && !signal.aborted) throw failure;
        return;
      }
      await new Promise<void>((r) => (wake = r));
      wake = undefined;
    }
  } finally {
    stop.abort();
    signal.removeEventListener('abort', onOuterAbort);
    await running;
  }
}

/**
 * The polling alternative: a LIST every `intervalMs`, yielding each result. Errors back off like listWatch.
 * STACK.md's recommendation for a short CLI wait; listWatch costs fewer requests per minute.
 */
export async function* pollList<T>(
  list: (signal: AbortSignal) => Promise<{ items: T[] }>,
  signal: AbortSignal,
  o: { intervalMs?: number; delay?: DelayFn; key?: (o: T) => string; onRetry?: ListWatchOptions<T>['onRetry']; backoff?: ListWatchOptions<T>['backoff'] } = {},
): AsyncGenerator<Map<string, T>, void, undefined> {
  const delay = o.delay ?? realDelay;
  const key = o.key ?? defaultKey;
  const backoff = o.backoff ?? { initialMs: 1000, maxMs: 30_000, factor: 2 };
  let attempt = 0;
  while (!signal.aborted) {
    try {
      const l = await list(signal);
      attempt = 0;
      if (signal.aborted) return;
      yield new Map(l.items.map((i) => [key(i), i]));
      await delay(o.intervalMs ?? 2000, signal);
    } catch (e) {
      if (signal.aborted) return;
      if (isFatal(e)) throw e;
      attempt++;
      const delayMs = Math.min(backoff.maxMs, backoff.initialMs * backoff.factor ** (attempt - 1));
      o.onRetry?.({ error: e, attempt, delayMs });
      await delay(delayMs, signal);
    }
  }
}
