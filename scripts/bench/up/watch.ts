// Watches every Kustomization and HelmRelease of the testbed and records when each was first seen Ready: the clock
// of "all Ready", the same for every driver. Raw HTTPS watches with a user agent of their own, so the audit log can
// tell the benchmark's own requests from standup's.
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

export const WATCH_USER_AGENT = 'standup-bench-watch';

interface Obj {
  metadata?: { name?: string; namespace?: string; generation?: number };
  status?: { observedGeneration?: number; lastAppliedRevision?: string; conditions?: { type: string; status: string }[] };
}

const readyNow = (o: Obj) => o.status?.observedGeneration === o.metadata?.generation && o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

export interface ReadyWatch {
  /** ms since the epoch when each Kustomization (`ns/name`) was first Ready at one of the revisions. */
  kustomizations: Map<string, number>;
  /** ms since the epoch when each HelmRelease (`ns/name`) was first Ready at its generation. */
  helmReleases: Map<string, number>;
  /** Resolves when every named object has been seen Ready, with the time of the last one; rejects on stop(reason). */
  until(ks: string[], hrs: string[], timeoutMs: number, abort?: () => string | undefined): Promise<number>;
  stop(): void;
}

/** Lists and then watches (ADDED events for what exists, then changes); reconnects when the server ends a watch. */
export async function watchReady(kc: KubeConfig, revisions: () => Set<string>): Promise<ReadyWatch> {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('the kubeconfig has no current cluster');
  const base = new URL(server);
  const opts: https.RequestOptions = { hostname: base.hostname, port: base.port, headers: {} };
  await kc.applyToHTTPSOptions(opts);
  const kustomizations = new Map<string, number>();
  const helmReleases = new Map<string, number>();
  let stopped = false;
  const requests = new Set<import('node:http').ClientRequest>();
  const wakers = new Set<() => void>();

  const watch = (apiPath: string, seen: (o: Obj, at: number) => void) => {
    const open = () => {
      if (stopped) return;
      const req = https.request({ ...opts, method: 'GET', path: `${apiPath}?watch=true&timeoutSeconds=1800`, headers: { ...opts.headers, 'User-Agent': WATCH_USER_AGENT, Accept: 'application/json' } }, (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const at = Date.now();
          buf += chunk;
          let i;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            if (!line.trim()) continue;
            try {
              const ev = JSON.parse(line) as { type: string; object: Obj };
              if (ev.type === 'ADDED' || ev.type === 'MODIFIED') seen(ev.object, at);
            } catch {
              // not JSON: an error body; the reconnect below deals with it
            }
          }
          for (const w of wakers) w();
        });
        res.on('end', () => {
          requests.delete(req);
          setTimeout(open, 200);
        });
      });
      req.on('error', () => {
        requests.delete(req);
        if (!stopped) setTimeout(open, 500);
      });
      requests.add(req);
      req.end();
    };
    open();
  };
  const keyOf = (o: Obj) => `${o.metadata?.namespace}/${o.metadata?.name}`;
  watch('/apis/kustomize.toolkit.fluxcd.io/v1/kustomizations', (o, at) => {
    if (!kustomizations.has(keyOf(o)) && readyNow(o) && revisions().has(o.status?.lastAppliedRevision ?? '')) kustomizations.set(keyOf(o), at);
  });
  watch('/apis/helm.toolkit.fluxcd.io/v2/helmreleases', (o, at) => {
    if (!helmReleases.has(keyOf(o)) && readyNow(o)) helmReleases.set(keyOf(o), at);
  });

  return {
    kustomizations,
    helmReleases,
    until(ks, hrs, timeoutMs, abort) {
      const t0 = Date.now();
      return new Promise((resolve, reject) => {
        const check = () => {
          const why = abort?.();
          if (why) return done(() => reject(new Error(why)));
          if (ks.every((k) => kustomizations.has(k)) && hrs.every((h) => helmReleases.has(h))) {
            const last = Math.max(0, ...ks.map((k) => kustomizations.get(k)!), ...hrs.map((h) => helmReleases.get(h)!));
            return done(() => resolve(last));
          }
          if (Date.now() - t0 > timeoutMs) {
            const notYet = [...ks.filter((k) => !kustomizations.has(k)), ...hrs.filter((h) => !helmReleases.has(h)).map((h) => `HelmRelease/${h}`)];
            return done(() => reject(new Error(`not all Ready after ${Math.round(timeoutMs / 1000)} s; not Ready: ${notYet.slice(0, 20).join(', ')}${notYet.length > 20 ? ` and ${notYet.length - 20} more` : ''}`)));
          }
        };
        const timer = setInterval(check, 500);
        const done = (f: () => void) => {
          clearInterval(timer);
          wakers.delete(check);
          f();
        };
        wakers.add(check);
        check();
      });
    },
    stop() {
      stopped = true;
      for (const r of requests) r.destroy();
      requests.clear();
    },
  };
}
