// What keeps a waiting tier's HelmReleases from their charts, read from the API at the moment it is asked: the chart
// source of each release helm-controller found SourceNotReady (and that source's own source when the chart waits for
// its artifact). The judging is src/status/helm-source.ts; when to ask is tier-decision's chartReadDue.

import { FLUX_SOURCE_API, type ClusterClient } from '../cluster/client.js';
import type { LiveKustomization } from '../status/conditions.js';
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
  type ObjectKey,
} from '../status/helm-source.js';

/** At most this many releases are read per look: a tier of fifty releases stuck on one repository needs no fifty GETs. */
const LIMIT = 10;

/**
 * The HelmReleases of a tier that helm-controller found SourceNotReady, while KC runs the tier's health checks for the
 * source's current revision (only then are they what the tier applied). Empty otherwise. `signature` changes whenever
 * what they say changes (a new generation, a new message, another revision), which is when reading again is worth it.
 */
export function releasesWithoutChart(ks: LiveKustomization | undefined, sourceRevision: string | null, releases: ReadonlyMap<string, LiveHelmRelease>): { releases: LiveHelmRelease[]; signature: string; checking: boolean } {
  const revision = ks ? healthCheckRevision(ks) : null;
  if (!ks || revision === null || sourceRevision === null || revision !== sourceRevision) return { releases: [], signature: '', checking: false };
  const out = releasesWaitedOn(ks)
    .map((r) => releases.get(`${r.namespace}/${r.name}`))
    .filter((hr): hr is LiveHelmRelease => hr !== undefined && sourceNotReady(hr));
  const signature = out
    .map((hr) => `${hr.metadata.namespace}/${hr.metadata.name}@${hr.metadata.generation ?? ''}:${hr.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? ''}`)
    .sort()
    .join('\n');
  return { releases: out, signature: signature ? `${revision}\n${signature}` : '', checking: true };
}

/** Reads each release's chart source and judges it. Best effort: what cannot be read says nothing. */
export async function readChartVerdicts(client: ClusterClient, releases: readonly LiveHelmRelease[]): Promise<ChartVerdict[]> {
  const out: ChartVerdict[] = [];
  for (const hr of releases.slice(0, LIMIT)) {
    const ref = chartSourceOf(hr);
    if (!ref) continue;
    try {
      const chart = await find(client, ref);
      const up = chart ? upstreamOf(chart) : null;
      const upstream = up ? await find(client, up) : undefined;
      const v = chartVerdict(hr, chart, upstream);
      if (v) out.push(v);
    } catch {
      // unreadable (RBAC, the API server away): the tier waits as it would without this look
    }
  }
  return out;
}

async function find(client: ClusterClient, ref: ObjectKey): Promise<LiveChartSource | undefined> {
  const o = (await client.find({ apiVersion: FLUX_SOURCE_API, kind: ref.kind, namespace: ref.namespace, name: ref.name })) as LiveChartSource | undefined;
  return o ? { ...o, kind: o.kind ?? ref.kind } : undefined;
}
