// When nothing standup knows installs a CRD group, but the tier already waits for tiers that install software
// standup has no table entry for (a HelmRelease of a chart not in model/chart-crds.ts, a Crossplane package, an OLM
// Subscription), one of them probably installs it: telling the user to "make the tier depend on its tier" would be
// wrong, since it already does. The likeliest is the one whose names (release, chart, package, tier) share a word
// with the group; without such a word, the ones in the tiers it depends on directly are only named as a possibility.
import type { ClusterModel, RenderedObject } from '../model/flux.js';
import { groupOf, refKey } from '../model/ref.js';
import type { Obj } from '../model/k8s.js';
import { chartEntry } from '../model/chart-crds.js';
import { releaseCharts } from './installers.js';

export interface ProbableInstaller {
  /** `HelmRelease/ns/name (chart x)` or `Provider/provider-aws (pkg.crossplane.io)`, with its tier. */
  what: string;
  tier: string;
  /** True when a word of its names is a word of the group; false: one of the tier's direct dependsOn, a mere possibility. */
  byWord: boolean;
}

/** Kinds that install packages, and so CRDs, that no chart table can list. */
const PACKAGE_KINDS: Record<string, string[]> = {
  'pkg.crossplane.io': ['Provider', 'Configuration', 'Function'],
  'operators.coreos.com': ['Subscription'],
};

const GENERIC = new Set([
  'io', 'com', 'org', 'net', 'dev', 'sh', 'app', 'apps', 'cloud', 'ai', 'co', 'tech', 'k8s', 'x-k8s', 'kubernetes',
  'github', 'api', 'core', 'operator', 'operators', 'controller', 'toolkit', 'crd', 'crds', 'helm', 'release', 'system',
  'config', 'configs', 'the', 'flux',
  // Words of many groups that name no one product: a release called "gateway" says nothing of gateway.networking.k8s.io.
  'networking', 'gateway', 'monitoring', 'storage', 'policy', 'extensions', 'security', 'provider', 'providers',
]);

const words = (s: string): string[] => s.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length >= 3 && !GENERIC.has(w));

interface Candidate {
  what: string;
  tier: string;
  words: Set<string>;
}

/** The software the cluster's tiers install that standup's table does not know, by tier. */
export function unknownInstalls(cluster: ClusterModel): Map<string, Candidate[]> {
  const out = new Map<string, Candidate[]>();
  const add = (o: RenderedObject, what: string, names: string[]) => {
    if (!o.owner) return;
    const list = out.get(o.owner) ?? [];
    list.push({ what, tier: o.owner, words: new Set([...names, o.owner.slice(o.owner.indexOf('/') + 1)].flatMap(words)) });
    out.set(o.owner, list);
  };
  for (const o of cluster.objects) {
    if (o.kind === 'HelmRelease' && o.apiVersion.startsWith('helm.toolkit.fluxcd.io/')) {
      if ((o.raw as Obj).spec?.install?.crds === 'Skip') continue;
      const { charts } = releaseCharts(o, cluster.objects);
      if (charts.some((c) => chartEntry(c))) continue;
      add(o, `${refKey({ kind: 'HelmRelease', namespace: o.namespace, name: o.name })}${charts[0] ? ` (chart ${charts[0]})` : ''}`, [o.name, ...charts]);
    } else if (PACKAGE_KINDS[groupOf(o.apiVersion)]?.includes(o.kind)) {
      const raw = o.raw as Obj;
      const pkg = typeof raw.spec?.package === 'string' ? raw.spec.package : typeof raw.spec?.name === 'string' ? raw.spec.name : '';
      add(o, `${refKey(o)} (${groupOf(o.apiVersion)}${pkg ? `, ${pkg}` : ''})`, [o.name, pkg]);
    }
  }
  return out;
}

/**
 * The likeliest installer of `group` among the tiers Ready before the tier (`readyBefore`), or null when none of
 * them installs software standup does not know. `direct`: the tier's own dependsOn.
 */
export function probableInstaller(unknown: Map<string, Candidate[]>, group: string, readyBefore: Iterable<string>, direct: readonly string[]): ProbableInstaller | null {
  const groupWords = new Set(words(group));
  let best: { c: Candidate; score: number } | null = null;
  for (const tier of readyBefore) {
    for (const c of unknown.get(tier) ?? []) {
      const score = [...c.words].filter((w) => groupWords.has(w)).length;
      if (score > 0 && (!best || score > best.score)) best = { c, score };
    }
  }
  if (best) return { what: best.c.what, tier: best.c.tier, byWord: true };
  const near = direct.flatMap((t) => unknown.get(t) ?? []);
  return near.length ? { what: near.slice(0, 3).map((c) => c.what).join(', ') + (near.length > 3 ? ` and ${near.length - 3} more` : ''), tier: near[0]!.tier, byWord: false } : null;
}
