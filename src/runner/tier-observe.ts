// What the cluster says about one tier, read from the run's watches without a request: its readiness at the source's
// current revision, and what a decision about it may need beyond that (a missing CRD on its way, the chart sources
// of the HelmReleases its health check waits on). Watches those need are started here the first time they are.

import type { FluxKustomization } from '../model/flux.js';
import { celIfLoaded, hasReadyExpr } from '../status/cel.js';
import type { LiveKustomization } from '../status/conditions.js';
import type { ChartFailure } from '../status/helm-source.js';
import { kustomizationReadiness, type Readiness } from '../status/kustomization.js';
import { sourceReadiness } from '../status/source.js';
import { chartVerdicts, releasesWithoutChart } from './chart-sources.js';
import type { LiveState } from './live-state.js';
import { crdOnItsWay, type RuntimeCrdDecl } from './runtime-crd-wait.js';
import type { TierTrack } from './tier-decision.js';
import { describeWatchedDeployments } from './workloads.js';
import { healthExprsFromWatches } from './health-explain.js';
import type { ObjRef } from '../model/ref.js';
import type { WorkloadReport } from '../status/workload.js';

export interface TierObservation {
  live: LiveKustomization | undefined;
  readiness: Readiness;
  /** The current artifact revision of the source it reads. */
  sourceRevision: string | null;
  /**
   * For a missing-CRD failure that answers standup's own request: the CRD on its way, in words, or null; undefined
   * while the watches that tell are still listing.
   */
  crdOnItsWay: string | null | undefined;
  /**
   * While KC runs its health checks at the current revision: what the chart sources of its HelmReleases stuck on
   * SourceNotReady say (null otherwise); undefined while a watch that tells is still listing.
   */
  charts: { failure: ChartFailure | null; waiting: string | null } | null | undefined;
  /**
   * While it is not Ready: the Deployments its health check waits on that have a pod problem, in words, and the first
   * whose image pull cannot succeed as written (null when none; null too while their watches are listing).
   */
  workloads: { failure: WorkloadReport | null; waiting: string | null } | null;
}

/** The Deployments a Kustomization's health check waits on: every one it applies with `wait: true`, else its healthChecks. */
export function healthCheckedDeployments(node: FluxKustomization, applied: readonly ObjRef[], ks: LiveKustomization | undefined): ObjRef[] {
  if (node.wait) return [...applied];
  const checks = ((ks as { spec?: { healthChecks?: { kind?: string; name?: string; namespace?: string }[] } } | undefined)?.spec?.healthChecks ?? []);
  return checks.filter((c) => c.kind === 'Deployment' && c.name).map((c) => ({ kind: 'Deployment', namespace: c.namespace ?? node.namespace, name: c.name! }));
}

export function observeTier(node: FluxKustomization, dependencyKeys: readonly string[] | undefined, track: TierTrack, live: LiveState, runtimeCrds: readonly RuntimeCrdDecl[], applied: readonly ObjRef[] = [], additive = false): TierObservation {
  const ks = live.kustomizations.get(node.key);
  const source = sourceReadiness(live.sourceOf(ks, node.sourceRef));
  // A dependency's readyExpr is evaluated (CEL loaded on the first one) so a wait on it says what it gives.
  const readyExpr = ks && hasReadyExpr([ks]) ? { dependency: (k: string) => live.kustomizations.get(k), cel: celIfLoaded(), additive } : undefined;
  const readiness = kustomizationReadiness(ks, { sourceRevision: source.revision ?? undefined, dependencyKeys, readyExpr });
  const look = live.watched.bind(live);
  const d = readiness.diagnosis;
  // Only for a missing-CRD failure that answers standup's own request, not for every look during a wait.
  const answered = track.requestedAt !== null && ks?.status?.lastHandledReconcileAt === track.requestedAt;
  const onItsWay = readiness.state === 'failed' && d?.type === 'missing-crd' && answered ? crdOnItsWay(d, runtimeCrds, look) : null;
  let charts: TierObservation['charts'] = null;
  if (track.startedAt !== null && readiness.state !== 'ready') {
    const stuck = releasesWithoutChart(ks, source.revision, live.helmReleases);
    if (stuck.checking) {
      const verdicts = chartVerdicts(stuck.releases, { sources: live.sources, watched: look });
      charts = verdicts && {
        failure: verdicts.find((v) => v.state === 'failed')?.failure ?? null,
        waiting: verdicts.flatMap((v) => (v.state === 'waiting' ? [v.line] : [])).join('; ') || null,
      };
    }
  }
  let workloads: TierObservation['workloads'] = null;
  if (track.startedAt !== null && readiness.state !== 'ready' && ks) {
    const reports = describeWatchedDeployments(healthCheckedDeployments(node, applied, ks), look);
    // The objects its healthCheckExprs judge, with what each expression gives now (the kstatus ones say nothing here).
    const exprs = healthExprsFromWatches(ks, readiness, look) ?? [];
    if ((reports && reports.length > 0) || exprs.length > 0) {
      const pods = (reports ?? []).filter((r) => r.problem !== null && r.problem !== 'starting').map((r) => `${r.object}: ${r.line}`);
      workloads = {
        failure: reports?.find((r) => r.problem === 'image-invalid') ?? null,
        waiting: [...pods, ...exprs].join('; ') || null,
      };
    }
  }
  return { live: ks, readiness, sourceRevision: source.revision, crdOnItsWay: onItsWay, charts, workloads };
}
