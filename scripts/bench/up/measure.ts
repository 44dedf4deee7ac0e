// From one run's controller logs to the inputs of the physical limit (limit.ts): each Kustomization's apply and tail
// time, each HelmRelease's own time, each source's fetch time, tied together by the generated graph.
import { keyOf, rootKey, type GraphSpec, type TierSpec } from './graph-spec.js';
import { helmBusy, helmReconciles, sourceFetch } from './helm-log.js';
import { CHART_REPOSITORY } from './generate.js';
import { kcReconciles } from './kc-log.js';
import type { LimitInput, LimitKustomization } from './limit.js';
import type { LogLine } from './log-lines.js';

export const hrKey = (k: string) => `HelmRelease/${k}`;
export const gitKey = (k: string) => `GitRepository/${k}`;
const ROOT_SOURCE = gitKey('flux-system/flux-system');

export interface RunLogs {
  kc: LogLine[];
  helm: LogLine[];
  source: LogLine[];
}

export interface Measured {
  input: LimitInput;
  /** Per Kustomization: kustomize-controller's own duration of the reconcile that applied the served revision. */
  kcMs: Record<string, number>;
  /** Per Kustomization: when that reconcile finished (ms since the epoch). */
  kcFinishedAt: Record<string, number>;
  /** Per HelmRelease: its own time, source-controller building its chart plus Helm's install and wait. */
  helmMs: Record<string, number>;
  /**
   * Per HelmRelease: from the start of the attempt that installed it to in-sync, minus its own time: time it sat in
   * helm-controller's queue (the workers busy with other releases) or waited for source-controller's queue.
   */
  helmQueuedMs: Record<string, number>;
  /** Helm actions running at once (helm-log.ts helmBusy), against the controller's worker count. */
  helmBusy: ReturnType<typeof helmBusy> & { workers: number };
  /** Per HelmRelease: how often helm-controller turned it away for its dependsOn. */
  helmDependencyRetries: Record<string, number>;
  /**
   * Per HelmRelease turned away for its dependsOn: from the moment its dependencies were all Ready (their releases in
   * sync) to the start of its next attempt: helm-controller's --requeue-dependency wait, which nothing shortens.
   */
  helmDependencyWaitMs: Record<string, number>;
  sourceMs: number | null;
  /**
   * Per Kustomization: from the moment it could have started (its dependencies' reconciles finished, its applier's
   * apply completed) to the start of the reconcile that made it Ready. Under Flux alone the requeue waits; under
   * standup its reaction plus kustomize-controller's queue.
   */
  startDelayMs: Record<string, number>;
  /**
   * The other lower bound: a controller cannot finish sooner than the work its workers did divided by their number
   * (a worker stays busy through a Kustomization's health checks and a Helm install's wait). ms from the first
   * fetch, per controller.
   */
  workerBound: { kustomize: number; helm: number; charts: number; workers: { kustomize: number; helm: number; source: number } };
  /** What the logs lack (a tier never reconciled at the revision, ...): the limit is not computed then. */
  missing: string[];
}

export function measureRun(g: GraphSpec, logs: RunLogs, revisions: Set<string>, concurrent?: number): Measured {
  const workers = { kustomize: concurrent ?? 4, helm: concurrent ?? 4, source: concurrent ?? 2 };
  const root = rootKey(g);
  const tiers = new Map(g.tiers.map((t) => [keyOf(t), t]));
  const applierOf = (t: TierSpec) => (t.parent === null || t.parent === root ? root : t.parent);
  const children = new Map<string, string[]>();
  for (const t of g.tiers) children.set(applierOf(t), [...(children.get(applierOf(t)) ?? []), keyOf(t)]);
  const missing: string[] = [];

  const reconcile = new Map<string, ReturnType<typeof kcReconciles>[number]>();
  for (const r of kcReconciles(logs.kc)) if (revisions.has(r.revision) && !reconcile.has(r.key)) reconcile.set(r.key, r);
  const helm = helmReconciles(logs.helm);
  const releasesOf = (key: string) => (key === root ? g.entryContent.helmReleases : tiers.get(key)?.helmReleases ?? []);

  const actualReady = (key: string): number | undefined => (key.startsWith('HelmRelease/') ? helm.get(key.slice('HelmRelease/'.length))?.readyAt : reconcile.get(key)?.finishedAt);
  const kustomizations: LimitKustomization[] = [];
  for (const key of [root, ...tiers.keys()]) {
    const r = reconcile.get(key);
    if (!r) {
      missing.push(`${key}: no "Reconciliation finished" at the served revision in kustomize-controller's log`);
      continue;
    }
    const t = tiers.get(key);
    const waits = key === root ? !!g.root.wait : t!.wait;
    const waitsOn = waits
      ? [...(children.get(key) ?? []), ...releasesOf(key).map((h) => hrKey(keyOf(h)))]
      : (t?.healthChecks ?? []).flatMap((h) => (h.kind === 'HelmRelease' ? [hrKey(`${h.namespace}/${h.name}`)] : h.kind === 'Kustomization' ? [`${h.namespace}/${h.name}`] : []));
    const startedAt = r.finishedAt - r.durationMs;
    const appliedAt = r.appliedAt ?? r.finishedAt;
    const lastWaited = Math.max(appliedAt, ...waitsOn.map((w) => actualReady(w) ?? appliedAt));
    kustomizations.push({
      key,
      applier: key === root ? null : applierOf(t!),
      dependsOn: t?.dependsOn ?? [],
      waitsOn,
      ...(t?.external ? { source: gitKey(`${t.external.namespace}/${t.external.name}`) } : {}),
      applyMs: Math.max(0, appliedAt - startedAt),
      tailMs: Math.max(0, r.finishedAt - lastWaited),
    });
  }

  const startDelayMs: Record<string, number> = {};
  for (const k of kustomizations) {
    const r = reconcile.get(k.key)!;
    const could = Math.max(
      ...(k.applier ? [reconcile.get(k.applier)?.appliedAt ?? reconcile.get(k.applier)?.finishedAt ?? -Infinity] : []),
      ...k.dependsOn.map((d) => reconcile.get(d)?.finishedAt ?? -Infinity),
    );
    if (Number.isFinite(could)) startDelayMs[k.key] = Math.max(0, r.finishedAt - r.durationMs - could);
  }

  const releases: LimitInput['releases'] = [];
  const helmMs: Record<string, number> = {};
  const helmQueuedMs: Record<string, number> = {};
  let helmActions = 0;
  let chartBuilds = 0;
  const helmDependencyRetries: Record<string, number> = {};
  const helmDependencyWaitMs: Record<string, number> = {};
  for (const [owner, list] of [[root, g.entryContent.helmReleases] as const, ...g.tiers.map((t) => [keyOf(t), t.helmReleases] as const)]) {
    for (const h of list) {
      const m = helm.get(keyOf(h));
      if (!m) {
        missing.push(`HelmRelease ${keyOf(h)}: never "release in-sync with desired state" in helm-controller's log`);
        continue;
      }
      // helm-controller names the chart <release namespace>-<release name> in the HelmRepository's namespace.
      const chart = sourceFetch(logs.source, 'HelmChart', `${CHART_REPOSITORY.namespace}/${h.namespace}-${h.name}`);
      const own = (chart ? chart.storedAt - chart.startedAt : 0) + (m.readyAt - m.actionStartedAt);
      helmActions += m.readyAt - m.actionStartedAt;
      chartBuilds += chart ? chart.storedAt - chart.startedAt : 0;
      helmMs[keyOf(h)] = own;
      helmQueuedMs[keyOf(h)] = Math.max(0, m.readyAt - m.startedAt - own);
      helmDependencyRetries[keyOf(h)] = m.dependencyRetries;
      if (m.firstTurnedAwayAt !== null && h.dependsOn.length) {
        const depsReady = Math.max(m.firstTurnedAwayAt, ...h.dependsOn.map((d) => helm.get(d)?.readyAt ?? m.firstTurnedAwayAt!));
        helmDependencyWaitMs[keyOf(h)] = Math.max(0, m.startedAt - depsReady);
      }
      releases.push({ key: hrKey(keyOf(h)), owner, dependsOn: h.dependsOn.map(hrKey), ownMs: own });
    }
  }

  const sources: LimitInput['sources'] = [];
  const rootFetch = sourceFetch(logs.source, 'GitRepository', 'flux-system/flux-system');
  if (rootFetch) sources.push({ key: ROOT_SOURCE, owner: null, fetchMs: rootFetch.storedAt - rootFetch.startedAt });
  else missing.push('GitRepository flux-system/flux-system: no "stored artifact" in source-controller\'s log');
  for (const [owner, list] of [[root, g.entryContent.sources] as const, ...g.tiers.map((t) => [keyOf(t), t.sources] as const)]) {
    for (const s of list) {
      const f = sourceFetch(logs.source, 'GitRepository', keyOf(s));
      if (f) sources.push({ key: gitKey(keyOf(s)), owner, fetchMs: f.storedAt - f.startedAt });
      else missing.push(`GitRepository ${keyOf(s)}: no "stored artifact" in source-controller's log`);
    }
  }

  return {
    input: { kustomizations, releases, sources, rootSource: ROOT_SOURCE },
    kcMs: Object.fromEntries([...reconcile].map(([k, r]) => [k, Math.round(r.durationMs)])),
    kcFinishedAt: Object.fromEntries([...reconcile].map(([k, r]) => [k, r.finishedAt])),
    helmMs,
    helmQueuedMs,
    helmBusy: { ...helmBusy(helm.values(), workers.helm), workers: workers.helm },
    helmDependencyRetries,
    helmDependencyWaitMs,
    sourceMs: rootFetch ? rootFetch.storedAt - rootFetch.startedAt : null,
    startDelayMs,
    workerBound: {
      kustomize: [...reconcile.values()].reduce((n, r) => n + r.durationMs, 0) / workers.kustomize,
      helm: helmActions / workers.helm,
      charts: chartBuilds / workers.source,
      workers,
    },
    missing,
  };
}
