// Reads which Flux each cluster installs, from what the repository applies and what tiers.yaml says `up` installs:
// FluxInstances, flux-instance HelmReleases (their values merged as helm-controller merges them), and Flux's install
// manifests (the CRDs' app.kubernetes.io/version label, kustomize-controller's image tag), or a Kustomization applying
// them from a Flux source at a tag. Static reads only.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { StandupConfig } from '../model/config.js';
import type { ClusterModel, RenderedObject } from '../model/flux.js';
import type { InstalledFlux } from '../model/flux-versions.js';
import type { Obj } from '../model/k8s.js';
import { isFluxInstanceRelease, mergeValues } from '../repo/helm-values.js';
import { noMemo, yaml, type TextMemo } from '../repo/lazy-yaml.js';

/** What the flux-instance chart sets `instance.distribution.version` to when the values do not. */
export const CHART_DEFAULT_VERSION = '2.x';

export function readInstalledFlux(root: string, config: StandupConfig, clusters: readonly ClusterModel[], memo: TextMemo = noMemo): InstalledFlux[] {
  const out: InstalledFlux[] = [];
  for (const c of clusters) out.push(...installsIn(c.name, c.objects));
  for (const [name, c] of Object.entries(config.clusters)) {
    const install = c.bootstrap?.install;
    if (!install || install === 'already-running') continue;
    if ('path' in install) out.push(...manifestVersions(name, path.resolve(root, install.path), memo));
    else out.push(...instanceVersion(name, path.resolve(root, install.instance), install.instance, memo));
  }
  return out;
}

interface Located {
  raw: Obj;
  file: string;
  line: number | null;
}

const mayTell = (o: RenderedObject): boolean =>
  o.kind === 'FluxInstance' || o.kind === 'HelmRelease' ||
  (o.kind === 'CustomResourceDefinition' && o.mentions?.('app.kubernetes.io/part-of') !== false) ||
  (o.kind === 'Deployment' && o.mentions?.('kustomize-controller') !== false);

/** The installs among one cluster's rendered objects. */
export function installsIn(cluster: string, objects: readonly RenderedObject[]): InstalledFlux[] {
  const out: InstalledFlux[] = [];
  // Only these can say it (a FluxInstance, a release, Flux's CRDs, kustomize-controller's Deployment): other objects
  // are not parsed for it (see RenderedObject.raw).
  const located = objects.filter(mayTell).map((o) => ({ raw: o.raw as Obj, file: o.origin.file, line: o.origin.line, o }));
  for (const { raw, file, line, o } of located) {
    if (raw.kind === 'FluxInstance' && String(raw.apiVersion ?? '').startsWith('fluxcd.controlplane.io/')) {
      const v = raw.spec?.distribution?.version;
      out.push({ cluster, version: typeof v === 'string' && v !== '' ? v : null, kustomizeController: null, how: 'flux-instance', file, line, ...componentsOf(raw.spec?.components) });
    } else if (isFluxInstanceRelease(raw)) {
      // valuesFrom reads ConfigMaps and Secrets in the release's namespace, which the same build usually generates.
      const ns = o.namespace;
      const find = (kind: string, name: string) => (objects.find((x) => x.kind === kind && x.name === name && (x.namespace === ns || x.namespace === null))?.raw as Obj | undefined) ?? null;
      const { values } = mergeValues(raw, find);
      const v = values.instance?.distribution?.version;
      out.push({ cluster, version: typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : CHART_DEFAULT_VERSION, kustomizeController: null, how: 'flux-instance-chart', file, line, ...componentsOf(values.instance?.components) });
    }
  }
  out.push(...fromManifests(cluster, located));
  out.push(...fromFluxSources(cluster, objects));
  // Two tiers applying one file give the same object twice: one statement.
  const seen = new Set<string>();
  return out.filter((f) => {
    const k = `${f.how}\u0000${f.file}\u0000${f.line}`;
    return !seen.has(k) && !!seen.add(k);
  });
}

/** A components list as written (strings only), or nothing when there is none. */
const componentsOf = (c: unknown): { components?: string[] } =>
  Array.isArray(c) ? { components: c.filter((x): x is string => typeof x === 'string') } : {};

/** Flux's install manifests among some objects, one per file: the CRDs' version label and kustomize-controller's tag. */
function fromManifests(cluster: string, objects: readonly Located[]): InstalledFlux[] {
  const byFile = new Map<string, InstalledFlux>();
  for (const { raw, file, line } of objects) {
    const labels = raw.metadata?.labels ?? {};
    const crdVersion = raw.kind === 'CustomResourceDefinition' && labels['app.kubernetes.io/part-of'] === 'flux' ? labels['app.kubernetes.io/version'] : undefined;
    const kc = raw.kind === 'Deployment' ? kustomizeControllerTag(raw) : null;
    if (typeof crdVersion !== 'string' && !kc) continue;
    const f = byFile.get(file) ?? { cluster, version: null, kustomizeController: null, how: 'install-manifests' as const, file, line };
    if (typeof crdVersion === 'string' && !f.version) f.version = crdVersion;
    if (kc && !f.kustomizeController) f.kustomizeController = kc;
    byFile.set(file, f);
  }
  return [...byFile.values()];
}

/**
 * Flux's own manifests applied by a Kustomization from a source that names their version: a GitRepository of
 * fluxcd/flux2 at a tag (path ./manifests/...), or an OCIRepository of ghcr.io/fluxcd/flux-manifests at a tag (the
 * self-upgrade layout). Neither is expanded offline, but the tag says which Flux the cluster runs.
 */
function fromFluxSources(cluster: string, objects: readonly RenderedObject[]): InstalledFlux[] {
  const out: InstalledFlux[] = [];
  for (const k of objects) {
    if (k.kind !== 'Kustomization' || !k.apiVersion.startsWith('kustomize.toolkit.fluxcd.io/')) continue;
    const raw = k.raw as Obj;
    const ref = (raw.spec?.sourceRef ?? {}) as Obj;
    const kind = typeof ref.kind === 'string' ? ref.kind : 'GitRepository';
    const ns = typeof ref.namespace === 'string' ? ref.namespace : (k.namespace ?? 'flux-system');
    const src = objects.find((o) => o.kind === kind && o.name === ref.name && (o.namespace ?? ns) === ns && o.apiVersion.startsWith('source.toolkit.fluxcd.io/'));
    const tag = (src?.raw as Obj | undefined)?.spec?.ref?.tag;
    const url = (src?.raw as Obj | undefined)?.spec?.url;
    if (!src || typeof tag !== 'string' || typeof url !== 'string' || !FLUX_SOURCE_URL[kind]?.test(url)) continue;
    if (kind === 'GitRepository' && !/^\.?\/?manifests(\/|$)/.test(String(raw.spec?.path ?? ''))) continue;
    out.push({ cluster, version: tag, kustomizeController: null, how: 'flux-source', file: src.origin.file, line: src.origin.line });
  }
  return out;
}

/** The sources of Flux's install manifests, by source kind. */
const FLUX_SOURCE_URL: Record<string, RegExp> = {
  GitRepository: /^(?:https?:\/\/|ssh:\/\/git@|git@)github\.com[/:]fluxcd\/flux2(?:\.git)?\/?$/,
  OCIRepository: /^oci:\/\/ghcr\.io\/fluxcd\/flux-manifests\/?$/,
};

function kustomizeControllerTag(d: Obj): string | null {
  const containers: unknown = d.spec?.template?.spec?.containers;
  if (!Array.isArray(containers)) return null;
  for (const c of containers as Obj[]) {
    const m = typeof c.image === 'string' ? /(?:^|\/)kustomize-controller:(v?\d+\.\d+[^@\s]*)/.exec(c.image) : null;
    if (m) return m[1]!;
  }
  return null;
}

/**
 * What Flux's install manifests say of their version, read from a file or every YAML file of a directory (tiers.yaml's
 * bootstrap.install.path). Only the two fields are kept in the memo, not the (large) parsed manifests.
 */
function manifestVersions(cluster: string, abs: string, memo: TextMemo): InstalledFlux[] {
  let files: string[];
  try {
    files = statSync(abs).isDirectory()
      ? readdirSync(abs).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => path.join(abs, f))
      : [abs];
  } catch {
    return [];
  }
  const out: InstalledFlux[] = [];
  for (const f of files) {
    let text: string;
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    const found = memo.get('installed-flux manifests', text, () => {
      let docs: unknown[];
      try {
        docs = yaml().parseAllDocuments(text, { uniqueKeys: false }).map((d) => d.toJS({ maxAliasCount: -1 }) as unknown);
      } catch {
        // A manifest that does not parse says nothing about the version; the install step reports it when it runs.
        return null;
      }
      const objects = docs.filter((d): d is Obj => !!d && typeof d === 'object' && !Array.isArray(d)).map((raw) => ({ raw, file: '', line: null }));
      const [m] = fromManifests(cluster, objects);
      return m ? { version: m.version, kustomizeController: m.kustomizeController } : null;
    });
    if (found) out.push({ cluster, ...found, how: 'tiers.yaml', file: 'tiers.yaml', line: null });
  }
  return out;
}

/** The distribution.version of the FluxInstance in tiers.yaml's bootstrap.install.instance file. */
function instanceVersion(cluster: string, abs: string, file: string, memo: TextMemo): InstalledFlux[] {
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch {
    return [];
  }
  const version = memo.get('installed-flux instance', text, () => {
    try {
      const docs = yaml().parseAllDocuments(text, { uniqueKeys: false }).map((d) => d.toJS({ maxAliasCount: -1 }) as Obj | null);
      const fi = docs.find((d) => d?.kind === 'FluxInstance');
      const v = fi?.spec?.distribution?.version;
      return typeof v === 'string' && v !== '' ? v : null;
    } catch {
      // The run reads the file again and reports a parse error with its line.
      return null;
    }
  });
  return [{ cluster, version, kustomizeController: null, how: 'flux-instance', file, line: null }];
}
