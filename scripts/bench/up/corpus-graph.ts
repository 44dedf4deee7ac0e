// A corpus cluster entry read as standup reads it (the real kustomize, Flux's rules), reduced to the graph the
// benchmark runs: every Kustomization with its namespace, dependsOn, parent, wait, healthChecks and timeouts, and
// per Kustomization the HelmReleases and Namespaces it really applies.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { ClusterModel, FluxKustomization, RenderedObject } from '../../../src/model/flux.js';
import { isRootSync } from '../../../src/plan/plan.js';
import { loadRepository } from '../../../src/load/load-repository.js';
import { keyOf, type GraphSpec, type HealthRef, type ReleaseSpec, type TierSpec } from './graph-spec.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const CORPUS = process.env.STANDUP_CORPUS ?? path.resolve(ROOT, '../shared/corpus');

/** The three graphs of issue 13: the most edges (sulibot), the most Kustomizations (joryirving), bjw-s. */
export const CORPUS_GRAPHS = {
  sulibot: { dir: 'sulibot__home-ops', entry: 'kubernetes/clusters/cluster-101' },
  joryirving: { dir: 'joryirving__home-ops', entry: 'kubernetes/clusters/main' },
  'bjw-s': { dir: 'bjw-s-labs__home-ops', entry: 'kubernetes/flux/cluster' },
} as const;
export type CorpusGraphName = keyof typeof CORPUS_GRAPHS;
export const isCorpusGraph = (n: string): n is CorpusGraphName => Object.hasOwn(CORPUS_GRAPHS, n);

/**
 * The corpus left out the non-YAML inputs of configMapGenerator/secretGenerator (its INDEX.md), so a few app folders
 * do not build, and a tier that does not build hides its HelmReleases. A temporary copy gets an empty file for each
 * missing input (kustomize only reads them into ConfigMap data), as the plan benchmark does. Returns what it created.
 */
export function fillGeneratorInputs(dir: string): string[] {
  const created: string[] = [];
  const walk = (d: string): void => {
    for (const ent of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, ent.name);
      if (ent.isDirectory()) {
        if (ent.name !== '.git') walk(p);
        continue;
      }
      if (!['kustomization.yaml', 'kustomization.yml', 'Kustomization'].includes(ent.name)) continue;
      let docs: unknown[];
      try {
        docs = parseAllDocuments(readFileSync(p, 'utf8')).map((x) => x.toJS() as unknown);
      } catch {
        continue;
      }
      for (const doc of docs) {
        const k = doc as { configMapGenerator?: unknown; secretGenerator?: unknown } | null;
        for (const gen of [k?.configMapGenerator, k?.secretGenerator]) {
          if (!Array.isArray(gen)) continue;
          for (const g of gen as { files?: unknown; envs?: unknown; env?: unknown }[]) {
            const refs = [...(Array.isArray(g?.files) ? g.files : []), ...(Array.isArray(g?.envs) ? g.envs : []), ...(typeof g?.env === 'string' ? [g.env] : [])];
            for (const ref of refs) {
              if (typeof ref !== 'string') continue;
              const file = ref.includes('=') ? ref.slice(ref.indexOf('=') + 1) : ref;
              const abs = path.resolve(d, file);
              if (!abs.startsWith(dir + path.sep) || existsSync(abs)) continue;
              mkdirSync(path.dirname(abs), { recursive: true });
              writeFileSync(abs, '');
              created.push(path.relative(dir, abs));
            }
          }
        }
      }
    }
  };
  walk(dir);
  return created.sort();
}

/** Loads a corpus entry from a temporary copy with its generator inputs filled in; the copy is removed after. */
export async function loadCorpusEntry(dir: string, entry: string): Promise<{ model: ClusterModel; placeholders: string[]; buildFailures: string[] }> {
  const src = path.join(CORPUS, dir);
  if (!existsSync(src)) throw new Error(`corpus directory ${src} not found (set STANDUP_CORPUS to the corpus root)`);
  const copy = mkdtempSync(path.join(os.tmpdir(), 'standup-bench-corpus-'));
  try {
    cpSync(src, copy, { recursive: true });
    const placeholders = fillGeneratorInputs(copy);
    const repo = await loadRepository({ repo: copy, path: entry, scope: 'all' });
    const model = repo.clusters[0];
    if (!model) throw new Error(`${dir}: no cluster at ${entry}`);
    const buildFailures = repo.problems.filter((p) => p.code === 'build-failed' || p.code === 'path-missing').map((p) => `${p.object ?? p.file}: ${p.message.split('\n')[0]}`);
    return { model, placeholders, buildFailures };
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

const BUILTIN_NAMESPACES = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease', 'flux-system']);

/** What a tier applies: HelmReleases, Namespaces, sources of other Kustomizations (filled in by graphFromModel). */
const emptyContent = () => ({ helmReleases: [] as ReleaseSpec[], namespaces: [] as string[], configMaps: [] as { namespace: string; name: string }[], sources: [] as TierSpec['sources'] });

const sanitize = (s: string) => s.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
const standInName = (kind: string, name: string) => `hc-${sanitize(kind)}-${sanitize(name)}`.slice(0, 63).replace(/-+$/, '');

/**
 * The benchmark's graph of a loaded cluster. Kept exactly: every Kustomization's key, dependsOn (those that resolve),
 * parent, wait, timeout, interval, retryInterval, prune. Each tier applies the same number of HelmReleases (same
 * names and namespaces, their dependsOn on each other kept) and the same Namespaces as the real one; a tier with
 * no HelmRelease applies one ConfigMap. healthChecks entries are pointed at an object the generated repository
 * creates (see healthTarget). Everything else a real tier applies is left out; `notes` says what and why.
 */
export function graphFromModel(name: string, origin: string, model: ClusterModel): GraphSpec {
  const notes: string[] = [];
  const seen = new Set<string>();
  const ks: FluxKustomization[] = [];
  for (const k of model.kustomizations) {
    if (seen.has(k.key)) {
      notes.push(`${k.key} is defined twice; the first definition (${k.origin.file}) is kept, as standup's graph does`);
      continue;
    }
    seen.add(k.key);
    ks.push(k);
  }
  const root = ks.find((k) => isRootSync(k, model.entry)) ?? null;
  const rootRef = root ? { namespace: root.namespace, name: root.name } : { namespace: 'flux-system', name: seen.has('flux-system/flux-system') ? 'standup-bench-root' : 'flux-system' };
  if (!root) notes.push(`the entry does not apply its root sync (in the real cluster a FluxInstance or \`flux bootstrap\` creates it): the generated repository applies ${keyOf(rootRef)} from bootstrap/sync, outside the entry, so the plan's Kustomizations stay the same`);
  const rootK = keyOf(rootRef);
  const ownerOf = (o: RenderedObject): string => (o.owner === null || o.owner === rootK ? rootK : o.owner);
  const objectsOf = new Map<string, RenderedObject[]>();
  for (const o of model.objects) {
    const owner = ownerOf(o);
    if (!seen.has(owner) && owner !== rootK) continue;
    objectsOf.set(owner, [...(objectsOf.get(owner) ?? []), o]);
  }
  const isHelmRelease = (o: RenderedObject) => o.kind === 'HelmRelease' && o.apiVersion.startsWith('helm.toolkit.fluxcd.io/');
  const releases = new Map<string, string>(); // HelmRelease key -> owner tier
  for (const [owner, objs] of objectsOf) for (const o of objs) if (isHelmRelease(o)) releases.set(`${o.namespace ?? 'default'}/${o.name}`, owner);

  const content = new Map<string, ReturnType<typeof emptyContent>>();
  const contentOf = (key: string) => {
    let c = content.get(key);
    if (!c) content.set(key, (c = emptyContent()));
    return c;
  };
  let droppedReleaseDeps = 0;
  for (const [owner, objs] of objectsOf) {
    const c = contentOf(owner);
    for (const o of objs) {
      if (o.kind === 'Namespace' && o.apiVersion === 'v1' && !c.namespaces.includes(o.name)) c.namespaces.push(o.name);
      if (!isHelmRelease(o)) continue;
      const ns = o.namespace ?? 'default';
      const deps = (((o.raw.spec as { dependsOn?: { name?: string; namespace?: string }[] } | undefined)?.dependsOn) ?? [])
        .filter((d) => typeof d?.name === 'string')
        .map((d) => `${d.namespace ?? ns}/${d.name}`);
      const kept = deps.filter((d) => releases.has(d));
      droppedReleaseDeps += deps.length - kept.length;
      c.helmReleases.push({ namespace: ns, name: o.name, dependsOn: kept });
    }
  }
  if (droppedReleaseDeps) notes.push(`${droppedReleaseDeps} HelmRelease dependsOn entries name a HelmRelease this cluster does not apply; left out (they would wait forever)`);

  // Kustomizations reading another source than the root sync's: that source is served as a repository of its own.
  const tiers: TierSpec[] = [];
  const rootSource = root?.sourceRef ?? model.kustomizations.find((k) => k.parent === null)?.sourceRef;
  for (const k of ks) {
    if (k === root) continue;
    const spec = (k.raw.spec ?? {}) as { retryInterval?: string; suspend?: boolean; healthCheckExprs?: unknown[]; kubeConfig?: unknown; decryption?: unknown; postBuild?: unknown };
    const resolved = k.dependsOn.map((d) => d.key).filter((d) => seen.has(d));
    const dangling = k.dependsOn.map((d) => d.key).filter((d) => !seen.has(d));
    if (dangling.length) notes.push(`${k.key} dependsOn ${dangling.join(', ')}, which this cluster does not have: left out (Flux would wait on it forever)`);
    if (spec.suspend) notes.push(`${k.key} is suspended in the repository; the generated one is not (a suspended tier never becomes Ready)`);
    if (spec.kubeConfig) notes.push(`${k.key} applies to another cluster (spec.kubeConfig); the generated one applies to this one`);
    let external: TierSpec['external'];
    if (k.repoPath === null) {
      const repo = `src-${sanitize(k.sourceRef.namespace)}-${sanitize(k.sourceRef.name)}`;
      external = { namespace: k.sourceRef.namespace, name: k.sourceRef.name, repo, path: k.path ?? './' };
      if (k.sourceRef.kind !== 'GitRepository') notes.push(`${k.key} reads ${k.sourceRef.kind}/${k.sourceRef.namespace}/${k.sourceRef.name}; the testbed serves git only, so the generated one reads a GitRepository of that name`);
    } else if (rootSource && (k.sourceRef.kind !== rootSource.kind || k.sourceRef.name !== rootSource.name || k.sourceRef.namespace !== rootSource.namespace)) {
      notes.push(`${k.key} reads this repository through ${k.sourceRef.kind}/${k.sourceRef.namespace}/${k.sourceRef.name}; the generated one reads the root sync's GitRepository`);
    }
    const c = contentOf(k.key);
    tiers.push({
      namespace: k.namespace,
      name: k.name,
      parent: k.parent,
      dependsOn: resolved,
      wait: k.wait,
      ...(k.timeout ? { timeout: k.timeout } : {}),
      ...(k.interval ? { interval: k.interval } : {}),
      ...(typeof spec.retryInterval === 'string' ? { retryInterval: spec.retryInterval } : {}),
      prune: k.prune,
      healthChecks: [],
      helmReleases: c.helmReleases,
      namespaces: c.namespaces,
      configMaps: c.configMaps,
      sources: c.sources,
      ...(external ? { external } : {}),
    });
  }
  const byKey = new Map(tiers.map((t) => [keyOf(t), t]));
  const entryContent = contentOf(rootK);
  const tierContent = (key: string) => (key === rootK ? entryContent : byKey.get(key) ?? entryContent);

  // The source objects of external tiers, in the tier that applies them in the real repository (else the entry).
  for (const t of tiers) {
    if (!t.external) continue;
    const e = t.external;
    if ([...tiers.flatMap((x) => x.sources), ...entryContent.sources].some((s) => s.namespace === e.namespace && s.name === e.name)) continue;
    const real = model.objects.find((o) => o.kind === 'GitRepository' && o.name === e.name && (o.namespace ?? '') === e.namespace);
    tierContent(real ? ownerOf(real) : rootK).sources.push({ namespace: e.namespace, name: e.name, repo: e.repo });
  }

  // healthChecks: each entry names an object the generated repository creates, chosen as close to the real one as
  // the inert repository allows.
  let standIns = 0;
  let byRelease = 0;
  for (const k of ks) {
    if (k === root) continue;
    const t = byKey.get(k.key)!;
    const hcs = (((k.raw.spec as { healthChecks?: HealthRef[] } | undefined)?.healthChecks) ?? []).filter((h) => h && typeof h.kind === 'string' && typeof h.name === 'string');
    for (const h of hcs) {
      const target = healthTarget(h, k, t, { model, releases, ownerOf, byKey });
      if (target.standInIn) {
        standIns++;
        const c = tierContent(target.standInIn);
        if (!c.configMaps.some((x) => x.namespace === target.ref.namespace && x.name === target.ref.name)) c.configMaps.push({ namespace: target.ref.namespace!, name: target.ref.name });
      } else if (target.ref.kind === 'HelmRelease' && h.kind !== 'HelmRelease') byRelease++;
      if (!t.healthChecks.some((x) => x.kind === target.ref.kind && x.name === target.ref.name && x.namespace === target.ref.namespace)) t.healthChecks.push(target.ref);
    }
  }
  if (byRelease) notes.push(`${byRelease} healthChecks entries name an object a chart creates at runtime (a DaemonSet, a CRD, ...): they check the HelmRelease that would create it instead`);
  if (standIns) notes.push(`${standIns} healthChecks entries name an object of a kind the generated repository does not create (a ClusterIssuer, a Secret, ...): they check a ConfigMap stand-in that the same tier applies`);
  const exprs = ks.filter((k) => ((k.raw.spec as { healthCheckExprs?: unknown[] } | undefined)?.healthCheckExprs ?? []).length > 0).length;
  if (exprs) notes.push(`${exprs} Kustomizations have healthCheckExprs for custom kinds; left out (those kinds do not exist here)`);

  // A tier of plain config applies one ConfigMap; every namespace an object lands in must exist by then.
  for (const t of tiers) if (t.helmReleases.length === 0) t.configMaps.unshift({ namespace: t.namespace, name: `bench-${t.name}`.slice(0, 63) });
  ensureNamespaces({ rootK, tiers, entryContent, notes });

  return {
    name,
    origin,
    entry: model.entry,
    root: { ...rootRef, inEntry: root !== null, ...(root?.interval ? { interval: root.interval } : {}), ...(root?.timeout ? { timeout: root.timeout } : {}), ...(root?.wait ? { wait: true } : {}) },
    tiers,
    entryContent,
    notes,
  };
}

/**
 * Where a healthChecks entry points in the generated repository:
 * 1. an object it generates with that kind, namespace and name (a HelmRelease, a Namespace, a Kustomization): the same
 *    entry;
 * 2. an object the real repository renders (a ClusterIssuer, a Gateway, a Job): a ConfigMap stand-in applied by the
 *    tier that applies the real one, so the check waits for that tier as the real one does;
 * 3. an object a chart creates at runtime (cilium's DaemonSet, a CRD): the HelmRelease that would create it (same
 *    namespace, the longest name that prefixes the object's), else one of the tier's own HelmReleases;
 * 4. otherwise a ConfigMap stand-in the tier applies itself.
 */
function healthTarget(
  h: HealthRef,
  k: FluxKustomization,
  t: TierSpec,
  o: { model: ClusterModel; releases: Map<string, string>; ownerOf: (x: RenderedObject) => string; byKey: Map<string, TierSpec> },
): { ref: HealthRef; standInIn?: string } {
  const ns = h.namespace ?? '';
  if (h.kind === 'HelmRelease' && o.releases.has(`${ns || k.namespace}/${h.name}`)) return { ref: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: h.name, namespace: ns || k.namespace } };
  if (h.kind === 'Namespace' && [...o.byKey.values()].some((x) => x.namespaces.includes(h.name))) return { ref: { apiVersion: 'v1', kind: 'Namespace', name: h.name } };
  if (h.kind === 'Kustomization' && o.byKey.has(`${ns || k.namespace}/${h.name}`)) return { ref: { apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', name: h.name, namespace: ns || k.namespace } };
  const standIn = (owner: string, namespace: string) => ({ ref: { apiVersion: 'v1', kind: 'ConfigMap', name: standInName(h.kind, h.name), namespace }, standInIn: owner });
  const real = o.model.objects.find((x) => x.kind === h.kind && x.name === h.name && (!ns || (x.namespace ?? '') === ns));
  if (real) {
    const owner = o.ownerOf(real);
    const tier = o.byKey.get(owner);
    return standIn(owner, tier?.namespace ?? k.namespace);
  }
  const candidates = [...o.releases.keys()].map((r) => ({ r, ns: r.slice(0, r.indexOf('/')), name: r.slice(r.indexOf('/') + 1) }));
  const prefixed = candidates.filter((c) => (!ns || c.ns === ns) && h.name.startsWith(c.name)).sort((a, b) => b.name.length - a.name.length)[0];
  const own = t.helmReleases[0];
  const pick = prefixed ?? (own ? { ns: own.namespace, name: own.name } : undefined);
  if (pick) return { ref: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: pick.name, namespace: pick.ns } };
  return standIn(k.key, k.namespace);
}

/**
 * Every namespaced object the generated repository applies must find its namespace when its tier applies it: one
 * of Kubernetes' own, one the tier applies itself, or one an ancestor or a dependency (transitively) applied. The
 * real repositories mostly do this right; where not, the tier applies the Namespace too, and the notes say so.
 */
function ensureNamespaces(o: { rootK: string; tiers: TierSpec[]; entryContent: GraphSpec['entryContent']; notes: string[] }): void {
  const byKey = new Map(o.tiers.map((t) => [keyOf(t), t]));
  const created = (key: string) => (key === o.rootK ? o.entryContent.namespaces : byKey.get(key)?.namespaces ?? []);
  const before = new Map<string, Set<string>>();
  const available = (key: string, stack = new Set<string>()): Set<string> => {
    const hit = before.get(key);
    if (hit) return hit;
    const out = new Set<string>([...BUILTIN_NAMESPACES, ...created(o.rootK)]);
    if (stack.has(key)) return out;
    stack.add(key);
    const t = byKey.get(key);
    for (const up of [...(t?.parent ? [t.parent] : []), ...(t?.dependsOn ?? [])]) {
      for (const n of created(up)) out.add(n);
      for (const n of available(up, stack)) out.add(n);
    }
    stack.delete(key);
    before.set(key, out);
    return out;
  };
  // What each tier applies into a namespace, its child Kustomizations included.
  const applier = (t: TierSpec) => (t.parent === null || t.parent === o.rootK ? o.rootK : t.parent);
  const childNamespaces = new Map<string, string[]>();
  for (const t of o.tiers) childNamespaces.set(applier(t), [...(childNamespaces.get(applier(t)) ?? []), t.namespace]);
  const needs = (key: string, c: GraphSpec['entryContent']) => new Set([...c.helmReleases.map((r) => r.namespace), ...c.configMaps.map((x) => x.namespace), ...c.sources.map((s) => s.namespace), ...(childNamespaces.get(key) ?? [])]);
  const added: string[] = [];
  for (const t of o.tiers) {
    const have = available(keyOf(t));
    for (const n of needs(keyOf(t), t)) {
      if (have.has(n) || t.namespaces.includes(n)) continue;
      t.namespaces.push(n);
      added.push(`${n} (in ${keyOf(t)})`);
    }
  }
  for (const n of needs(o.rootK, o.entryContent)) {
    if (!BUILTIN_NAMESPACES.has(n) && !o.entryContent.namespaces.includes(n)) {
      o.entryContent.namespaces.push(n);
      added.push(`${n} (in the entry)`);
    }
  }
  if (added.length) o.notes.push(`${added.length} tiers apply objects into a namespace that nothing orders before them; the generated tier applies that Namespace itself: ${added.join(', ')}`);
}

/** The benchmark graph of one of the corpus entries (loads it: a few seconds of kustomize). */
export async function corpusGraph(name: CorpusGraphName): Promise<GraphSpec & { placeholders: string[] }> {
  const c = CORPUS_GRAPHS[name];
  const { model, placeholders, buildFailures } = await loadCorpusEntry(c.dir, c.entry);
  const g = graphFromModel(name, `corpus ${c.dir} at ${c.entry}`, model);
  if (placeholders.length) g.notes.push(`${placeholders.length} configMapGenerator/secretGenerator inputs the corpus left out were created empty in a temporary copy, so that every tier builds`);
  for (const f of buildFailures) g.notes.push(`still not built (its HelmReleases are unknown): ${f}`);
  return { ...g, placeholders };
}
