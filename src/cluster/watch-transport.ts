// One kind's LIST and WATCH over client-node's Watch, for listWatch (watch.ts): the only code that opens watches.

import { Watch, type KubeConfig } from '@kubernetes/client-node';
import type { K8sObject, KindRef } from './client.js';
import type { ClusterError } from './errors.js';
import type { ListWatchTransport } from './watch.js';

export interface TransportDeps {
  kc: KubeConfig;
  pathFor(kind: KindRef): Promise<string>;
  list(kind: KindRef): Promise<{ items: K8sObject[]; resourceVersion: string }>;
  fail(e: unknown): ClusterError;
  /** A watch connection was opened (stats) and answered (reachability). */
  opened(): void;
  /** Any event proves the server is there. */
  alive(): void;
}

export function watchTransport(d: TransportDeps, kind: KindRef, labelSelector?: string): ListWatchTransport<K8sObject> {
  return {
    list: () => d.list(kind),
    watch: async (resourceVersion, timeoutSeconds, onEvent, signal) => {
      let path: string;
      try {
        path = await d.pathFor(kind);
      } catch (e) {
        throw d.fail(e);
      }
      await new Promise<void>((resolve, reject) => {
        let req: AbortController | undefined;
        const onAbort = () => {
          req?.abort();
          resolve();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        let ended = false;
        const settle = (err: unknown) => {
          ended = true;
          signal.removeEventListener('abort', onAbort);
          // Translated here so a dropped connection counts as the server being away (reachability), once.
          if (err && !signal.aborted) reject(d.fail(err));
          else resolve();
        };
        new Watch(d.kc)
          .watch(path, { resourceVersion, allowWatchBookmarks: true, timeoutSeconds, ...(labelSelector ? { labelSelector } : {}) }, (type: string, obj: unknown) => {
            d.alive();
            onEvent(type, obj);
          }, settle)
          .then((c) => {
            req = c;
            // client-node resolves the watch even when the connection failed (after calling `done` with the error):
            // only a watch not already settled was opened.
            if (!ended) d.opened();
            if (signal.aborted) c.abort();
          }, settle);
      });
    },
  };
}
