// Whether what tiers.yaml's bootstrap.install names is a Helm chart (flux-operator's, as most repositories install it:
// `helm install flux-operator oci://ghcr.io/controlplaneio-fluxcd/charts/flux-operator`, a helmfile release, a
// HelmRelease) rather than manifests `up` can apply. standup renders no Helm chart (no helm binary, no registry): the
// caller says so, with the chart found and what to commit instead.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { Obj } from '../model/k8s.js';

const isMap = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** What the chart is, in words (`a Helm chart directory (Chart.yaml: flux-operator 0.58.1)`), and how to name it to helm; null: not a chart. */
export interface ChartForm {
  what: string;
  /** The chart as `helm template` takes it (a directory, an archive, or the chart reference written in the file). */
  chart: string;
}

/** `target` is absolute; `shown` is how messages name it (relative to the repository). */
export function chartForm(target: string, shown: string): ChartForm | null {
  let st;
  try {
    st = statSync(target);
  } catch {
    return null;
  }
  const chartYaml = st.isDirectory() ? path.join(target, 'Chart.yaml') : path.basename(target) === 'Chart.yaml' ? target : null;
  if (chartYaml && existsSync(chartYaml)) {
    const meta = readYaml(chartYaml)[0];
    const named = isMap(meta) && meta.name ? `: ${String(meta.name)}${meta.version ? ` ${String(meta.version)}` : ''}` : '';
    return { what: `a Helm chart directory (Chart.yaml${named})`, chart: path.dirname(shown.endsWith('Chart.yaml') ? shown : path.join(shown, 'Chart.yaml')) };
  }
  if (st.isFile() && /\.(tgz|tar\.gz)$/.test(target)) return { what: 'a packaged Helm chart', chart: shown };
  if (!st.isFile() || !/\.ya?ml(\.gotmpl)?$/.test(target)) return null;
  for (const d of readYaml(target)) {
    if (!isMap(d)) continue;
    if (d.kind === 'HelmRelease' && String(d.apiVersion ?? '').startsWith('helm.toolkit.fluxcd.io/')) {
      const ref = d.spec?.chart?.spec?.chart ?? d.spec?.chartRef?.name ?? d.metadata?.name;
      return { what: `a HelmRelease (HelmRelease/${String(d.metadata?.namespace ?? 'flux-system')}/${String(d.metadata?.name)}, chart ${String(ref)})`, chart: String(ref) };
    }
    if (Array.isArray(d.releases)) {
      const r = (d.releases as unknown[]).find((x): x is Obj => isMap(x) && /flux-operator/.test(String(x.chart ?? x.name ?? ''))) ?? (d.releases as unknown[]).find(isMap);
      return { what: `a helmfile (release ${String(r?.name ?? '?')}, chart ${String(r?.chart ?? '?')})`, chart: String(r?.chart ?? '<chart>') };
    }
  }
  return null;
}

function readYaml(file: string): unknown[] {
  try {
    // A helmfile's {{ ... }} are left as they are: only its top-level keys are looked at.
    return parseAllDocuments(readFileSync(file, 'utf8')).filter((d) => d.errors.length === 0).map((d) => d.toJS() as unknown);
  } catch {
    return [];
  }
}

/** The line of tiers.yaml holding `key: value` (the install entry), as `:LINE`, or ''. */
export function configLineOf(configText: string | null, key: string, value: string): string {
  if (!configText) return '';
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const i = configText.split('\n').findIndex((l) => new RegExp(`\\b${esc(key)}\\s*:\\s*["']?${esc(value)}["']?\\s*(#.*)?$`).test(l));
  return i < 0 ? '' : `:${i + 1}`;
}
