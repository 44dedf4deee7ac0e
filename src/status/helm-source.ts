// Whether a HelmRelease a tier waits on can ever get its chart, with Flux's exact meaning: helm-controller v1.6.4
// (getSource, isReady, the HelmChart template) and source-controller v1.9.3 (a build error of a persistent reason,
// InvalidChartReference, ValuesFilesError, MetadataPatchError, makes the HelmChart Stalled and records its generation
// as observed; a fetch error is Generic and retried). Pure: it judges the objects it is given and never fetches.

import { findCondition, type Condition, type LiveKustomization, type LiveMeta } from './conditions.js';
import { inventoryObjects } from './inventory.js';
import { refKey, type NamespacedRef } from '../model/ref.js';

/** A sourceRef or chartRef as a live spec holds it: any field may be missing. */
type SpecRef = Partial<NamespacedRef>;

/**
 * A live helm.toolkit.fluxcd.io/v2 HelmRelease, as far as standup reads one: its chart source (here), its dependency
 * gate (runner/helm-decision.ts) and its Ready words (workload.ts).
 */
export interface LiveHelmRelease {
  metadata: LiveMeta;
  spec?: {
    chart?: { spec?: { chart?: string; version?: string; sourceRef?: SpecRef } };
    chartRef?: SpecRef;
    suspend?: boolean;
    dependsOn?: { name: string; namespace?: string; readyExpr?: string }[];
    [k: string]: unknown;
  };
  status?: { observedGeneration?: number; conditions?: Condition[]; helmChart?: string; lastHandledReconcileAt?: string; [k: string]: unknown };
}

/** A live HelmChart, OCIRepository or HelmRepository (source.toolkit.fluxcd.io/v1): the fields judged here. */
export interface LiveChartSource {
  kind?: string;
  metadata: LiveMeta;
  spec?: { chart?: string; version?: string; sourceRef?: SpecRef; [k: string]: unknown };
  status?: { observedGeneration?: number; conditions?: Condition[]; artifact?: unknown; [k: string]: unknown };
}

const HELM_GROUP = 'helm.toolkit.fluxcd.io';

/**
 * The HelmReleases a tier's health check waits on (kustomize-controller's checkHealth): with `wait: true` every one it
 * applied (its inventory), else those named in `healthChecks` (an entry without a namespace names nothing KC can find).
 */
export function releasesWaitedOn(ks: LiveKustomization): { namespace: string; name: string }[] {
  const spec = ks.spec as { wait?: boolean; healthChecks?: { apiVersion?: string; kind?: string; name?: string; namespace?: string }[] } | undefined;
  if (spec?.wait) {
    return inventoryObjects(ks).flatMap((o) => (o.kind === 'HelmRelease' && o.group === HELM_GROUP && o.namespace ? [{ namespace: o.namespace, name: o.name }] : []));
  }
  return (spec?.healthChecks ?? [])
    .filter((c) => c.kind === 'HelmRelease' && (c.apiVersion ?? '').startsWith(`${HELM_GROUP}/`) && c.name && c.namespace)
    .map((c) => ({ namespace: c.namespace!, name: c.name! }));
}

const HEALTH = /^Running health checks for revision (\S+) with a timeout of /;

/**
 * The revision a Kustomization is running its health checks for (its Reconciling message), or null: only then has KC
 * applied what that revision holds, so a HelmRelease it waits on is the one the tier applied.
 */
export function healthCheckRevision(ks: LiveKustomization): string | null {
  const c = findCondition(ks.status?.conditions, 'Reconciling');
  if (c?.status !== 'True') return null;
  if (c.observedGeneration !== undefined && ks.metadata.generation !== undefined && c.observedGeneration !== ks.metadata.generation) return null;
  return HEALTH.exec(c.message ?? '')?.[1] ?? null;
}

/**
 * Where helm-controller takes the chart from (getSource): `spec.chartRef` names it (the namespace defaults to the
 * HelmRelease's); `spec.chart` is a template for HelmChart `<namespace>-<name>` in the namespace of its sourceRef (or
 * the HelmRelease's). Null when neither is set (helm-controller refuses such a release).
 */
export function chartSourceOf(hr: LiveHelmRelease): NamespacedRef | null {
  const ns = hr.metadata.namespace ?? '';
  const ref = hr.spec?.chartRef;
  if (ref?.kind && ref.name) return { kind: ref.kind, namespace: ref.namespace || ns, name: ref.name };
  const tpl = hr.spec?.chart?.spec;
  if (!tpl) return null;
  return { kind: 'HelmChart', namespace: tpl.sourceRef?.namespace || ns, name: `${ns}-${hr.metadata.name}` };
}

/**
 * helm-controller looked at this generation of the release and found its source not ready (SourceNotReady): the only
 * state in which reading the source can explain the wait.
 */
export function sourceNotReady(hr: LiveHelmRelease): boolean {
  const ready = findCondition(hr.status?.conditions, 'Ready');
  if (ready?.status !== 'False' || ready.reason !== 'SourceNotReady') return false;
  return ready.observedGeneration === undefined || hr.metadata.generation === undefined || ready.observedGeneration === hr.metadata.generation;
}

/** Stalled=True at the generation the controller last reconciled: source-controller will not try again. */
function stalledNow(s: LiveChartSource): Condition | null {
  const stalled = findCondition(s.status?.conditions, 'Stalled');
  if (stalled?.status !== 'True') return null;
  const g = s.metadata.generation;
  return g === undefined || s.status?.observedGeneration === g ? stalled : null;
}

/** The HelmChart helm-controller made from this release's template carries the template's chart, version and source. */
function chartMatchesTemplate(hr: LiveHelmRelease, chart: LiveChartSource): boolean {
  const tpl = hr.spec?.chart?.spec;
  if (!tpl) return true;
  const version = (v: string | undefined) => (v === undefined || v === '' ? '*' : v);
  return (
    chart.spec?.chart === tpl.chart &&
    version(chart.spec?.version) === version(tpl.version) &&
    chart.spec?.sourceRef?.kind === tpl.sourceRef?.kind &&
    chart.spec?.sourceRef?.name === tpl.sourceRef?.name
  );
}

/** What the chart source's own source is (a HelmChart's HelmRepository, GitRepository or Bucket), if it waits on it. */
export function upstreamOf(chart: LiveChartSource): NamespacedRef | null {
  if (chart.kind !== 'HelmChart') return null;
  // source-controller marks a HelmChart whose source has no artifact yet FetchFailed=True, NoSourceArtifact.
  const fetch = findCondition(chart.status?.conditions, 'FetchFailed');
  const ref = chart.spec?.sourceRef;
  if (fetch?.status !== 'True' || fetch.reason !== 'NoSourceArtifact' || !ref?.kind || !ref.name) return null;
  return { kind: ref.kind, namespace: chart.metadata.namespace ?? '', name: ref.name };
}

/** A chart that will never come: the HelmRelease cannot install until its spec or the chart's source changes. */
export interface ChartFailure {
  release: NamespacedRef;
  /** The chart source helm-controller reads (a HelmChart, an OCIRepository). */
  chart: NamespacedRef;
  /** The object that is Stalled: the chart source, or the HelmRepository (GitRepository, Bucket) it builds from. */
  stalled: NamespacedRef;
  /** source-controller's Stalled reason and message, verbatim. */
  reason: string;
  message: string;
  /** The release's chart template, when it has one (what to fix). */
  template: { chart: string | null; version: string | null; sourceRef: string | null } | null;
}

export type ChartVerdict =
  | { state: 'failed'; failure: ChartFailure }
  /** Not ready, and it may heal (a repository unreachable, a chart not built yet): its words, for the status line. */
  | { state: 'waiting'; line: string };

const ready = (s: LiveChartSource | undefined): Condition | undefined => findCondition(s?.status?.conditions, 'Ready');

/**
 * Judges a HelmRelease helm-controller found SourceNotReady, from its chart source (and that source's own source,
 * when the chart waits for its artifact). Terminal only when source-controller says so for the current spec: the
 * chart source is Stalled at its current generation, and (for a template) carries the release's current chart spec;
 * or the chart waits for an artifact from a source that is itself Stalled. Everything else is waiting. Null when
 * the release's source is not what keeps it (helm-controller has not found it SourceNotReady at this generation).
 */
export function chartVerdict(hr: LiveHelmRelease, chart: LiveChartSource | undefined, upstream?: LiveChartSource): ChartVerdict | null {
  if (!sourceNotReady(hr)) return null;
  const ref = chartSourceOf(hr);
  if (!ref) return null;
  const releaseRef: NamespacedRef = { kind: 'HelmRelease', namespace: hr.metadata.namespace ?? '', name: hr.metadata.name };
  const release = refKey(releaseRef);
  const chartKey = refKey(ref);
  const hrMessage = (findCondition(hr.status?.conditions, 'Ready')?.message ?? '').trim();
  if (!chart) return { state: 'waiting', line: `${release} waits for ${chartKey}: not found` };
  const tpl = hr.spec?.chart?.spec;
  const template = tpl && !hr.spec?.chartRef ? { chart: tpl.chart ?? null, version: tpl.version ?? null, sourceRef: tpl.sourceRef?.kind && tpl.sourceRef.name ? refKey({ kind: tpl.sourceRef.kind, namespace: tpl.sourceRef.namespace || (hr.metadata.namespace ?? ''), name: tpl.sourceRef.name }) : null } : null;
  // helm-controller has not applied the release's current template to the HelmChart yet: its state is for an older spec.
  if (template && !chartMatchesTemplate(hr, chart)) return { state: 'waiting', line: `${release} waits for ${chartKey} to take its new chart spec` };
  const failure = (stalled: NamespacedRef, c: Condition): ChartVerdict => ({
    state: 'failed',
    failure: { release: releaseRef, chart: ref, stalled, reason: c.reason ?? 'Stalled', message: (c.message ?? '').trim(), template },
  });
  const s = stalledNow(chart);
  if (s) return failure(ref, s);
  const up = upstreamOf({ ...chart, kind: chart.kind ?? ref.kind });
  const upStalled = up && upstream ? stalledNow(upstream) : null;
  if (up && upStalled) return failure(up, upStalled);
  const chartWords = (ready(chart)?.status === 'False' ? ready(chart)?.message : undefined)?.trim() || hrMessage || 'not ready';
  const upWords = up && upstream && ready(upstream)?.status === 'False' ? `; ${refKey(up)}: ${(ready(upstream)!.message ?? '').trim()}` : '';
  return { state: 'waiting', line: `${release} waits for ${chartKey}: ${chartWords}${upWords}` };
}
