// A request's deadline as an AbortSignal that fires on Node 20 whatever the garbage collector does.
//
// AbortSignal.timeout(ms) given to AbortSignal.any() never fires once a garbage collection runs before it does
// (nodejs/node#57736, fixed after Node 20): the combined signal holds its sources weakly and the timeout's timer holds
// its signal weakly, so nothing keeps the timeout alive. A request to an API server that accepts the connection and
// never answers then waited forever: the bundled CLI hung in preflight where the same code run from src/ (another
// pattern of collections) gave up after 30 s. Here the timer holds its controller; unref'd, it keeps no process alive.

/** Aborts after `ms` with a TimeoutError, as AbortSignal.timeout does. */
export function timeoutSignal(ms: number): AbortSignal {
  const c = new AbortController();
  setTimeout(() => c.abort(new DOMException(`The operation was aborted due to timeout (${ms} ms)`, 'TimeoutError')), ms).unref();
  return c.signal;
}
