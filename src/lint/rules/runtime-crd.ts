import { ancestors, transitiveDeps, type Graph } from '../../graph/graph.js';
import type { StandupConfig } from '../../model/config.js';
import type { ClusterModel, RenderedObject } from '../../model/flux.js';
import type { Problem } from '../../model/problem.js';
import { groupOf, objectId, splitKey } from '../../model/ref.js';
import { isBuiltinGroup, isFluxGroup } from '../builtin-groups.js';
import type { Rule } from '../rule.js';
import { chartInstallers, type ChartInstaller } from '../chart-installers.js';

// Every custom resource's CRD exists before its tier's dry-run: applied by the same tier, by a tier it depends on,
// by an ancestor, built in, or declared installed some other way. A CRD an operator creates at runtime is
// satisfied only by a strict dependsOn path from the tier that triggers the operator (the seeds' deadlock).

interface CrdInGit {
  owner: string | null;
  plural: string;
}

/** Who may satisfy a kind: `strict` owners must be reached through dependsOn, never shared with the CR's tier. */
interface Origin {
  how: 'git' | 'runtime-inferred' | 'runtime-declared';
  owners: (string | null)[];
  crd: string;
  trigger?: string;
}

export const runtimeCrdRule: Rule = {
  code: 'runtime-crd',
  description: "every custom resource's CRD is established before its tier's dry-run",
  check: ({ clusters, config }) => clusters.flatMap(({ cluster, graph }) => checkCluster(cluster, graph, config)),
};

function checkCluster(cluster: ClusterModel, graph: Graph, config: StandupConfig): Problem[] {
  const crds = crdsInGit(cluster.objects);
  const problems: Problem[] = [];
  const unknown = new Map<string, { owner: string; kinds: Set<string>; first: RenderedObject; count: number; installers: ChartInstaller[] }>();
  const installersOf = chartInstallers(cluster);

  for (const obj of cluster.objects) {
    if (obj.kind === 'CustomResourceDefinition' || obj.owner === null) continue;
    if (!graph.nodes.has(obj.owner)) continue; // excluded tier
    const group = groupOf(obj.apiVersion);
    if (isBuiltinGroup(group) || isFluxGroup(group) || isExternal(config, group, obj.kind)) continue;

    const origin = originOf(cluster, config, crds, group, obj.kind);
    if (origin === null) {
      const k = `${obj.owner}\0${group}`;
      const entry = unknown.get(k) ?? { owner: obj.owner, kinds: new Set<string>(), first: obj, count: 0, installers: installersOf(group) };
      entry.kinds.add(obj.kind);
      entry.count++;
      unknown.set(k, entry);
      continue;
    }
    const problem = checkOrder(cluster, graph, obj, origin);
    if (problem) problems.push(problem);
  }

  for (const { owner, kinds, first, count, installers } of unknown.values()) {
    const group = groupOf(first.apiVersion);
    if (installers.length > 0) {
      const p = checkChartOrder(graph, owner, [...kinds].sort(), first, count, group, installers);
      if (p) problems.push({ ...p, cluster: cluster.name, externalCrd: group });
      continue;
    }
    problems.push({
      code: 'runtime-crd',
      severity: 'warning',
      message:
        `${owner} applies ${count} resource(s) of ${[...kinds].sort().join(', ')} (${group}), and no CRD for ` +
        `${group} is in git: if a HelmRelease chart or an operator installs it, make sure ${owner} depends on ` +
        `that tier, then declare it in tiers.yaml (externalCrds: [${group}]) to silence this.`,
      file: first.origin.file,
      line: first.origin.line,
      object: objectId(first.kind, first.namespace, first.name),
      cluster: cluster.name,
      externalCrd: group,
    });
  }
  return problems;
}

function crdsInGit(objects: RenderedObject[]): Map<string, CrdInGit[]> {
  const out = new Map<string, CrdInGit[]>();
  for (const o of objects) {
    if (o.kind !== 'CustomResourceDefinition') continue;
    const spec = (o.raw.spec ?? {}) as { group?: string; names?: { kind?: string; plural?: string } };
    if (!spec.group || !spec.names?.kind) continue;
    const k = `${spec.group}/${spec.names.kind}`;
    out.set(k, [...(out.get(k) ?? []), { owner: o.owner, plural: spec.names.plural ?? o.name.split('.')[0]! }]);
  }
  return out;
}

function originOf(
  cluster: ClusterModel,
  config: StandupConfig,
  crds: Map<string, CrdInGit[]>,
  group: string,
  kind: string,
): Origin | null {
  const inGit = crds.get(`${group}/${kind}`);
  if (inGit) {
    return { how: 'git', owners: inGit.map((c) => c.owner), crd: `${inGit[0]!.plural}.${group}` };
  }
  const crd = `${pluralGuess(kind)}.${group}`;
  const declared = config.runtimeCrds.find((r) => r.group === group && r.kind === kind);
  if (declared) {
    const trigger = declared.createdBy ?? null;
    const owners = trigger
      ? triggerOwners(cluster, (o) => groupOf(o.apiVersion) === trigger.group && o.kind === trigger.kind)
      : [];
    return { how: 'runtime-declared', owners, crd, trigger: trigger ? `${trigger.kind} (${trigger.group})` : undefined };
  }
  const groupKinds = [...crds.keys()].filter((k) => k.startsWith(`${group}/`)).map((k) => k.slice(group.length + 1));
  if (groupKinds.length === 0) return null;
  // The group's operator is in git but this kind's CRD is not: the operator creates it at runtime, once it has
  // reconciled a resource of one of the group's git-defined kinds.
  let owners = triggerOwners(cluster, (o) => groupOf(o.apiVersion) === group && groupKinds.includes(o.kind));
  if (owners.length === 0) owners = groupKinds.flatMap((k) => crds.get(`${group}/${k}`)!.map((c) => c.owner));
  return { how: 'runtime-inferred', owners, crd, trigger: groupKinds.sort().join(', ') };
}

function triggerOwners(cluster: ClusterModel, match: (o: RenderedObject) => boolean): (string | null)[] {
  return [...new Set(cluster.objects.filter((o) => o.kind !== 'CustomResourceDefinition' && match(o)).map((o) => o.owner))];
}

function checkOrder(cluster: ClusterModel, graph: Graph, obj: RenderedObject, origin: Origin): Problem | null {
  const tier = obj.owner!;
  const deps = transitiveDeps(graph, tier);
  const above = new Set(ancestors(graph, tier));
  const id = objectId(obj.kind, obj.namespace, obj.name);
  const base = { code: 'runtime-crd' as const, file: obj.origin.file, line: obj.origin.line, object: id, cluster: cluster.name };

  if (origin.how === 'git') {
    // A CRD in git is established in the def stage before the same tier's resources, so the same tier is fine.
    const ok = origin.owners.some((o) => o === null || o === tier || deps.has(o) || above.has(o));
    if (ok) return null;
    const owner = origin.owners.find((o) => o !== null)!;
    return {
      ...base,
      severity: 'error',
      message:
        `${id} is applied by ${tier}, but its CRD ${origin.crd} is applied by ${owner}, which ${tier} does not ` +
        `depend on: on a cold start ${tier}'s dry-run fails with 'no matches for kind "${obj.kind}"' until ` +
        `${owner} happens to run first. Add dependsOn: [{name: ${splitKey(owner).name}` +
        `${sameNs(owner, tier) ? '' : `, namespace: ${splitKey(owner).namespace}`}}] to ${tier}.`,
    };
  }

  // Runtime-created: only a strict dependsOn path from the triggering tier helps; the same tier deadlocks.
  const triggers = origin.owners.filter((o): o is string => o !== null);
  if (triggers.some((t) => t !== tier && deps.has(t))) return null;
  const why = origin.how === 'runtime-inferred'
    ? `${origin.crd} is not in git while the group's other CRDs (${origin.trigger}) are, so the group's operator creates it at runtime`
    : `tiers.yaml declares that ${origin.crd} is created at runtime${origin.trigger ? ` by the operator of ${origin.trigger}` : ''}`;
  if (triggers.length === 0) {
    return {
      ...base,
      severity: 'error',
      message: `${id} is applied by ${tier}, but ${why}, and no tier in git applies the resource that triggers it. ` +
        `Add the trigger, or declare the CRD in tiers.yaml (externalCrds) if it is installed some other way.`,
    };
  }
  const trigger = triggers.includes(tier) ? tier : triggers[0]!;
  const move = triggers.includes(tier)
    ? `Flux dry-runs every object of a tier before applying any, so ${tier} can never converge: the trigger is ` +
      `never applied, so the CRD is never created. Move ${id} to a new tier with ` +
      `dependsOn: [{name: ${splitKey(tier).name}}] (and wait: true on ${tier}), like platform-config-cdi in the example.`
    : `${tier} does not depend on ${trigger}, which applies the trigger, so its dry-run fails until the operator ` +
      `happens to have run. Add dependsOn: [{name: ${splitKey(trigger).name}` +
      `${sameNs(trigger, tier) ? '' : `, namespace: ${splitKey(trigger).namespace}`}}] to ${tier} (with wait: true on ${trigger}).`;
  return {
    ...base,
    severity: 'error',
    message: `${id} is applied by ${tier}, but ${why}. ${move}`,
  };
}

/**
 * A group whose CRDs a HelmRelease of the cluster probably installs (chart-installers.ts): fine from a tier the
 * resource's tier depends on (or an ancestor, or the entry path); a deadlock from the same tier, as Flux dry-runs
 * the resource before the HelmRelease exists; only a warning from an unrelated tier, as the match is by name.
 */
function checkChartOrder(graph: Graph, tier: string, kinds: string[], first: RenderedObject, count: number, group: string, installers: ChartInstaller[]): Omit<Problem, 'cluster'> | null {
  const deps = transitiveDeps(graph, tier);
  const above = new Set(ancestors(graph, tier));
  if (installers.some((i) => i.owner === null || (i.owner !== tier && (deps.has(i.owner) || above.has(i.owner))))) return null;
  const id = objectId(first.kind, first.namespace, first.name);
  const what = `${count > 1 ? `${id} and ${count - 1} more resource(s)` : id} of ${kinds.join(', ')} (${group})`;
  const base = { code: 'runtime-crd' as const, file: first.origin.file, line: first.origin.line, object: id };
  const same = installers.find((i) => i.owner === tier);
  if (same) {
    return {
      ...base,
      severity: 'error',
      message:
        `${what}: no CRD for ${group} is in git, and ${same.release} (chart ${same.chart}) in the same tier ${tier} ` +
        `looks like its installer. Flux dry-runs every object of a tier before applying any, so on a cold start the ` +
        `HelmRelease is never applied and the CRD never installed. Move the resource(s) to a new tier with ` +
        `dependsOn: [{name: ${splitKey(tier).name}}] (and wait: true on ${tier}); or, if the CRDs are installed some ` +
        `other way (a bootstrap step), declare externalCrds: [${group}] in tiers.yaml.`,
    };
  }
  const other = installers.find((i) => i.owner !== null)!;
  return {
    ...base,
    severity: 'warning',
    message:
      `${what}: no CRD for ${group} is in git; ${other.release} (chart ${other.chart}) in ${other.owner} looks like its ` +
      `installer, and ${tier} does not depend on it, so its dry-run fails until that chart happens to be installed. ` +
      `Add dependsOn: [{name: ${splitKey(other.owner!).name}${sameNs(other.owner!, tier) ? '' : `, namespace: ${splitKey(other.owner!).namespace}`}}] ` +
      `to ${tier}, or declare externalCrds: [${group}] in tiers.yaml if it is installed some other way.`,
  };
}

const sameNs = (a: string, b: string): boolean => splitKey(a).namespace === splitKey(b).namespace;

/** Kubernetes' own lower-case plural rule, good enough to name a CRD that is not in git. */
export function pluralGuess(kind: string): string {
  const k = kind.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(k)) return `${k}es`;
  if (/[^aeiou]y$/.test(k)) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}

/** externalCrds entries: a whole group, `plural.group`, or `Kind.group`. */
function isExternal(config: StandupConfig, group: string, kind: string): boolean {
  return config.externalCrds.some((e) => {
    if (e === group) return true;
    const dot = e.indexOf('.');
    if (dot < 0 || e.slice(dot + 1) !== group) return false;
    const name = e.slice(0, dot).toLowerCase();
    return name === kind.toLowerCase() || name === pluralGuess(kind);
  });
}
