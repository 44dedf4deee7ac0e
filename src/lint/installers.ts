// Who installs a CRD group in one cluster, by how much standup knows: the bootstrap (before Flux) and the platform
// first, then HelmReleases whose chart the table knows (model/chart-crds.ts), and only then, as a last resort, a
// HelmRelease named like the group (chart-installers.ts). Pure: the bootstrap was read by src/bootstrap/pre-flux-installs.ts.
import type { Bootstrap, BootstrapInstall } from '../model/bootstrap.js';
import type { ClusterModel, RenderedObject } from '../model/flux.js';
import { PLATFORM_GROUPS } from '../model/platforms.js';
import { refKey } from '../model/ref.js';
import { chartEntry, chartKey } from '../model/chart-crds.js';
import { chartInstallers } from './chart-installers.js';
import { isFluxGroup } from './builtin-groups.js';
import type { Obj } from '../model/k8s.js';


/** A HelmRelease that installs a group's CRDs. */
export interface ReleaseInstaller {
  /** HelmRelease/namespace/name */
  release: string;
  /** The tier that applies the HelmRelease (null: the entry path). */
  owner: string | null;
  chart: string;
  /** 'table': the chart table says so; 'name': only its name looks like the group's. */
  how: 'table' | 'name';
}

/** Something that exists before the first tier: shown as "bootstrap installs: cilium (cilium.io), ...". */
export interface BeforeFlux {
  /** "cilium", "platform talos" */
  name: string;
  groups: string[];
  /** How the groups were found, for the JSON and for doubt ("chart kube-prometheus-stack, from its HelmRelease"). */
  via: string;
  file: string;
  line: number | null;
}

export interface Installers {
  /** What installs the group before Flux starts (bootstrap, platform), if anything. */
  beforeFlux(group: string): BeforeFlux[];
  /** HelmReleases of the cluster whose chart the table says installs the group. */
  releases(group: string): ReleaseInstaller[];
  /** HelmReleases named like the group, when no table entry decides (a guess). */
  byName(group: string): ReleaseInstaller[];
  /** Every bootstrap and platform install with the groups it brings, for the summary. */
  bootstrap: BeforeFlux[];
}

/** The chart names a HelmRelease is known by, most reliable first: its chart, its OCI repository's URL. */
export function releaseCharts(hr: RenderedObject, objects: readonly RenderedObject[]): { charts: string[]; exact: boolean } {
  const spec = ((hr.raw as Obj).spec ?? {}) as Obj;
  const out: string[] = [];
  const chart = spec.chart?.spec?.chart;
  if (typeof chart === 'string' && chart) out.push(chart);
  const ref = spec.chartRef as Obj | undefined;
  if (ref?.kind === 'OCIRepository' && typeof ref.name === 'string') {
    const ns = ref.namespace ?? hr.namespace;
    const repo = objects.find((o) => o.kind === 'OCIRepository' && o.name === ref.name && (o.namespace === ns || ns === null));
    const url = (repo?.raw as Obj | undefined)?.spec?.url;
    if (typeof url === 'string' && url) out.push(url);
    else out.push(ref.name);
  }
  return { charts: [...new Set(out.map(chartKey))], exact: out.length > 0 };
}

const skipsCrds = (hr: RenderedObject): boolean => {
  const spec = ((hr.raw as Obj).spec ?? {}) as Obj;
  return spec.install?.crds === 'Skip';
};

export function installersOf(cluster: ClusterModel, bootstrap: Bootstrap): Installers {
  const releases = cluster.objects.filter((o) => o.kind === 'HelmRelease' && o.apiVersion.startsWith('helm.toolkit.fluxcd.io/'));
  const byGroup = new Map<string, ReleaseInstaller[]>();
  for (const hr of releases) {
    if (skipsCrds(hr)) continue;
    const { charts } = releaseCharts(hr, cluster.objects);
    const known = charts.map((c) => [c, chartEntry(c)] as const).find(([, e]) => e);
    if (!known) continue;
    for (const g of known[1]!.groups) {
      const list = byGroup.get(g) ?? [];
      list.push({ release: refKey({ kind: 'HelmRelease', namespace: hr.namespace, name: hr.name }), owner: hr.owner, chart: known[0], how: 'table' });
      byGroup.set(g, list);
    }
  }
  const before = bootstrapInstalls(bootstrap, releases, cluster.objects);
  const guess = chartInstallers(cluster);
  return {
    beforeFlux: (group) => before.filter((b) => b.groups.includes(group)),
    releases: (group) => byGroup.get(group) ?? [],
    byName: (group) => guess(group)
      .filter((i) => !chartEntryFor(i.release, releases, cluster.objects))
      .map((i) => ({ release: i.release, owner: i.owner, chart: i.chart, how: 'name' as const })),
    bootstrap: before,
  };
}

/** A release whose chart the table knows is never matched by name: the table has the last word on it. */
function chartEntryFor(release: string, releases: RenderedObject[], objects: readonly RenderedObject[]): boolean {
  const hr = releases.find((r) => refKey({ kind: 'HelmRelease', namespace: r.namespace, name: r.name }) === release);
  return !!hr && releaseCharts(hr, objects).charts.some((c) => chartEntry(c));
}

/**
 * Bootstrap installs with their groups: a release's chart as written, else the chart of the cluster's HelmRelease
 * of the same name and namespace (a templated helmfile often reads it from there), else the release's own name,
 * each looked up in the chart table; plus the groups read from the files its hooks apply or wait for.
 */
function bootstrapInstalls(bootstrap: Bootstrap, releases: RenderedObject[], objects: readonly RenderedObject[]): BeforeFlux[] {
  const out: BeforeFlux[] = [];
  for (const i of bootstrap.installs) {
    const groups = new Set(i.groups);
    let via = i.kind === 'hook-apply' ? 'CRDs a hook applies' : i.kind === 'manifest' ? 'CRDs in the manifests' : '';
    // A manifest that names the software it installs (Talos' CNI URL `.../cilium/cilium.yaml`): its chart's groups.
    if (i.kind === 'helmfile-release' || i.kind === 'chart-install' || (i.kind === 'manifest' && i.chart)) {
      const resolved = releaseChart(i, releases, objects);
      if (resolved) {
        for (const g of resolved.entry.groups) groups.add(g);
        via = i.kind === 'manifest' ? `${resolved.chart}, as its URL names it (the groups of chart ${resolved.chart})` : `chart ${resolved.chart}${resolved.from}`;
      } else if (groups.size) {
        via = 'the CRDs its hooks wait for';
      }
    }
    if (groups.size === 0) continue;
    // Flux's own groups exist before any tier anyway: a flux-operator release is not news.
    const shown = [...groups].filter((g) => !isFluxGroup(g));
    if (shown.length === 0) continue;
    out.push({ name: i.name, groups: shown, via, file: i.file, line: i.line });
  }
  for (const p of bootstrap.platforms) {
    out.push({ name: `platform ${p.platform}`, groups: [...PLATFORM_GROUPS[p.platform]], via: `declared in ${p.from}`, file: p.from.replace(/ \(.*\)$/, ''), line: null });
  }
  return out;
}

function releaseChart(i: BootstrapInstall, releases: RenderedObject[], objects: readonly RenderedObject[]) {
  if (i.chart) {
    const entry = chartEntry(i.chart);
    return entry ? { entry, chart: chartKey(i.chart), from: '' } : null;
  }
  const same = releases.filter((r) => r.name === i.name && (i.namespace === null || r.namespace === i.namespace));
  for (const hr of same) {
    for (const c of releaseCharts(hr, objects).charts) {
      const entry = chartEntry(c);
      if (entry) return { entry, chart: c, from: `, from HelmRelease ${hr.namespace}/${hr.name}` };
    }
  }
  const entry = chartEntry(i.name);
  return entry ? { entry, chart: chartKey(i.name), from: ' (by the release name: the chart is templated)' } : null;
}

/** The bootstrap and platform installs of every cluster, merged by name: `check`'s "bootstrap installs" line. */
export function bootstrapSummary(clusters: readonly ClusterModel[], bootstrap: Bootstrap): BeforeFlux[] {
  const out = new Map<string, BeforeFlux>();
  for (const c of clusters) {
    for (const b of installersOf(c, bootstrap).bootstrap) {
      const had = out.get(b.name);
      out.set(b.name, had ? { ...had, groups: [...new Set([...had.groups, ...b.groups])] } : b);
    }
  }
  return [...out.values()];
}
