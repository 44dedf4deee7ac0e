// What `helm template` needs to render the flux-operator chart tiers.yaml's bootstrap.install names: the chart (a
// directory, an archive, an oci:// reference, or a chart name with its https repository), its version, the release
// name and namespace, and the values. Read from each form the repository may hold it in: a chart directory or .tgz, a
// HelmRelease (its HelmRepository or OCIRepository in the same file or elsewhere in the repository, values inline and
// from ConfigMaps in the same file, merged as helm-controller merges them), or a helmfile release.
import path from 'node:path';
import type { Obj } from '../model/k8s.js';
import type { TextMemo } from '../repo/lazy-yaml.js';
import { mergeValues } from '../repo/helm-values.js';
import { chartForm, readYamlDocs, type ChartForm } from './operator-chart.js';

const isMap = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

export interface ChartSource {
  /** The form, in words, for messages (operator-chart.ts). */
  what: string;
  /** As helm takes it: an absolute directory or archive path, an oci:// reference, or a chart name (with `repo`). */
  chart: string;
  /** An https chart repository (`--repo`), for a chart name from a HelmRepository or helmfile repository. */
  repo: string | null;
  version: string | null;
  release: string;
  namespace: string;
  /** Values files (absolute), in order. */
  valueFiles: string[];
  /**
   * Values given inline (a HelmRelease's merged valuesFrom + values, a helmfile's inline values): passed to helm on
   * its stdin (`-f -`), never written to disk, since valuesFrom may be a Secret.
   */
  values: Obj | null;
  /** Where helm runs (relative chart paths in a helmfile are relative to it). */
  cwd: string;
}

/** Why a chart form cannot be rendered: what is missing, in words, and what to do. */
export class ChartSourceError extends Error {
  constructor(message: string, readonly hint: string) {
    super(message);
  }
}

/** A source object (HelmRepository, OCIRepository) by kind, namespace and name: from the same file first, then the repository. */
export type SourceLookup = (kind: string, namespace: string, name: string) => Obj | null;

/** The repository's HelmRelease (or helmfile release) for a chart: its release name and namespace, for a chart directory or archive. */
export type ReleaseLookup = (chartName: string) => { release: string; namespace: string } | null;

const DEFAULT_NS = 'flux-system';

/**
 * The chart source for `target` (absolute; `shown` relative to the repository), or null when it is no chart form
 * (rendered manifests). Throws ChartSourceError when it is a chart that cannot be rendered from what the repository
 * says (a HelmRelease whose source is nowhere, a GitRepository chart, a templated helmfile value).
 */
export function chartSource(target: string, shown: string, o: { sources: SourceLookup; releaseOf: ReleaseLookup; memo?: TextMemo }): ChartSource | null {
  const form = chartForm(target, shown, o.memo);
  if (!form) return null;
  if (form.kind === 'directory' || form.kind === 'archive') {
    // The release name and namespace decide the adoption annotations (helm-ownership.ts): those of the HelmRelease or
    // helmfile release that installs the same chart later, when the repository has one.
    const named = (form.chartName && o.releaseOf(form.chartName)) || { release: form.chartName ?? 'flux-operator', namespace: DEFAULT_NS };
    const abs = form.kind === 'directory' ? form.dir! : target;
    return { what: form.what, chart: abs, repo: null, version: null, ...named, valueFiles: [], values: null, cwd: path.dirname(abs) };
  }
  if (form.kind === 'helmrelease') return fromHelmRelease(form, target, o.sources, o.memo);
  return fromHelmfile(form, target, o.memo);
}

function fromHelmRelease(form: ChartForm, file: string, sources: SourceLookup, memo: TextMemo | undefined): ChartSource {
  const docs = readYamlDocs(file, false, memo).filter(isMap);
  const hr = form.doc!;
  const name = String(hr.metadata?.name);
  const ns = String(hr.metadata?.namespace ?? DEFAULT_NS);
  const id = `HelmRelease/${ns}/${name}`;
  // helm-controller's defaults (api/v2 HelmRelease.GetReleaseName, GetReleaseNamespace).
  const releaseNs = String(hr.spec?.targetNamespace ?? ns);
  const release = String(hr.spec?.releaseName ?? (hr.spec?.targetNamespace ? `${String(hr.spec.targetNamespace)}-${name}` : name));
  const find = (kind: string, n: string) => docs.find((d) => d.kind === kind && d.metadata?.name === n && String(d.metadata?.namespace ?? ns) === ns) ?? null;
  const merged = mergeValues(hr, find);
  const lacking = [...merged.missing, ...merged.unreadable];
  if (lacking.length) {
    throw new ChartSourceError(`${id} takes its values from ${lacking.join(', ')}, which ${path.basename(file)} does not hold (or holds encrypted)`, `Put those ConfigMaps beside the HelmRelease in the same file, or give the values inline.`);
  }
  const values = Object.keys(merged.values).length ? merged.values : null;
  const base = { what: form.what, release, namespace: releaseNs, valueFiles: [], values, cwd: path.dirname(file) };
  const lookup = (kind: string, n: string, sns: string) => docs.find((d) => d.kind === kind && d.metadata?.name === n && String(d.metadata?.namespace ?? ns) === sns) ?? sources(kind, sns, n);
  const ref = hr.spec?.chartRef;
  if (isMap(ref)) {
    const sns = String(ref.namespace ?? ns);
    if (ref.kind !== 'OCIRepository') throw new ChartSourceError(`${id}'s chartRef is a ${String(ref.kind)}, which standup cannot hand to helm`, 'Point install.operator at an OCIRepository chartRef, a HelmRepository chart, a chart directory or .tgz.');
    const src = lookup('OCIRepository', String(ref.name), sns);
    if (!src) throw new ChartSourceError(`${id}'s chartRef OCIRepository/${sns}/${String(ref.name)} is neither in ${path.basename(file)} nor in the repository`, 'Put the OCIRepository beside the HelmRelease.');
    const tag = src.spec?.ref?.tag ?? src.spec?.ref?.semver ?? null;
    return { ...base, chart: String(src.spec?.url), repo: null, version: tag === null ? null : String(tag) };
  }
  const spec = hr.spec?.chart?.spec;
  if (!isMap(spec) || typeof spec.chart !== 'string') throw new ChartSourceError(`${id} names no chart (spec.chart.spec.chart or spec.chartRef)`, 'Give the HelmRelease its chart.');
  const sref = isMap(spec.sourceRef) ? spec.sourceRef : {};
  const sns = String(sref.namespace ?? ns);
  if (sref.kind !== 'HelmRepository') throw new ChartSourceError(`${id}'s chart comes from a ${String(sref.kind)}, which standup cannot hand to helm`, 'Point install.operator at the chart directory itself (or a .tgz), or use a HelmRepository.');
  const src = lookup('HelmRepository', String(sref.name), sns);
  if (!src) throw new ChartSourceError(`${id}'s HelmRepository/${sns}/${String(sref.name)} is neither in ${path.basename(file)} nor in the repository`, 'Put the HelmRepository beside the HelmRelease.');
  const url = String(src.spec?.url ?? '');
  const version = typeof spec.version === 'string' && spec.version !== '*' ? spec.version : null;
  // An OCI HelmRepository (type: oci) holds the chart at <url>/<chart>; an https one is an index helm reads (--repo).
  if (src.spec?.type === 'oci' || url.startsWith('oci://')) return { ...base, chart: `${url.replace(/\/$/, '')}/${spec.chart}`, repo: null, version };
  return { ...base, chart: spec.chart, repo: url, version };
}

function fromHelmfile(form: ChartForm, file: string, memo: TextMemo | undefined): ChartSource {
  const r = form.doc!;
  const docs = readYamlDocs(file, true, memo).filter(isMap);
  const repos = docs.flatMap((d) => (Array.isArray(d.repositories) ? (d.repositories as unknown[]).filter(isMap) : []));
  const dir = path.dirname(file);
  const id = `helmfile release ${String(r.name)}`;
  const templated = (v: unknown) => typeof v === 'string' && v.includes('__tpl');
  const chart = String(r.chart ?? '');
  if (!chart || templated(chart) || templated(r.version) || templated(r.namespace)) throw new ChartSourceError(`${id}'s chart, version or namespace is a template standup does not evaluate`, 'Write them plainly in the helmfile, or point install.operator at the chart itself.');
  const valueFiles: string[] = [];
  let values: Obj | null = null;
  for (const v of Array.isArray(r.values) ? (r.values as unknown[]) : []) {
    if (typeof v === 'string') {
      if (templated(v) || /\.gotmpl$/.test(v)) throw new ChartSourceError(`${id}'s values file ${v} is a template standup does not evaluate`, 'Give plain values files (or inline values) to the release.');
      valueFiles.push(path.resolve(dir, v));
    } else if (isMap(v)) {
      // Inline values go after the files (helm merges stdin as the last -f); helmfile keeps list order.
      values = { ...(values ?? {}), ...v };
    }
  }
  const base = { what: form.what, release: String(r.name), namespace: String(r.namespace ?? DEFAULT_NS), version: r.version === undefined ? null : String(r.version), valueFiles, values, cwd: dir };
  if (chart.startsWith('oci://')) return { ...base, chart, repo: null };
  if (chart.startsWith('.') || chart.startsWith('/')) return { ...base, chart: path.resolve(dir, chart), repo: null };
  // `<repository>/<chart>`: the repository from the helmfile's repositories list.
  const [repoName, chartName] = chart.split('/', 2) as [string, string | undefined];
  const repo = repos.find((x) => x.name === repoName);
  if (!repo || !chartName) throw new ChartSourceError(`${id}'s chart ${chart} names a repository ${repoName} the helmfile's repositories do not list`, 'List the repository (name, url) in the helmfile.');
  const url = String(repo.url ?? '');
  if (repo.oci === true || url.startsWith('oci://')) return { ...base, chart: `${url.startsWith('oci://') ? url : `oci://${url}`}/${chartName}`, repo: null };
  return { ...base, chart: chartName, repo: url };
}
