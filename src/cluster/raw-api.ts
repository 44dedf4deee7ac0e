// client-node's KubernetesObjectApi machinery (discovery, URL building, auth, TLS, middleware) with raw JSON in and
// out: its typed (de)serializer renames or drops fields it has a model for (a CRD's
// `x-kubernetes-preserve-unknown-fields` and `$ref` vanish from an apply body; timestamps become Date objects).

import { ApiException, HttpMethod, KubernetesObjectApi, type KubeConfig, type RequestContext, type ResponseContext } from '@kubernetes/client-node';
import { NoKindError } from './errors.js';
import { realDelay } from './watch.js';

/** client-go's rest.Request default (maxRetries). */
const MAX_RETRIES = 10;
/** A Retry-After longer than this is cut to it: a CLI waiting on a human keeps asking rather than sleeping on. */
const MAX_WAIT_MS = 10_000;

/**
 * How long to wait before sending again, when the answer asks for it: client-go's checkWait (429 or any 5xx, and a
 * Retry-After of whole seconds). Anything else is not retried here.
 */
export function retryAfterMs(code: number, headers: Record<string, string> | undefined): number | undefined {
  if (code !== 429 && code < 500) return undefined;
  const h = Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === 'retry-after')?.[1];
  if (h === undefined || !/^\d+$/.test(h.trim())) return undefined;
  return Math.min(Number(h.trim()) * 1000, MAX_WAIT_MS);
}


export class RawObjectApi extends KubernetesObjectApi {
  /** Discovery of an apiVersion under way: a second request for it waits for that answer (then cached) instead. */
  private readonly discovering = new Map<string, Promise<unknown>>();

  useContextNamespace(kc: KubeConfig): void {
    this.setDefaultNamespace(kc);
  }

  // client-node caches discovery per apiVersion, but not while it is being asked: the GET and the dry-run an apply now
  // sends side by side would each discover the same group.
  override async resource(...args: Parameters<KubernetesObjectApi['resource']>): ReturnType<KubernetesObjectApi['resource']> {
    const [apiVersion] = args;
    // Set before any await: a caller that finds nothing under way must register its own question at once.
    for (let under = this.discovering.get(apiVersion); under; under = this.discovering.get(apiVersion)) await under.catch(() => undefined);
    const asked = super.resource(...args);
    this.discovering.set(apiVersion, asked);
    try {
      return await asked;
    } finally {
      if (this.discovering.get(apiVersion) === asked) this.discovering.delete(apiVersion);
    }
  }

  /** The resource URL for an object (`list` → the collection; no namespace = all namespaces). */
  async pathFor(spec: { apiVersion: string; kind: string; name?: string; namespace?: string | null }, action: 'read' | 'list' | 'patch' | 'delete'): Promise<string> {
    let res;
    try {
      res = await this.resource(spec.apiVersion, spec.kind);
    } catch (e) {
      // client-node words this "Failed to fetch resource metadata for g/v/K": a group/version the server does not serve.
      if (e instanceof ApiException && e.code === 404) throw new NoKindError(spec.apiVersion, spec.kind, { cause: e });
      throw e;
    }
    if (!res) throw new NoKindError(spec.apiVersion, spec.kind);
    const meta: { name?: string; namespace?: string } = {};
    if (spec.name) meta.name = spec.name;
    if (spec.namespace) meta.namespace = spec.namespace;
    return this.specUriPath({ apiVersion: spec.apiVersion, kind: spec.kind, metadata: meta }, action);
  }

  /**
   * One request; `signal` replaces the client's default per-request timeout (a short liveness probe). An answer the
   * server asks to be retried (429, or 5xx with Retry-After: an apiserver whose storage is re-initialising, API
   * Priority and Fairness shedding load) is sent again after the wait it names, up to client-go's 10 retries.
   */
  async send(method: HttpMethod, path: string, query: Record<string, string | undefined>, body?: unknown, contentType?: string, signal?: AbortSignal): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.sendOnce(method, path, query, body, contentType, signal);
      } catch (e) {
        const waitMs = e instanceof ApiException ? retryAfterMs(e.code, e.headers) : undefined;
        if (waitMs === undefined || attempt >= MAX_RETRIES || signal?.aborted) throw e;
        await realDelay(waitMs, signal ?? new AbortController().signal);
      }
    }
  }

  private sendOnce(method: HttpMethod, path: string, query: Record<string, string | undefined>, body?: unknown, contentType?: string, signal?: AbortSignal): Promise<unknown> {
    const ctx: RequestContext = this.configuration.baseServer.makeRequestContext(path, method);
    if (signal) ctx.setSignal(signal);
    ctx.setHeaderParam('Accept', 'application/json');
    for (const [k, v] of Object.entries(query)) if (v !== undefined) ctx.setQueryParam(k, v);
    if (body !== undefined) {
      ctx.setHeaderParam('Content-Type', contentType ?? 'application/json');
      ctx.setBody(JSON.stringify(body));
    }
    return this.requestPromise(ctx);
  }

  protected override async processResponse<T>(response: ResponseContext): Promise<T> {
    const text = await response.body.text();
    if (response.httpStatusCode >= 200 && response.httpStatusCode <= 299) return (text ? JSON.parse(text) : {}) as T;
    throw new ApiException(response.httpStatusCode, 'Unsuccessful HTTP Request', text, response.headers);
  }
}
