// The only module that talks to the API server through @kubernetes/client-node (kubeconfig.ts only loads files).
// It uses KubernetesObjectApi's machinery (discovery, URL building, auth, TLS, middleware) but sends and returns raw
// JSON: client-node's typed (de)serializer renames or drops fields it has a model for (a CRD's
// `x-kubernetes-preserve-unknown-fields` and `$ref` vanish from an apply body; timestamps become Date objects).

import {
  ApiException,
  createConfiguration,
  HttpMethod,
  KubernetesObjectApi,
  PatchStrategy,
  ServerConfiguration,
  Watch,
  type KubeConfig,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import {
  refId,
  type ApplyOptions,
  type ApplyResult,
  type ClusterClient,
  type DeleteOptions,
  type K8sObject,
  type KindRef,
  type ListOptions,
  type ObjectRef,
  type ObserveOptions,
  type RequestStats,
} from './client.js';
import { debug } from '../model/debug.js';
import { applyStaged } from './apply.js';
import { ClusterError, ClusterTimeoutError, ConflictError, NoKindError, NotFoundError, type ClusterReason } from './errors.js';
import type { LoadedKubeconfig } from './kubeconfig.js';
import { listWatch, pollList, realDelay, type DelayFn, type ListWatchTransport } from './watch.js';

export interface NodeClientOptions {
  /** Per-request timeout (not watches). Default 30 000 ms. */
  requestTimeoutMs?: number;
  /** Injected delay for retries, CRD polling and watch backoff (tests pass an instant one). */
  delay?: DelayFn;
  /** CRD Established poll interval. Default 500 ms. */
  crdPollMs?: number;
  /** Watch reconnect backoff. */
  backoff?: { initialMs: number; maxMs: number; factor: number };
  onRetry?: (r: { error: unknown; attempt: number; delayMs: number }) => void;
}

/** `404 kustomizations.kustomize.toolkit.fluxcd.io "missing" not found` (STACK.md): code plus the Status message. */
export function k8sMessage(e: unknown): string {
  if (e instanceof ApiException) {
    try {
      return `${e.code} ${(JSON.parse(String(e.body)) as { message?: string }).message}`;
    } catch {
      return `${e.code} ${e.body ?? ''}`;
    }
  }
  return e instanceof Error ? e.message : String(e);
}

/** The HTTP status of a client-node error (ApiException or Watch error), if any. */
export const httpCode = (e: unknown): number | undefined =>
  e instanceof ApiException
    ? e.code
    : typeof (e as { statusCode?: unknown } | null)?.statusCode === 'number'
      ? (e as { statusCode: number }).statusCode
      : e instanceof ClusterError
        ? e.status
        : undefined;

interface Status {
  reason?: string;
  message?: string;
  code?: number;
}

function statusOf(e: ApiException<unknown>): Status {
  try {
    return JSON.parse(String(e.body)) as Status;
  } catch {
    return { message: e.body === undefined ? undefined : String(e.body) };
  }
}

const reasonByCode: Record<number, ClusterReason> = {
  400: 'Invalid',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  408: 'Timeout',
  409: 'Conflict',
  410: 'Gone',
  422: 'Invalid',
  504: 'Timeout',
};

const errnoOf = (e: unknown): string | undefined => {
  const x = e as { code?: unknown; errno?: unknown; cause?: { code?: unknown } } | null;
  const c = x?.code ?? x?.cause?.code ?? x?.errno;
  return typeof c === 'string' ? c : undefined;
};

/** Turns whatever client-node threw into a ClusterError; `ref` makes 404s NotFoundErrors. */
export function toClusterError(e: unknown, server: string, timeoutMs: number, ref?: ObjectRef): ClusterError {
  if (e instanceof ClusterError) return e;
  if (e instanceof ApiException) {
    const st = statusOf(e);
    const reason = reasonByCode[e.code] ?? 'Other';
    const msg = st.message ?? `HTTP ${e.code}`;
    if (e.code === 404 && ref) return new NotFoundError(ref, `${refId(ref)} not found: ${msg}`, { cause: e });
    if (reason === 'Timeout') return new ClusterTimeoutError(`${msg} (HTTP ${e.code})`, { cause: e });
    if (reason === 'Conflict') return new ConflictError(`${ref ? `${refId(ref)}: ` : ''}${msg}`, { cause: e });
    return new ClusterError(reason, `${e.code} ${msg}`, e.code, { cause: e });
  }
  const name = (e as { name?: unknown } | null)?.name;
  if (name === 'AbortError' || name === 'TimeoutError') {
    return new ClusterTimeoutError(`request to the API server ${server} timed out after ${timeoutMs} ms`, { cause: e });
  }
  const errno = errnoOf(e);
  if (errno && /^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE)$/.test(errno)) {
    return new ClusterError('Unreachable', `cannot reach the API server ${server}: ${errno}`, undefined, {
      cause: e,
      hint: 'Is the cluster running, and is this the right context?',
    });
  }
  return new ClusterError('Other', e instanceof Error ? e.message : String(e), undefined, { cause: e });
}

/** KubernetesObjectApi with raw JSON in and out, and discovery failures as NoKindError. */
class RawObjectApi extends KubernetesObjectApi {
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

  async send(method: HttpMethod, path: string, query: Record<string, string | undefined>, body?: unknown, contentType?: string): Promise<unknown> {
    const ctx: RequestContext = this.configuration.baseServer.makeRequestContext(path, method);
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

const established = (crd: K8sObject | undefined): boolean =>
  ((crd?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some(
    (c) => c.type === 'Established' && c.status === 'True',
  );

/** Creates the client for a loaded kubeconfig (its context is already chosen and validated). */
export function createClusterClient(loaded: LoadedKubeconfig, o: NodeClientOptions = {}): NodeClusterClient {
  return new NodeClusterClient(loaded.kc, loaded.context, loaded.server, o);
}

export class NodeClusterClient implements ClusterClient {
  private readonly api: RawObjectApi;
  private readonly timeoutMs: number;
  private readonly delay: DelayFn;
  private counters: RequestStats = { requests: 0, watches: 0, relists: 0, since: Date.now() };

  constructor(
    private readonly kc: KubeConfig,
    readonly context: string,
    readonly server: string,
    private readonly o: NodeClientOptions = {},
  ) {
    this.timeoutMs = o.requestTimeoutMs ?? 30_000;
    this.delay = o.delay ?? realDelay;
    const timeoutMs = this.timeoutMs;
    const counters = () => this.counters;
    const config = createConfiguration({
      baseServer: new ServerConfiguration(server, {}),
      authMethods: { default: kc },
      // client-node 1.4.0 has no request timeout of its own: a hung API server would hang standup forever.
      promiseMiddleware: [
        {
          pre: async (ctx: RequestContext) => {
            counters().requests++;
            ctx.setSignal(AbortSignal.timeout(timeoutMs));
            debug(() => `api ${ctx.getHttpMethod()} ${ctx.getUrl()}`);
            return ctx;
          },
          post: async (r: ResponseContext) => (debug(() => `api -> ${r.httpStatusCode}`), r),
        },
      ],
    });
    this.api = new RawObjectApi(config);
    this.api.useContextNamespace(kc); // objects without a namespace go to the context's, as kubectl does
  }

  stats(): RequestStats {
    return { ...this.counters };
  }

  resetStats(): void {
    this.counters = { requests: 0, watches: 0, relists: 0, since: Date.now() };
  }

  private fail(e: unknown, ref?: ObjectRef): ClusterError {
    return toClusterError(e, this.server, this.timeoutMs, ref);
  }

  async serverVersion(): Promise<{ gitVersion: string; major?: string; minor?: string }> {
    try {
      return (await this.api.send(HttpMethod.GET, '/version', {})) as { gitVersion: string };
    } catch (e) {
      throw this.fail(e);
    }
  }

  async waitDeleted(ref: ObjectRef, o: { timeoutMs?: number; signal?: AbortSignal; pollMs?: number } = {}): Promise<void> {
    const deadline = Date.now() + (o.timeoutMs ?? 300_000);
    const signal = o.signal ?? new AbortController().signal;
    for (;;) {
      const live = await this.find(ref);
      if (!live) return;
      if (signal.aborted) throw new ClusterTimeoutError(`interrupted while waiting for ${refId(ref)} to be deleted`);
      if (Date.now() >= deadline) {
        const fin = live.metadata.finalizers?.length ? ` (finalizers: ${live.metadata.finalizers.join(', ')})` : '';
        throw new ClusterTimeoutError(`timeout waiting for ${refId(ref)} to be deleted${fin}`);
      }
      await this.delay(o.pollMs ?? 1000, signal);
    }
  }

  async get(ref: ObjectRef): Promise<K8sObject> {
    try {
      return (await this.api.send(HttpMethod.GET, await this.api.pathFor(ref, 'read'), {})) as K8sObject;
    } catch (e) {
      throw this.fail(e, ref);
    }
  }

  async find(ref: ObjectRef): Promise<K8sObject | undefined> {
    try {
      return await this.get(ref);
    } catch (e) {
      if (e instanceof NotFoundError) return undefined;
      throw e;
    }
  }

  async list(kind: KindRef, o: ListOptions = {}): Promise<{ items: K8sObject[]; resourceVersion: string }> {
    try {
      const path = await this.api.pathFor({ apiVersion: kind.apiVersion, kind: kind.kind, namespace: kind.namespace }, 'list');
      const l = (await this.api.send(HttpMethod.GET, path, { labelSelector: o.labelSelector, fieldSelector: o.fieldSelector })) as {
        items?: K8sObject[];
        metadata?: { resourceVersion?: string };
      };
      // A LIST's items carry no apiVersion/kind; put them back so callers get whole objects.
      const items = (l.items ?? []).map((i) => ({ ...i, apiVersion: i.apiVersion ?? kind.apiVersion, kind: i.kind ?? kind.kind }));
      return { items, resourceVersion: l.metadata?.resourceVersion ?? '' };
    } catch (e) {
      throw this.fail(e);
    }
  }

  async patchMerge(ref: ObjectRef, patch: Record<string, unknown>, o: { dryRun?: boolean } = {}): Promise<K8sObject> {
    try {
      const path = await this.api.pathFor(ref, 'patch');
      return (await this.api.send(HttpMethod.PATCH, path, { dryRun: o.dryRun ? 'All' : undefined }, patch, PatchStrategy.MergePatch)) as K8sObject;
    } catch (e) {
      throw this.fail(e, ref);
    }
  }

  async delete(ref: ObjectRef, o: DeleteOptions = {}): Promise<boolean> {
    try {
      const path = await this.api.pathFor(ref, 'delete');
      await this.api.send(HttpMethod.DELETE, path, {
        propagationPolicy: o.propagationPolicy,
        dryRun: o.dryRun ? 'All' : undefined,
      });
      return true;
    } catch (e) {
      const err = this.fail(e, ref);
      if (err instanceof NotFoundError) return false;
      throw err;
    }
  }

  /** One server-side apply request; `dryRun` = the server evaluates it (admission, defaults) and persists nothing. */
  private async ssa(obj: K8sObject, o: ApplyOptions, dryRun: boolean): Promise<K8sObject> {
    const path = await this.api.pathFor({ apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, namespace: obj.metadata.namespace }, 'patch');
    // JSON is YAML, so the apply-patch+yaml content type takes the JSON body as is.
    return (await this.api.send(
      HttpMethod.PATCH,
      path,
      { fieldManager: o.fieldManager, force: String(o.force), dryRun: dryRun ? 'All' : undefined },
      obj,
      PatchStrategy.ServerSideApply,
    )) as K8sObject;
  }

  async apply(objects: readonly K8sObject[], o: ApplyOptions): Promise<ApplyResult[]> {
    return applyStaged(objects, o, {
      find: (ref) => this.find(ref),
      ssa: (obj, opts, dryRun) => this.ssa(obj, opts, dryRun),
      waitEstablished: (names, timeoutMs) => this.waitEstablished(names, { timeoutMs }),
      toError: (e, ref) => {
        const error = this.fail(e, ref);
        const api = error.cause instanceof ApiException ? statusOf(error.cause) : undefined;
        return { error, statusReason: api?.reason, statusMessage: api?.message };
      },
      delay: (ms) => this.delay(ms, new AbortController().signal),
    });
  }

  async waitEstablished(crdNames: readonly string[], o: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<void> {
    const deadline = Date.now() + (o.timeoutMs ?? 60_000);
    const signal = o.signal ?? new AbortController().signal;
    let pending = [...crdNames];
    let last = new Map<string, K8sObject | undefined>();
    for (;;) {
      const next: string[] = [];
      for (const name of pending) {
        const crd = await this.find({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name });
        last.set(name, crd);
        if (!established(crd)) next.push(name);
      }
      pending = next;
      if (pending.length === 0) return;
      if (signal.aborted) throw new ClusterTimeoutError('interrupted while waiting for CRDs to be Established');
      if (Date.now() >= deadline) {
        const why = pending.map((n) => {
          const conds = ((last.get(n)?.status as { conditions?: { type: string; status: string; message?: string }[] } | undefined)?.conditions ?? [])
            .filter((c) => c.status !== 'True')
            .map((c) => `${c.type}=${c.status}${c.message ? ` (${c.message})` : ''}`);
          return `CustomResourceDefinition/${n}${last.get(n) ? (conds.length ? `: ${conds.join(', ')}` : ': no Established condition') : ': not found'}`;
        });
        throw new ClusterTimeoutError(`timeout waiting for CRDs to be Established: [${why.join(', ')}]`);
      }
      await this.delay(this.o.crdPollMs ?? 500, signal);
    }
  }

  /** The list-watch transport for one kind, over client-node's Watch (counted in stats().watches). */
  transport(kind: KindRef): ListWatchTransport<K8sObject> {
    return {
      list: () => this.list(kind),
      watch: async (resourceVersion, timeoutSeconds, onEvent, signal) => {
        let path: string;
        try {
          path = await this.api.pathFor({ apiVersion: kind.apiVersion, kind: kind.kind, namespace: kind.namespace }, 'list');
        } catch (e) {
          throw this.fail(e);
        }
        this.counters.watches++;
        await new Promise<void>((resolve, reject) => {
          let req: AbortController | undefined;
          const onAbort = () => {
            req?.abort();
            resolve();
          };
          signal.addEventListener('abort', onAbort, { once: true });
          const settle = (err: unknown) => {
            signal.removeEventListener('abort', onAbort);
            if (err && !signal.aborted) reject(err);
            else resolve();
          };
          new Watch(this.kc)
            .watch(path, { resourceVersion, allowWatchBookmarks: true, timeoutSeconds }, (type: string, obj: unknown) => onEvent(type, obj), settle)
            .then((c) => {
              req = c;
              if (signal.aborted) c.abort();
            }, settle);
        });
      },
    };
  }

  observe(kind: KindRef, signal: AbortSignal, o: ObserveOptions = {}): AsyncIterable<Map<string, K8sObject>> {
    if (o.pollMs !== undefined) {
      return pollList((s) => this.list(kind), signal, { intervalMs: o.pollMs, delay: this.delay, onRetry: this.o.onRetry, backoff: this.o.backoff });
    }
    return listWatch(this.transport(kind), signal, {
      timeoutSeconds: o.timeoutSeconds ?? 300,
      delay: this.delay,
      backoff: this.o.backoff,
      onRetry: this.o.onRetry,
      onGone: () => this.counters.relists++,
    });
  }
}
