// client-node's KubernetesObjectApi machinery (discovery, URL building, auth, TLS, middleware) with raw JSON in and
// out: its typed (de)serializer renames or drops fields it has a model for (a CRD's
// `x-kubernetes-preserve-unknown-fields` and `$ref` vanish from an apply body; timestamps become Date objects).

import { ApiException, HttpMethod, KubernetesObjectApi, type KubeConfig, type RequestContext, type ResponseContext } from '@kubernetes/client-node';
import { NoKindError } from './errors.js';

export class RawObjectApi extends KubernetesObjectApi {
  useContextNamespace(kc: KubeConfig): void {
    this.setDefaultNamespace(kc);
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

  /** One request; `signal` replaces the client's default per-request timeout (a short liveness probe). */
  async send(method: HttpMethod, path: string, query: Record<string, string | undefined>, body?: unknown, contentType?: string, signal?: AbortSignal): Promise<unknown> {
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
