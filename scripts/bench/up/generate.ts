// Writes a GraphSpec out as an inert, runnable Flux repository: the same Kustomization graph, each tier applying a
// ConfigMap or HelmReleases of one loopback chart whose Deployment becomes ready after a delay drawn per release.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { keyOf, rootKey, type GraphSpec, type HealthRef, type ReleaseSpec, type TierSpec } from './graph-spec.js';

/** The chart every HelmRelease installs (chart.ts: a Deployment of the app image and a Service, `bench-<release>`). */
export const BENCH_CHART = { name: 'bench-app', version: '1.0.0' } as const;
/** The HelmRepository that serves it, applied with the root sync. */
export const CHART_REPOSITORY = { namespace: 'flux-system', name: 'standup-bench' } as const;
/** The cluster name in the generated tiers.yaml. */
export const BENCH_CLUSTER = 'bench';
export const MAIN_REPO = 'bench';

export interface GenerateOptions {
  /** URL of a repository on the testbed's git server, by name (MAIN_REPO or an external tier's `repo`). */
  gitUrl: (repo: string) => string;
  /** URL of the chart repository that serves BENCH_CHART. */
  chartUrl: string;
  /** Seed of the readiness delays; the same seed gives every release the same delay. */
  seed: number;
  /** Readiness delay range in seconds, [min, max]; default [1, 5]. */
  delaySeconds?: [number, number];
  /** The kube context tiers.yaml pins; the testbed's. */
  context: string;
}

export interface GeneratedRepository {
  /** Files of the main repository, path -> text. */
  files: Record<string, string>;
  /** Repositories of external tiers' sources, name -> files. */
  extraRepos: Record<string, Record<string, string>>;
  /** The directory the root sync lives in (bootstrap.sync), relative to the repository. */
  syncDir: string;
  /** Readiness delay (s) per HelmRelease key. */
  delays: Record<string, number>;
}

/** A 32-bit hash of a string (FNV-1a), the seed of one release's delay. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** mulberry32: a small seeded PRNG; one draw per (seed, release), so adding a release never shifts the others. */
function draw(seed: number, key: string): number {
  let t = (fnv1a(`${seed}:${key}`) + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** The readiness delay of one release in seconds, to 0.1 s, uniform in [min, max]. */
export function readinessDelay(seed: number, releaseKey: string, [min, max]: [number, number] = [1, 5]): number {
  return Math.round((min + (max - min) * draw(seed, releaseKey)) * 10) / 10;
}

const docs = (objs: unknown[]) => objs.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
const kustomizationFile = (resources: string[]) => stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources });
const ROOT_SOURCE = { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' } as const;

/** Where a tier's content lives in the generated repository. */
export const tierDir = (t: { namespace: string; name: string }) => `ks/${t.namespace}/${t.name}`;

function fluxKustomization(t: TierSpec): Record<string, unknown> {
  return {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name: t.name, namespace: t.namespace },
    spec: {
      interval: t.interval ?? '1h',
      ...(t.retryInterval ? { retryInterval: t.retryInterval } : {}),
      ...(t.timeout ? { timeout: t.timeout } : {}),
      path: t.external ? t.external.path : `./${tierDir(t)}`,
      prune: t.prune,
      wait: t.wait,
      sourceRef: t.external ? { kind: 'GitRepository', name: t.external.name, namespace: t.external.namespace } : ROOT_SOURCE,
      ...(t.dependsOn.length ? { dependsOn: t.dependsOn.map((d) => ({ name: d.slice(d.indexOf('/') + 1), namespace: d.slice(0, d.indexOf('/')) })) } : {}),
      ...(t.healthChecks.length ? { healthChecks: t.healthChecks.map((h: HealthRef) => ({ apiVersion: h.apiVersion, kind: h.kind, name: h.name, ...(h.namespace ? { namespace: h.namespace } : {}) })) } : {}),
    },
  };
}

function helmRelease(r: ReleaseSpec, delay: number): Record<string, unknown> {
  return {
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name: r.name, namespace: r.namespace },
    spec: {
      interval: '1h',
      chart: { spec: { chart: BENCH_CHART.name, version: BENCH_CHART.version, sourceRef: { kind: 'HelmRepository', ...CHART_REPOSITORY }, interval: '1h' } },
      values: { readyAfter: String(delay), message: `${r.namespace}/${r.name}` },
      ...(r.dependsOn.length ? { dependsOn: r.dependsOn.map((d) => ({ name: d.slice(d.indexOf('/') + 1), namespace: d.slice(0, d.indexOf('/')) })) } : {}),
    },
  };
}

/** Problems that would keep the generated objects from being applied at all (names Kubernetes refuses). */
export function nameProblems(g: GraphSpec): string[] {
  const out: string[] = [];
  const dns1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  for (const t of [...g.tiers, g.entryContent]) {
    // Helm's release names are DNS-1123 labels of at most 53 characters; the chart's objects add `bench-` (63).
    for (const r of t.helmReleases) if (!dns1123.test(r.name) || r.name.length > 53) out.push(`HelmRelease ${keyOf(r)}: Helm cannot name a release ${r.name} (a DNS-1123 label of at most 53 characters)`);
  }
  return out;
}

export function generateRepository(g: GraphSpec, o: GenerateOptions): GeneratedRepository {
  const files: Record<string, string> = {};
  const extraRepos: Record<string, Record<string, string>> = {};
  const delays: Record<string, number> = {};
  const root = rootKey(g);
  const syncDir = g.root.inEntry ? `${g.entry}/flux-system` : 'bootstrap/sync';
  const children = new Map<string, TierSpec[]>();
  for (const t of g.tiers) {
    const applier = t.parent === null || t.parent === root ? root : t.parent;
    children.set(applier, [...(children.get(applier) ?? []), t]);
  }

  /** One directory's content: Namespaces, sources, ConfigMaps, HelmReleases, then the Kustomizations it applies. */
  const writeContent = (dir: string, key: string, c: GraphSpec['entryContent'], extra: string[] = []) => {
    const resources = [...extra];
    const put = (file: string, objs: unknown[]) => {
      if (objs.length === 0) return;
      files[`${dir}/${file}`] = docs(objs);
      resources.push(file);
    };
    put('namespaces.yaml', c.namespaces.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })));
    put('sources.yaml', c.sources.map((s) => ({ apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'GitRepository', metadata: { name: s.name, namespace: s.namespace }, spec: { interval: '1h', ref: { branch: 'main' }, url: o.gitUrl(s.repo) } })));
    put('configmaps.yaml', c.configMaps.map((m) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: m.name, namespace: m.namespace }, data: { tier: key } })));
    put('helmreleases.yaml', c.helmReleases.map((r) => {
      const d = readinessDelay(o.seed, keyOf(r), o.delaySeconds);
      delays[keyOf(r)] = d;
      return helmRelease(r, d);
    }));
    put('kustomizations.yaml', (children.get(key) ?? []).map(fluxKustomization));
    files[`${dir}/kustomization.yaml`] = kustomizationFile(resources);
  };

  const sync = [
    { apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'GitRepository', metadata: { name: ROOT_SOURCE.name, namespace: ROOT_SOURCE.namespace }, spec: { interval: '1h', ref: { branch: 'main' }, url: o.gitUrl(MAIN_REPO) } },
    {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: g.root.name, namespace: g.root.namespace },
      spec: { interval: g.root.interval ?? '1h', ...(g.root.timeout ? { timeout: g.root.timeout } : {}), path: `./${g.entry}`, prune: true, ...(g.root.wait ? { wait: true } : {}), sourceRef: ROOT_SOURCE },
    },
    { apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'HelmRepository', metadata: CHART_REPOSITORY, spec: { interval: '1h', url: o.chartUrl } },
  ];
  files[`${syncDir}/gotk-sync.yaml`] = docs(sync);
  files[`${syncDir}/kustomization.yaml`] = kustomizationFile(['gotk-sync.yaml']);
  writeContent(g.entry, root, g.entryContent, g.root.inEntry ? ['flux-system'] : []);
  for (const t of g.tiers) {
    if (t.external) {
      const repo = (extraRepos[t.external.repo] ??= {});
      const p = t.external.path.replace(/^\.?\/*/, '').replace(/\/+$/, '');
      const at = (f: string) => (p ? `${p}/${f}` : f);
      repo[at('configmaps.yaml')] = docs(t.configMaps.map((m) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: m.name, namespace: m.namespace }, data: { tier: keyOf(t) } })));
      repo[at('kustomization.yaml')] = kustomizationFile(['configmaps.yaml']);
      continue;
    }
    writeContent(tierDir(t), keyOf(t), t);
  }
  files['tiers.yaml'] = [
    `# Generated by scripts/bench/up/generate.ts from ${g.origin}: the same Kustomization graph, inert content.`,
    stringify({
      version: 1,
      clusters: { [BENCH_CLUSTER]: { path: g.entry, context: o.context, resettable: true, bootstrap: { install: 'already-running', sync: syncDir } } },
      timeouts: { default: '30m' },
    }),
  ].join('\n');
  files['README.md'] = [
    `# ${g.name}: a generated benchmark repository`,
    '',
    `From ${g.origin}, by scripts/bench/up/generate.ts (seed ${o.seed}). What was left out or rewritten:`,
    '',
    ...g.notes.map((n) => `- ${n}`),
    '',
  ].join('\n');
  return { files, extraRepos, syncDir, delays };
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(dir, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
}
