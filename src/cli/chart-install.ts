// bootstrap.install.operator (or .path) naming a Helm chart: rendered here, while the run's inputs are read, with the
// real helm, so that a chart that does not render is exit 2 naming tiers.yaml:LINE before anything touches a cluster,
// and the objects then take the path rendered manifests take (context guard, dry-run, server-side apply, wait).
import path from 'node:path';
import { chartSource, ChartSourceError, type ChartSource } from '../bootstrap/chart-source.js';
import { findHelm } from '../bootstrap/find-helm.js';
import { renderChart } from '../bootstrap/helm-template.js';
import { configLineOf } from '../bootstrap/operator-chart.js';
import { readPreFluxInstalls } from '../bootstrap/pre-flux-installs.js';
import type { LoadedRepository } from '../load/load-repository.js';
import { ConfigError } from '../model/errors.js';
import type { Obj } from '../model/k8s.js';
import type { RenderedObject } from '../model/flux.js';
import { CONFIG_FILE } from '../repo/tiers-yaml.js';
import type { K8sObject } from '../cluster/client.js';

const isMap = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The objects the chart `file` renders to, with helm's ownership metadata; null when `file` is no chart (rendered
 * manifests, read as before). `objects`: the cluster's objects from git, where a HelmRelease's source and the
 * repository's own release of the chart are looked up.
 */
export async function readChartInstall(repo: LoadedRepository, cluster: string, key: 'path' | 'operator', file: string, objects: readonly RenderedObject[], env: NodeJS.ProcessEnv = process.env): Promise<{ file: string; objects: K8sObject[] } | null> {
  const at = `${CONFIG_FILE}${configLineOf(repo.configText, key, file)}`;
  const named = `clusters.${cluster}.bootstrap.install.${key} names ${file}`;
  let src: ChartSource | null;
  try {
    src = chartSource(path.resolve(repo.root, file), file, { sources: sourceLookup(objects), releaseOf: releaseLookup(repo, objects), memo: repo.memo });
  } catch (e) {
    if (e instanceof ChartSourceError) throw new ConfigError('BOOTSTRAP_CHART', `${at}: ${named}: ${e.message}`, e.hint);
    throw e;
  }
  if (!src) return null;
  const what = `${src.what}, chart ${shownChart(repo.root, src.chart)}${src.version ? ` ${src.version}` : ''}`;
  const helm = findHelm(env);
  const commit = `commit its rendered manifests (\`helm template ${src.release} ${shownChart(repo.root, src.chart)} --namespace ${src.namespace} --include-crds > bootstrap/flux-operator.yaml\`, or flux-operator's release manifest, install.yaml) and point install.${key} at that file`;
  if (!helm) {
    throw new ConfigError('HELM_NOT_FOUND', `${at}: ${named}, ${what}: standup renders it with helm, and ${env.STANDUP_HELM ? `STANDUP_HELM=${env.STANDUP_HELM} is not an executable` : 'helm is not on PATH'}`,
      `Install helm (https://helm.sh/docs/intro/install/; or set STANDUP_HELM to its path), or ${commit}.`);
  }
  const r = await renderChart(helm, src, shownChart(repo.root, src.chart));
  if (!r.ok) {
    const why = r.reason === 'not-started' ? `${helm} did not start: ${r.message}` : `helm template failed (exit ${r.exitCode}): ${r.stderr || 'no message'}`;
    throw new ConfigError('HELM_FAILED', `${at}: ${named}, ${what}: ${why}`, `Fix the chart or its values (helm's words above), or ${commit}.`);
  }
  if (r.objects.length === 0) throw new ConfigError('HELM_FAILED', `${at}: ${named}, ${what}: helm template rendered no objects`, `Check the chart's templates and values, or ${commit}.`);
  return { file: `${file} (helm template ${src.release})`, objects: withNamespace(r.objects, src.namespace) };
}

/**
 * The release namespace first, unless the chart renders it: charts leave it out (helm install --create-namespace,
 * helm-controller's install.createNamespace make it), and on a bare cluster nothing else would. Without helm's
 * ownership metadata, as --create-namespace makes it: a namespace is never part of the release.
 */
function withNamespace(objects: K8sObject[], namespace: string): K8sObject[] {
  if (objects.some((o) => o.kind === 'Namespace' && o.metadata.name === namespace)) return objects;
  return [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }, ...objects];
}

const shownChart = (root: string, chart: string) => (path.isAbsolute(chart) ? path.relative(root, chart) || '.' : chart);

function sourceLookup(objects: readonly RenderedObject[]) {
  return (kind: string, namespace: string, name: string): Obj | null =>
    (objects.find((o) => o.kind === kind && o.name === name && (o.namespace ?? 'flux-system') === namespace)?.raw as Obj | undefined) ?? null;
}

/**
 * The release the repository gives a chart: its HelmRelease of that chart (by chart name, or an OCIRepository chartRef
 * named after it), else its helmfile release of it; null when it has none.
 */
function releaseLookup(repo: LoadedRepository, objects: readonly RenderedObject[]) {
  return (chartName: string): { release: string; namespace: string } | null => {
    for (const o of objects) {
      if (o.kind !== 'HelmRelease') continue;
      const spec = isMap(o.raw.spec) ? (o.raw.spec as Obj) : {};
      if (spec.chart?.spec?.chart !== chartName && spec.chartRef?.name !== chartName) continue;
      const ns = o.namespace ?? 'flux-system';
      // helm-controller's defaults (api/v2 HelmRelease.GetReleaseName, GetReleaseNamespace).
      const target = typeof spec.targetNamespace === 'string' ? spec.targetNamespace : null;
      return { release: String(spec.releaseName ?? (target ? `${target}-${o.name}` : o.name)), namespace: target ?? ns };
    }
    const { installs } = readPreFluxInstalls(repo.root, repo.config, repo.clusters, repo.problems, repo.memo);
    const hf = installs.find((i) => i.kind === 'helmfile-release' && i.chart !== null && (i.chart === chartName || i.chart.endsWith(`/${chartName}`)));
    return hf ? { release: hf.name, namespace: hf.namespace ?? 'flux-system' } : null;
  };
}
