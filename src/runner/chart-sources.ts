// What keeps a waiting tier's HelmReleases from their charts, from the run's watches: the chart source of each release
// helm-controller found SourceNotReady (and that source's own source when the chart waits for its artifact). The
// judging is src/status/helm-source.ts. HelmCharts and HelmRepositories are watched from the first time a release
// waits on one; the other source kinds are always watched.

import { FLUX_SOURCE_API } from '../cluster/client.js';
import type { LiveKustomization, LiveSource } from '../status/conditions.js';
import {
  chartSourceOf,
  chartVerdict,
  healthCheckRevision,
  releasesWaitedOn,
  sourceNotReady,
  upstreamOf,
  type ChartVerdict,
  type LiveChartSource,
  type LiveHelmRelease,
} from '../status/helm-source.js';
import { SOURCE_KINDS, type Look } from './live-state.js';
import { refKey, type NamespacedRef } from '../model/ref.js';

/** At most this many releases are judged: a tier of fifty releases stuck on one repository needs no fifty lines. */
const LIMIT = 10;

/**
 * The HelmReleases of a tier that helm-controller found SourceNotReady, while KC runs the tier's health checks for the
 * source's current revision (only then are they what the tier applied); `checking` false otherwise.
 */
export function releasesWithoutChart(ks: LiveKustomization | undefined, sourceRevision: string | null, releases: ReadonlyMap<string, LiveHelmRelease>): { releases: LiveHelmRelease[]; checking: boolean } {
  const revision = ks ? healthCheckRevision(ks) : null;
  if (!ks || revision === null || sourceRevision === null || revision !== sourceRevision) return { releases: [], checking: false };
  const out = releasesWaitedOn(ks)
    .map((r) => releases.get(`${r.namespace}/${r.name}`))
    .filter((hr): hr is LiveHelmRelease => hr !== undefined && sourceNotReady(hr));
  return { releases: out, checking: true };
}

/** Where a chart source is read: the always-watched sources (`Kind/namespace/name`), and on-demand watches. */
export interface ChartSourceLook {
  sources: ReadonlyMap<string, LiveSource>;
  watched: Look;
}

/**
 * Judges each release from its chart source (and that source's source). Undefined while a watch that tells is still
 * listing; a source that cannot be read says nothing of its release.
 */
export function chartVerdicts(releases: readonly LiveHelmRelease[], x: ChartSourceLook): ChartVerdict[] | undefined {
  const out: ChartVerdict[] = [];
  for (const hr of releases.slice(0, LIMIT)) {
    const ref = chartSourceOf(hr);
    if (!ref) continue;
    const chart = find(x, ref);
    if (chart === undefined) return undefined;
    if (chart === null) continue;
    const up = chart.object ? upstreamOf(chart.object) : null;
    const upstream = up ? find(x, up) : { object: undefined };
    if (upstream === undefined) return undefined;
    if (upstream === null) continue;
    const v = chartVerdict(hr, chart.object, upstream.object);
    if (v) out.push(v);
  }
  return out;
}

/** One source object: found or not; null when its kind cannot be read; undefined while its watch lists. */
function find(x: ChartSourceLook, ref: NamespacedRef): { object: LiveChartSource | undefined } | null | undefined {
  const always = x.sources.get(refKey(ref));
  if (always) return { object: always };
  if (SOURCE_KINDS.includes(ref.kind)) return { object: undefined };
  const objects = x.watched({ apiVersion: FLUX_SOURCE_API, kind: ref.kind });
  if (!objects) return objects;
  const o = objects.get(`${ref.namespace}/${ref.name}`) as LiveChartSource | undefined;
  return { object: o ? { ...o, kind: o.kind ?? ref.kind } : undefined };
}
