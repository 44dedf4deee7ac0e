// Whether what tiers.yaml's bootstrap.install names is a Helm chart (flux-operator's, as most repositories install it:
// `helm install flux-operator oci://ghcr.io/controlplaneio-fluxcd/charts/flux-operator`, a helmfile release, a
// HelmRelease) rather than manifests `up` can apply. Such a chart is rendered with the real helm (chart-source.ts says
// what to hand it, helm-template.ts runs it).
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { TextMemo } from '../repo/lazy-yaml.js';
import { yamlDocuments } from '../repo/yaml-documents.js';
import type { Obj } from '../model/k8s.js';
import { stripTemplates } from './helmfile-templates.js';

const isMap = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** What the chart is, in words (`a Helm chart directory (Chart.yaml: flux-operator 0.58.1)`), and how to name it to helm; null: not a chart. */
export interface ChartForm {
  kind: 'directory' | 'archive' | 'helmrelease' | 'helmfile';
  what: string;
  /** The chart as `helm template` takes it (a directory, an archive, or the chart reference written in the file). */
  chart: string;
  /** A directory's Chart.yaml name, when it has one. */
  chartName?: string;
  /** A chart directory, absolute. */
  dir?: string;
  /** The HelmRelease, or the helmfile's release. */
  doc?: Obj;
}

/**
 * `target` is absolute; `shown` is how messages name it (relative to the repository). `memo`: the load's, so that a
 * file of manifests (a Flux install) is parsed once for this look and for reading its objects.
 */
export function chartForm(target: string, shown: string, memo?: TextMemo): ChartForm | null {
  let st;
  try {
    st = statSync(target);
  } catch {
    return null;
  }
  const chartYaml = st.isDirectory() ? path.join(target, 'Chart.yaml') : path.basename(target) === 'Chart.yaml' ? target : null;
  if (chartYaml && existsSync(chartYaml)) {
    const meta = readYamlDocs(chartYaml, false, memo)[0];
    const named = isMap(meta) && meta.name ? `: ${String(meta.name)}${meta.version ? ` ${String(meta.version)}` : ''}` : '';
    return {
      kind: 'directory',
      what: `a Helm chart directory (Chart.yaml${named})`,
      chart: path.dirname(shown.endsWith('Chart.yaml') ? shown : path.join(shown, 'Chart.yaml')),
      ...(isMap(meta) && typeof meta.name === 'string' ? { chartName: meta.name } : {}),
      dir: path.dirname(chartYaml),
    };
  }
  if (st.isFile() && /\.(tgz|tar\.gz)$/.test(target)) {
    // flux-operator-0.58.1.tgz, as `helm package` names it: the chart's name, for the release the repository gives it.
    const m = /^(.+?)-v?\d+\.\d+\.\d+.*\.(tgz|tar\.gz)$/.exec(path.basename(target));
    return { kind: 'archive', what: 'a packaged Helm chart', chart: shown, ...(m ? { chartName: m[1]! } : {}) };
  }
  if (!st.isFile() || !/\.ya?ml(\.gotmpl)?$/.test(target)) return null;
  for (const d of readYamlDocs(target, false, memo)) {
    if (!isMap(d)) continue;
    if (d.kind === 'HelmRelease' && String(d.apiVersion ?? '').startsWith('helm.toolkit.fluxcd.io/')) {
      const ref = d.spec?.chart?.spec?.chart ?? d.spec?.chartRef?.name ?? d.metadata?.name;
      return { kind: 'helmrelease', what: `a HelmRelease (HelmRelease/${String(d.metadata?.namespace ?? 'flux-system')}/${String(d.metadata?.name)}, chart ${String(ref)})`, chart: String(ref), doc: d };
    }
  }
  // A helmfile is a Go template: read with its {{ ... }} set aside (helmfile-templates.ts).
  for (const d of readYamlDocs(target, true, memo)) {
    if (isMap(d) && Array.isArray(d.releases)) {
      const r = (d.releases as unknown[]).find((x): x is Obj => isMap(x) && /flux-operator/.test(String(x.chart ?? x.name ?? ''))) ?? (d.releases as unknown[]).find(isMap);
      return { kind: 'helmfile', what: `a helmfile (release ${String(r?.name ?? '?')}, chart ${String(r?.chart ?? '?')})`, chart: String(r?.chart ?? '<chart>'), ...(r ? { doc: r } : {}) };
    }
  }
  return null;
}

/** The YAML documents of `file` that parse (none when it cannot be read); `helmfile`: its templates set aside first. */
export function readYamlDocs(file: string, helmfile = false, memo?: TextMemo): unknown[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  // Without templates a helmfile's text is the file's own: the same parse, from the memo.
  return yamlDocuments(helmfile ? stripTemplates(text).text : text, memo).flatMap((d) => ('value' in d ? [d.value] : []));
}

/** The line of tiers.yaml holding `key: value` (the install entry), as `:LINE`, or ''. */
export function configLineOf(configText: string | null, key: string, value: string): string {
  if (!configText) return '';
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const i = configText.split('\n').findIndex((l) => new RegExp(`\\b${esc(key)}\\s*:\\s*["']?${esc(value)}["']?\\s*(#.*)?$`).test(l));
  return i < 0 ? '' : `:${i + 1}`;
}
