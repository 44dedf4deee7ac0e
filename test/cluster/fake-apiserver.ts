// A small in-memory API server on node:http for unit tests (STACK.md §2 "Tests without a cluster"): discovery,
// GET/LIST, server-side apply (with dryRun=All), merge patch, DELETE, CRDs that become Established, and watches the
// test can script (events, 410 Gone, closes). Good enough to exercise the client; not a Kubernetes.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { LoadedKubeconfig } from '../../src/cluster/kubeconfig.js';

type Obj = { apiVersion: string; kind: string; metadata: Record<string, any>; [k: string]: any };
interface Resource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}
export interface Logged {
  method: string;
  url: string;
  contentType?: string;
  body?: string;
}
interface WatchConn {
  path: string;
  res: ServerResponse;
}

const BUILTIN: Resource[] = [
  { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false },
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
  { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false },
];

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
function merge(a: any, b: any): any {
  if (b === null) return undefined;
  if (typeof a !== 'object' || a === null || Array.isArray(a) || typeof b !== 'object' || Array.isArray(b)) return clone(b);
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const m = merge(a[k], v);
    if (m === undefined) delete out[k];
    else out[k] = m;
  }
  return out;
}
const specOf = (o: Obj) => {
  const { metadata, status: _s, ...rest } = o;
  const { resourceVersion: _r, generation: _g, managedFields: _m, creationTimestamp: _c, uid: _u, ...meta } = metadata;
  return JSON.stringify({ ...rest, meta });
};

export class FakeApiServer {
  resources: Resource[] = [...BUILTIN];
  objects = new Map<string, Obj>();
  log: Logged[] = [];
  rv = 100;
  /** Polls of a CRD that must pass before it reports Established (0 = at once). */
  establishAfterGets = 1;
  private crdGets = new Map<string, number>();
  watches: WatchConn[] = [];
  /** When set, requests matching it hang without an answer (timeouts). */
  hang?: (method: string, url: string) => boolean;
  /** When it returns an answer, the request gets that error status (and Retry-After, when given) instead. */
  busy?: (method: string, url: string) => { code: number; retryAfter?: string; message?: string } | undefined;
  /** Called for each watch request before the stream starts; may answer it itself (return true). */
  onWatch?: (req: { path: string; query: URLSearchParams }, res: ServerResponse) => boolean;
  server!: Server;
  port = 0;

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(port, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Closes the server and every open connection (an API server going away). */
  async stop(): Promise<void> {
    for (const w of this.watches) w.res.destroy();
    this.watches = [];
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  kubeconfig(context = 'fake'): LoadedKubeconfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: this.url, skipTLSVerify: true }],
      users: [{ name: 'u', token: 'x' }],
      contexts: [{ name: context, cluster: 'c', user: 'u' }],
      currentContext: context,
    });
    return { kc, context, server: this.url, namespace: 'default', files: [] };
  }

  writes(): Logged[] {
    return this.log.filter((l) => l.method !== 'GET' && !l.url.includes('dryRun=All'));
  }

  private resFor(group: string, version: string, plural: string) {
    return this.resources.find((r) => r.group === group && r.version === version && r.plural === plural);
  }

  private key(r: Resource, ns: string | undefined, name: string) {
    return `${r.group}/${r.kind}/${r.namespaced ? ns : ''}/${name}`;
  }

  /** Adds or replaces an object directly, as another actor would (and tells watchers). */
  put(o: Obj, event: 'ADDED' | 'MODIFIED' = 'ADDED'): Obj {
    const [g, v] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
    const r = this.resources.find((x) => x.group === g && x.version === v && x.kind === o.kind)!;
    const stored = clone(o);
    stored.metadata.resourceVersion = String(++this.rv);
    stored.metadata.generation ??= 1;
    this.objects.set(this.key(r, o.metadata.namespace, o.metadata.name), stored);
    this.notify(r, event, stored);
    return stored;
  }

  notify(r: Resource, type: string, o: Obj) {
    const prefix = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
    for (const w of this.watches) {
      if (w.path === `${prefix}/${r.plural}` || w.path === `${prefix}/namespaces/${o.metadata.namespace}/${r.plural}`) {
        w.res.write(JSON.stringify({ type, object: o }) + '\n');
      }
    }
  }

  private send(res: ServerResponse, code: number, body: unknown) {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private status(res: ServerResponse, code: number, reason: string, message: string) {
    this.send(res, code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message, code });
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    let body = '';
    for await (const c of req) body += c;
    const url = new URL(req.url!, 'http://x');
    const method = req.method!;
    this.log.push({ method, url: req.url!, contentType: req.headers['content-type'], ...(body ? { body } : {}) });
    if (this.hang?.(method, req.url!)) return; // never answers
    const busy = this.busy?.(method, req.url!);
    if (busy) {
      res.writeHead(busy.code, { 'Content-Type': 'application/json', ...(busy.retryAfter === undefined ? {} : { 'Retry-After': busy.retryAfter }) });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'TooManyRequests', message: busy.message ?? 'too many requests', code: busy.code }));
      return;
    }
    const parts = url.pathname.split('/').filter(Boolean);
    if (url.pathname === '/version') return this.send(res, 200, { major: '1', minor: '36', gitVersion: 'v1.36.4' });
    // discovery
    if ((parts[0] === 'api' && parts.length === 2) || (parts[0] === 'apis' && parts.length === 3)) {
      const [group, version] = parts[0] === 'api' ? ['', parts[1]!] : [parts[1]!, parts[2]!];
      const rs = this.resources.filter((r) => r.group === group && r.version === version);
      if (rs.length === 0) return this.status(res, 404, 'NotFound', 'the server could not find the requested resource');
      return this.send(res, 200, {
        kind: 'APIResourceList',
        groupVersion: group ? `${group}/${version}` : version,
        resources: rs.map((r) => ({ name: r.plural, kind: r.kind, namespaced: r.namespaced, verbs: ['get', 'list', 'watch', 'patch', 'delete'] })),
      });
    }
    let i = parts[0] === 'api' ? 2 : 3;
    const [group, version] = parts[0] === 'api' ? ['', parts[1]!] : [parts[1]!, parts[2]!];
    let ns: string | undefined;
    if (parts[i] === 'namespaces' && parts.length > i + 2) {
      ns = parts[i + 1];
      i += 2;
    }
    const plural = parts[i]!;
    const name = parts[i + 1];
    const r = this.resFor(group, version, plural);
    if (!r) return this.status(res, 404, 'NotFound', 'the server could not find the requested resource');
    const gr = `${r.plural}${r.group ? '.' + r.group : ''}`;

    if (!name && method === 'GET') {
      if (url.searchParams.get('watch') === 'true') {
        if (this.onWatch?.({ path: url.pathname, query: url.searchParams }, res)) return;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        const conn = { path: url.pathname, res };
        this.watches.push(conn);
        res.on('close', () => (this.watches = this.watches.filter((w) => w !== conn)));
        const t = Number(url.searchParams.get('timeoutSeconds') ?? 0);
        if (t > 0) setTimeout(() => res.end(), t * 1000).unref();
        return;
      }
      const items = [...this.objects.values()].filter((o) => o.kind === r.kind && (!ns || o.metadata.namespace === ns));
      return this.send(res, 200, { kind: `${r.kind}List`, apiVersion: 'v1', metadata: { resourceVersion: String(this.rv) }, items: items.map(({ apiVersion: _a, kind: _k, ...o }) => o) });
    }
    const key = this.key(r, ns, name!);
    const live = this.objects.get(key);
    if (method === 'GET') {
      if (!live) return this.status(res, 404, 'NotFound', `${gr} "${name}" not found`);
      if (r.kind === 'CustomResourceDefinition') {
        const n = (this.crdGets.get(name!) ?? 0) + 1;
        this.crdGets.set(name!, n);
        if (n > this.establishAfterGets && !live.status?.conditions) {
          live.status = { conditions: [{ type: 'NamesAccepted', status: 'True' }, { type: 'Established', status: 'True' }] };
          this.registerCrd(live);
        }
      }
      return this.send(res, 200, live);
    }
    if (method === 'DELETE') {
      if (!live) return this.status(res, 404, 'NotFound', `${gr} "${name}" not found`);
      if (url.searchParams.get('dryRun') !== 'All') {
        this.objects.delete(key);
        this.notify(r, 'DELETED', live);
      }
      return this.send(res, 200, { kind: 'Status', status: 'Success' });
    }
    if (method === 'PATCH') {
      const dry = url.searchParams.get('dryRun') === 'All';
      const ct = req.headers['content-type'];
      const patch = JSON.parse(body) as Obj;
      if (ns && ![...this.objects.values()].some((o) => o.kind === 'Namespace' && o.metadata.name === ns) && ns !== 'default') {
        return this.status(res, 404, 'NotFound', `namespaces "${ns}" not found`);
      }
      if (patch.metadata?.labels?.conflict) return this.status(res, 409, 'Conflict', `Apply failed with 1 conflict: conflict with "kubectl" using v1: .data.a`);
      if (patch.metadata?.labels?.invalid) return this.status(res, 422, 'Invalid', `${r.kind} "${name}" is invalid: metadata.labels: Invalid value`);
      let next: Obj;
      if (ct === 'application/apply-patch+yaml') {
        if (url.searchParams.get('fieldManager') === null) return this.status(res, 400, 'BadRequest', 'fieldManager is required for apply requests');
        next = live ? merge(live, patch) : { ...clone(patch), metadata: { ...clone(patch.metadata), namespace: r.namespaced ? ns : undefined, uid: `uid-${name}`, creationTimestamp: '2026-11-29T00:00:00Z' } };
      } else if (ct === 'application/merge-patch+json') {
        if (!live) return this.status(res, 404, 'NotFound', `${gr} "${name}" not found`);
        next = merge(live, patch);
      } else return this.status(res, 415, 'UnsupportedMediaType', `unsupported ${ct}`);
      const changed = !live || specOf(live) !== specOf(next);
      if (!changed) return this.send(res, 200, live);
      next.metadata.managedFields = [{ manager: url.searchParams.get('fieldManager') ?? 'patch', time: new Date().toISOString() }];
      if (live && JSON.stringify(live.spec) !== JSON.stringify(next.spec)) next.metadata.generation = (live.metadata.generation ?? 1) + 1;
      next.metadata.generation ??= 1;
      if (dry) return this.send(res, live ? 200 : 201, next);
      next.metadata.resourceVersion = String(++this.rv);
      this.objects.set(key, next);
      this.notify(r, live ? 'MODIFIED' : 'ADDED', next);
      return this.send(res, live ? 200 : 201, next);
    }
    return this.status(res, 405, 'MethodNotAllowed', method);
  }

  private registerCrd(crd: Obj) {
    const s = crd.spec as { group: string; names: { kind: string; plural: string }; scope: string; versions: { name: string }[] };
    for (const v of s.versions) {
      if (!this.resources.some((r) => r.group === s.group && r.version === v.name && r.kind === s.names.kind)) {
        this.resources.push({ group: s.group, version: v.name, kind: s.names.kind, plural: s.names.plural, namespaced: s.scope === 'Namespaced' });
      }
    }
  }

  /** Installs a CRD as already Established (for tests that need the kind up front). */
  addCrd(group: string, version: string, kind: string, plural: string, namespaced = true) {
    this.resources.push({ group, version, kind, plural, namespaced });
  }
}
