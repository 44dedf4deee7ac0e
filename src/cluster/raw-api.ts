// Requests over client-node's connection machinery (auth, TLS, proxies, middleware: its Configuration), with raw JSON
// in and out, and the discovery and URL building of its KubernetesObjectApi, kept exactly (resource, specUriPath in
// client-node 1.4.0's object.js). Not that class itself: its typed (de)serializer renames or drops fields it has a
// model for (a CRD's `x-kubernetes-preserve-unknown-fields` and `$ref` vanish from an apply body; timestamps become
// Date objects), and it pulls every generated model into the bundle: half of the cluster client's code, ~60 ms of
// CPU at the start of every command that talks to a cluster.

import { ApiException, HttpMethod, type Configuration, type KubeConfig, type RequestContext, type ResponseContext } from '@kubernetes/client-node';
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


/** What discovery says of one kind (an APIResourceList entry). */
interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

export class RawObjectApi {
  /** Objects without a namespace go to this one: the context's, else `default` (kubectl's rule). */
  private defaultNamespace = 'default';
  /** Discovery answers by apiVersion: asked again only for a kind the cached answer lacks (a CRD added since). */
  private readonly discovered = new Map<string, { resources: ApiResource[] }>();
  /** Discovery of an apiVersion under way: a second request for it waits for that answer (then cached) instead. */
  private readonly discovering = new Map<string, Promise<unknown>>();

  constructor(private readonly configuration: Configuration) {}

  useContextNamespace(kc: KubeConfig): void {
    const namespace = kc.currentContext ? kc.getContextObject(kc.currentContext)?.namespace : undefined;
    if (namespace) this.defaultNamespace = namespace;
  }

  // The GET and the dry-run an apply sends side by side would otherwise each discover the same group.
  async resource(apiVersion: string, kind: string): Promise<ApiResource | undefined> {
    // Set before any await: a caller that finds nothing under way must register its own question at once.
    for (let under = this.discovering.get(apiVersion); under; under = this.discovering.get(apiVersion)) await under.catch(() => undefined);
    const known = this.discovered.get(apiVersion)?.resources.find((r) => r.kind === kind);
    if (known) return known;
    const asked = this.discover(apiVersion);
    this.discovering.set(apiVersion, asked);
    try {
      return (await asked).resources.find((r) => r.kind === kind);
    } finally {
      if (this.discovering.get(apiVersion) === asked) this.discovering.delete(apiVersion);
    }
  }

  private async discover(apiVersion: string): Promise<{ resources: ApiResource[] }> {
    const ctx = this.configuration.baseServer.makeRequestContext(apiVersionPath(apiVersion), HttpMethod.GET);
    ctx.setHeaderParam('Accept', 'application/json, */*;q=0.8');
    try {
      const list = (await this.request(ctx)) as { resources?: ApiResource[] };
      const answer = { resources: list.resources ?? [] };
      this.discovered.set(apiVersion, answer);
      return answer;
    } catch (e) {
      if (e instanceof Error) e.message = `Failed to fetch resource metadata for ${apiVersion}: ${e.message}`;
      throw e;
    }
  }

  /** The resource URL for an object (`list` → the collection; no namespace = all namespaces). */
  async pathFor(spec: { apiVersion: string; kind: string; name?: string; namespace?: string | null }, action: 'read' | 'list' | 'patch' | 'delete'): Promise<string> {
    let res;
    try {
      res = await this.resource(spec.apiVersion, spec.kind);
    } catch (e) {
      // A group/version the server does not serve.
      if (e instanceof ApiException && e.code === 404) throw new NoKindError(spec.apiVersion, spec.kind, { cause: e });
      throw e;
    }
    if (!res) throw new NoKindError(spec.apiVersion, spec.kind);
    const namespace = spec.namespace || (res.namespaced && action !== 'list' ? this.defaultNamespace : undefined);
    const parts = [apiVersionPath(spec.apiVersion)];
    if (res.namespaced && namespace) parts.push('namespaces', encodeURIComponent(namespace));
    parts.push(res.name);
    if (action !== 'list') {
      if (!spec.name) throw new Error('Required spec property name is not set');
      parts.push(encodeURIComponent(spec.name));
    }
    return parts.join('/').toLowerCase();
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
    return this.request(ctx);
  }

  /** As client-node's generated APIs send: credentials, then each middleware's pre, the HTTP call, each post. */
  private async request(ctx: RequestContext): Promise<unknown> {
    const { authMethods, middleware, httpApi } = this.configuration;
    for (const auth of [authMethods.BearerToken, authMethods.default]) await auth?.applySecurityAuthentication(ctx);
    for (const m of middleware) ctx = await m.pre(ctx).toPromise();
    let response = await httpApi.send(ctx).toPromise();
    for (const m of middleware) response = await m.post(response).toPromise();
    return parseAnswer(response);
  }
}

/** The API's root for an apiVersion: /api/v1 for the core group, /apis/GROUP/VERSION for the others. */
const apiVersionPath = (apiVersion: string): string => `/${apiVersion.includes('/') ? 'apis' : 'api'}/${apiVersion}`;

async function parseAnswer(response: ResponseContext): Promise<unknown> {
  const text = await response.body.text();
  if (response.httpStatusCode >= 200 && response.httpStatusCode <= 299) return text ? JSON.parse(text) : {};
  throw new ApiException(response.httpStatusCode, 'Unsuccessful HTTP Request', text, response.headers);
}
