// The ClusterClient over @kubernetes/client-node (kubeconfig.ts only loads files). Split by verb, as fluxcd/pkg's ssa
// manager is: raw-api.ts sends requests, node-errors.ts translates failures, apply.ts applies in Flux's stages,
// waits.ts polls for deletion and CRD establishment, watch-transport.ts opens watches for watch.ts's list-watch.
// This file wires them to one connection and counts what they do (stats, reachability).

import { createConfiguration, HttpMethod, PatchStrategy, ServerConfiguration, type KubeConfig, type RequestContext, type ResponseContext } from '@kubernetes/client-node';
import type { ApplyOptions, ApplyResult, ClusterClient, DeleteOptions, K8sObject, KindRef, ListOptions, ObserveOptions, RequestStats } from './client.js';
import { debug } from '../model/debug.js';
import { applyStaged } from './apply.js';
import { NotFoundError, type ClusterError } from './errors.js';
import type { LoadedKubeconfig } from './kubeconfig.js';
import { apiStatusOf, isUnreachable, toClusterError } from './node-errors.js';
import { KeepAliveAgents } from './keep-alive.js';
import { RawObjectApi } from './raw-api.js';
import { ReachabilityTracker, type Reachability, type ReachabilityListener } from './reachability.js';
import { timeoutSignal } from './timeout-signal.js';
import { waitDeleted, waitEstablished, type WaitOptions } from './waits.js';
import { listWatch, pollList, realDelay, type DelayFn } from './watch.js';
import { watchTransport } from './watch-transport.js';
import type { ApiRef } from '../model/ref.js';

export interface NodeClientOptions {
  /** Per-request timeout (not watches). Default 30 000 ms. */
  requestTimeoutMs?: number;
  /** Injected delay for retries, CRD polling and watch backoff (tests pass an instant one). */
  delay?: DelayFn;
  /** CRD Established poll interval. Default 500 ms. */
  crdPollMs?: number;
  /** Watch reconnect backoff. Default 1 s doubling to 5 s: a CLI waiting on a handful of kinds reconnects promptly. */
  backoff?: { initialMs: number; maxMs: number; factor: number };
  onRetry?: (r: { error: unknown; attempt: number; delayMs: number }) => void;
}

/** Creates the client for a loaded kubeconfig (its context is already chosen and validated). */
export function createClusterClient(loaded: LoadedKubeconfig, o: NodeClientOptions = {}): NodeClusterClient {
  return new NodeClusterClient(loaded.kc, loaded.context, loaded.server, o);
}

export class NodeClusterClient implements ClusterClient {
  private readonly api: RawObjectApi;
  private readonly timeoutMs: number;
  private readonly delay: DelayFn;
  private readonly backoff: { initialMs: number; maxMs: number; factor: number };
  private readonly reach = new ReachabilityTracker();
  private counters: RequestStats = { requests: 0, watches: 0, relists: 0, since: Date.now() };
  private readonly agents = new KeepAliveAgents();
  private readonly closed = new AbortController();

  constructor(
    private readonly kc: KubeConfig,
    readonly context: string,
    readonly server: string,
    private readonly o: NodeClientOptions = {},
  ) {
    this.timeoutMs = o.requestTimeoutMs ?? 30_000;
    this.delay = o.delay ?? realDelay;
    this.backoff = o.backoff ?? { initialMs: 1000, maxMs: 5000, factor: 2 };
    const timeoutMs = this.timeoutMs;
    const counters = () => this.counters;
    const reach = this.reach;
    const agents = this.agents;
    const closed = this.closed.signal;
    const config = createConfiguration({
      baseServer: new ServerConfiguration(server, {}),
      authMethods: { default: kc },
      // client-node 1.4.0 has no request timeout of its own: a hung API server would hang standup forever.
      promiseMiddleware: [
        {
          pre: async (ctx: RequestContext) => {
            counters().requests++;
            const made = ctx.getAgent();
            if (made) ctx.setAgent(agents.reuse(made) as typeof made);
            ctx.setSignal(AbortSignal.any([ctx.getSignal() ?? timeoutSignal(timeoutMs), closed]));
            debug(() => `api ${ctx.getHttpMethod()} ${ctx.getUrl()}`);
            return ctx;
          },
          post: async (r: ResponseContext) => {
            debug(() => `api -> ${r.httpStatusCode}`);
            reach.ok(); // any HTTP answer, even an error status, proves the server is there
            return r;
          },
        },
      ],
    });
    this.api = new RawObjectApi(config);
    this.api.useContextNamespace(kc); // objects without a namespace go to the context's, as kubectl does
  }

  close(): void {
    this.closed.abort(new Error('the command is done with the cluster'));
    this.agents.close();
  }

  stats(): RequestStats {
    return { ...this.counters };
  }

  resetStats(): void {
    this.counters = { requests: 0, watches: 0, relists: 0, since: Date.now() };
  }

  reachability(): Reachability {
    return this.reach.get();
  }

  onReachability(fn: ReachabilityListener): () => void {
    return this.reach.subscribe(fn);
  }

  private fail(e: unknown, ref?: ApiRef, timeoutMs = this.timeoutMs): ClusterError {
    const err = toClusterError(e, this.server, timeoutMs, ref);
    if (isUnreachable(err)) this.reach.failed(err.message);
    return err;
  }

  async serverVersion(o: { timeoutMs?: number } = {}): Promise<{ gitVersion: string; major?: string; minor?: string }> {
    const timeoutMs = o.timeoutMs ?? this.timeoutMs;
    try {
      return (await this.api.send(HttpMethod.GET, '/version', {}, undefined, undefined, timeoutSignal(timeoutMs))) as { gitVersion: string };
    } catch (e) {
      throw this.fail(e, undefined, timeoutMs);
    }
  }

  async get(ref: ApiRef): Promise<K8sObject> {
    try {
      return (await this.api.send(HttpMethod.GET, await this.api.pathFor(ref, 'read'), {})) as K8sObject;
    } catch (e) {
      throw this.fail(e, ref);
    }
  }

  async find(ref: ApiRef): Promise<K8sObject | undefined> {
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

  async patchMerge(ref: ApiRef, patch: Record<string, unknown>, o: { dryRun?: boolean; fieldManager?: string } = {}): Promise<K8sObject> {
    try {
      const path = await this.api.pathFor(ref, 'patch');
      return (await this.api.send(HttpMethod.PATCH, path, { dryRun: o.dryRun ? 'All' : undefined, fieldManager: o.fieldManager }, patch, PatchStrategy.MergePatch)) as K8sObject;
    } catch (e) {
      throw this.fail(e, ref);
    }
  }

  async delete(ref: ApiRef, o: DeleteOptions = {}): Promise<boolean> {
    try {
      const path = await this.api.pathFor(ref, 'delete');
      await this.api.send(HttpMethod.DELETE, path, { propagationPolicy: o.propagationPolicy, dryRun: o.dryRun ? 'All' : undefined });
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
        const api = apiStatusOf(error);
        return { error, statusReason: api?.reason, statusMessage: api?.message };
      },
      delay: (ms) => this.delay(ms, new AbortController().signal),
    });
  }

  waitDeleted(ref: ApiRef, o: WaitOptions = {}): Promise<void> {
    return waitDeleted({ find: (r) => this.find(r), delay: this.delay }, ref, o);
  }

  waitEstablished(crdNames: readonly string[], o: WaitOptions = {}): Promise<void> {
    return waitEstablished({ find: (r) => this.find(r), delay: this.delay }, crdNames, { pollMs: this.o.crdPollMs, ...o });
  }

  observe(kind: KindRef, signal: AbortSignal, o: ObserveOptions = {}): AsyncIterable<Map<string, K8sObject>> {
    if (o.pollMs !== undefined) {
      return pollList(() => this.list(kind, { labelSelector: o.labelSelector }), signal, { intervalMs: o.pollMs, delay: this.delay, onRetry: this.o.onRetry, backoff: this.backoff });
    }
    const transport = watchTransport(
      {
        kc: this.kc,
        pathFor: (k) => this.api.pathFor({ apiVersion: k.apiVersion, kind: k.kind, namespace: k.namespace }, 'list'),
        list: (k) => this.list(k, { labelSelector: o.labelSelector }),
        fail: (e) => this.fail(e),
        opened: () => {
          this.counters.watches++;
          this.reach.ok();
        },
        alive: () => this.reach.ok(),
      },
      kind,
      o.labelSelector,
    );
    return listWatch(transport, signal, {
      timeoutSeconds: o.timeoutSeconds ?? 300,
      delay: this.delay,
      backoff: this.backoff,
      onRetry: this.o.onRetry,
      onGone: () => this.counters.relists++,
    });
  }
}
