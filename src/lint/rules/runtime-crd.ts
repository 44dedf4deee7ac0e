import type { Graph } from '../../graph/graph.js';
import type { Bootstrap } from '../../model/bootstrap.js';
import { emptyBootstrap } from '../../model/bootstrap.js';
import type { StandupConfig } from '../../model/config.js';
import type { ClusterModel, RenderedObject } from '../../model/flux.js';
import type { Problem } from '../../model/problem.js';
import { groupOf, refKey, parseKsKey } from '../../model/ref.js';
import { fluxComponentGroups, isBuiltinGroup, isFluxGroup } from '../builtin-groups.js';
import { chartEntry } from '../../model/chart-crds.js';
import { installersOf, type Installers, type ReleaseInstaller } from '../installers.js';
import { installersElsewhere } from '../installers-elsewhere.js';
import { probableInstaller, unknownInstalls, type ProbableInstaller } from '../probable-installers.js';
import { best, dependsOnEntry, Order, type Verdict } from '../../graph/order.js';
import type { LintInput, Rule } from '../rule.js';

// Every custom resource's CRD exists before its tier's dry-run. Three verdicts, from the graph (order.ts):
// ordered (no finding), race (a warning: converges only after retries), deadlock (an error: never converges).
// Sources, most certain first: tiers.yaml runtimeCrds; the bootstrap and the platform; the CRD in git; a
// HelmRelease whose chart the table knows; the group's operator creating the CRD at runtime (CDI's StorageProfile,
// created once a CDI object exists); a HelmRelease named like the group (a guess, said as such); nothing at all.

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
  check: (input) => runtimeCrdFindings(input).map((f) => f.problem),
};

/**
 * A finding with what a repair needs (`standup fix`): the custom resources it is about and the tier that makes their
 * CRD exist, which they must come after (`ready`: only once that tier is healthy, as an operator or a chart creates
 * the CRD; else once it has applied, as a CRD in git is established at apply).
 */
export interface RuntimeCrdFinding {
  problem: Problem;
  objects: RenderedObject[];
  installer: { tier: string; ready: boolean; guess?: boolean } | null;
}

/** A problem and the installer its repair orders the resources after. */
interface Found<P> {
  problem: P;
  installer: RuntimeCrdFinding['installer'];
}

const found = <P>(installer: RuntimeCrdFinding['installer'], problem: P): Found<P> => ({ installer, problem });

/** The rule's findings with their repair inputs. */
export function runtimeCrdFindings({ clusters, config, bootstrap, loadProblems }: LintInput): RuntimeCrdFinding[] {
  const elsewhere = installersElsewhere(clusters.map((c) => c.cluster), bootstrap ?? emptyBootstrap());
  return clusters.flatMap(({ cluster, graph }) => {
      const failed = (loadProblems ?? []).filter((p) => p.code === 'build-failed' && p.cluster === cluster.name && p.object?.startsWith('Kustomization/'));
      const unexpanded = new Set([
        ...cluster.kustomizations.filter((k) => k.repoPath === null).map((k) => k.key),
        ...failed.map((p) => p.object!.slice('Kustomization/'.length)),
      ]);
      // A failed build read statically is known well enough: its CRDs and charts count, it is not a blind spot.
      for (const t of bootstrap?.tierCrds ?? []) if (t.cluster === cluster.name) unexpanded.delete(t.tier);
      return checkCluster(cluster, graph, config, bootstrap ?? emptyBootstrap(), unexpanded, (group) => elsewhere(cluster.name, group));
  });
}

interface Pending {
  tier: string;
  group: string;
  kinds: Set<string>;
  objects: RenderedObject[];
}

function checkCluster(
  cluster: ClusterModel,
  graph: Graph,
  config: StandupConfig,
  bootstrap: Bootstrap,
  unexpanded: Set<string>,
  elsewhere: (group: string) => string | null,
): RuntimeCrdFinding[] {
  const crds = crdsInGit(cluster.objects);
  const kinds = kindsByGroup(crds);
  const order = new Order(graph, unexpanded);
  const unbuilt = new Map<string, string[]>();
  for (const t of bootstrap.tierCrds) {
    if (t.cluster !== cluster.name) continue;
    const groups = new Set([...t.groups, ...t.charts.flatMap((c) => chartEntry(c)?.groups ?? [])]);
    for (const g of groups) unbuilt.set(g, [...(unbuilt.get(g) ?? []), t.tier]);
  }
  const installers = installersOf(cluster, bootstrap);
  const fluxExtras = fluxComponentGroups(bootstrap.flux, cluster.name);
  const problems: RuntimeCrdFinding[] = [];
  const pending = new Map<string, Pending>();

  for (const obj of cluster.objects) {
    if (obj.kind === 'CustomResourceDefinition' || obj.owner === null) continue;
    if (!graph.nodes.has(obj.owner)) continue; // excluded tier
    const group = groupOf(obj.apiVersion);
    if (isBuiltinGroup(group) || isFluxGroup(group) || fluxExtras.has(group) || isExternal(config, group, obj.kind)) continue;
    const declared = config.runtimeCrds.some((r) => r.group === group && r.kind === obj.kind);
    if (!declared && installers.beforeFlux(group).length > 0) continue;

    const origin = unbuilt.has(group) && !declared && !crds.has(`${group}/${obj.kind}`)
      ? { how: 'git' as const, owners: unbuilt.get(group)!, crd: `${pluralGuess(obj.kind)}.${group}` }
      : originOf(cluster, config, crds, kinds, group, obj.kind, installers);
    if (origin) {
      const f = checkOrder(cluster, order, obj, origin);
      if (f) problems.push({ ...f, objects: [obj] });
      continue;
    }
    const k = `${obj.owner}\0${group}`;
    const entry = pending.get(k) ?? { tier: obj.owner, group, kinds: new Set<string>(), objects: [] };
    entry.kinds.add(obj.kind);
    entry.objects.push(obj);
    pending.set(k, entry);
  }
  const unknownSoftware = unknownInstalls(cluster);
  const probable = (tier: string, group: string) => probableInstaller(unknownSoftware, group, order.ready(tier), graph.deps.get(tier) ?? []);
  for (const p of pending.values()) {
    const f = checkInstalled(order, p, installers, probable, elsewhere(p.group));
    if (f) problems.push({ installer: f.installer, objects: p.objects, problem: { ...f.problem, cluster: cluster.name } });
  }
  return problems;
}

/**
 * The runtime CRDs a cluster's git implies without a runtimeCrds entry (check's `runtime-inferred` origin): a custom
 * resource whose kind has no CRD in git while other kinds of its group do is created by the group's operator once it
 * has reconciled a resource of one of those kinds. The runner waits for such a CRD, as for a declared one, once a
 * trigger exists on the cluster (the repaired split layout, when the operator is still at work).
 */
export function inferredRuntimeCrds(objects: readonly RenderedObject[]): { kind: string; group: string; createdBy: { kind: string; group: string }; inferred: true }[] {
  const crds = crdsInGit(objects);
  const kinds = kindsByGroup(crds);
  const out = new Map<string, { kind: string; group: string; createdBy: { kind: string; group: string }; inferred: true }>();
  for (const o of objects) {
    if (o.kind === 'CustomResourceDefinition') continue;
    const group = groupOf(o.apiVersion);
    if (isBuiltinGroup(group) || isFluxGroup(group) || crds.has(`${group}/${o.kind}`)) continue;
    for (const trigger of kinds.get(group) ?? []) {
      out.set(`${group}/${o.kind}/${trigger}`, { kind: o.kind, group, createdBy: { kind: trigger, group }, inferred: true });
    }
  }
  return [...out.values()];
}

function crdsInGit(objects: readonly RenderedObject[]): Map<string, CrdInGit[]> {
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

/** The kinds each API group has a CRD for in git, in the order crdsInGit met them (built once, not per object). */
function kindsByGroup(crds: Map<string, CrdInGit[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const k of crds.keys()) {
    const at = k.indexOf('/');
    const group = k.slice(0, at);
    out.set(group, [...(out.get(group) ?? []), k.slice(at + 1)]);
  }
  return out;
}

function originOf(
  cluster: ClusterModel,
  config: StandupConfig,
  crds: Map<string, CrdInGit[]>,
  kinds: Map<string, string[]>,
  group: string,
  kind: string,
  installers: Installers,
): Origin | null {
  const crd = `${pluralGuess(kind)}.${group}`;
  const declared = config.runtimeCrds.find((r) => r.group === group && r.kind === kind);
  if (declared) {
    const trigger = declared.createdBy ?? null;
    const owners = trigger
      ? triggerOwners(cluster, (o) => groupOf(o.apiVersion) === trigger.group && o.kind === trigger.kind)
      : [];
    return { how: 'runtime-declared', owners, crd, trigger: trigger ? `${trigger.kind} (${trigger.group})` : undefined };
  }
  const inGit = crds.get(`${group}/${kind}`);
  if (inGit) {
    return { how: 'git', owners: inGit.map((c) => c.owner), crd: `${inGit[0]!.plural}.${group}` };
  }
  // A chart the table knows ships the group's CRDs: that is where this kind comes from (checkInstalled).
  if (installers.releases(group).length > 0) return null;
  const groupKinds = kinds.get(group) ?? [];
  if (groupKinds.length === 0) return null;
  // The group's operator is in git but this kind's CRD is not: the operator creates it at runtime, once it has
  // reconciled a resource of one of the group's git-defined kinds.
  let owners = triggerOwners(cluster, (o) => groupOf(o.apiVersion) === group && groupKinds.includes(o.kind));
  if (owners.length === 0) owners = groupKinds.flatMap((k) => crds.get(`${group}/${k}`)!.map((c) => c.owner));
  return { how: 'runtime-inferred', owners, crd, trigger: [...groupKinds].sort().join(', ') };
}

function triggerOwners(cluster: ClusterModel, match: (o: RenderedObject) => boolean): (string | null)[] {
  return [...new Set(cluster.objects.filter((o) => o.kind !== 'CustomResourceDefinition' && match(o)).map((o) => o.owner))];
}

function checkOrder(cluster: ClusterModel, order: Order, obj: RenderedObject, origin: Origin): Found<Problem> | null {
  const tier = obj.owner!;
  const id = refKey(obj);
  const group = groupOf(obj.apiVersion);
  const base = { code: 'runtime-crd' as const, file: obj.origin.file, line: obj.origin.line, object: id, cluster: cluster.name, tier, crdGroup: group };

  if (origin.how === 'git') {
    // A CRD in git is established in the def stage before the same tier's resources, so the same tier is fine.
    const verdicts = origin.owners.map((o) => order.verdict(tier, o, 'applied'));
    const verdict = best(verdicts);
    if (verdict === 'ordered') return null;
    const owner = origin.owners.find((o, i) => o !== null && verdicts[i] === verdict)!;
    const installer = `CRD ${origin.crd} in tier ${owner}`;
    const unknown = order.unexpandedBefore(tier);
    if (unknown.length > 0) return found(null, { ...base, ...hedged(`${id} is applied by ${tier}, and its CRD ${origin.crd} is applied by ${owner}, which ${tier} does not wait for`, installer, unknown, tier) });
    if (verdict === 'deadlock') {
      return found({ tier: owner, ready: false }, {
        ...base,
        severity: 'error',
        installer,
        message:
          `${id} is applied by ${tier}, but its CRD ${origin.crd} is applied by ${owner}, which can only run after ` +
          `${tier}: ${tier}'s dry-run fails with 'no matches for kind "${obj.kind}"', so neither ever converges. ` +
          `Move the CRD to ${tier} or to a tier it depends on.`,
      });
    }
    return found({ tier: owner, ready: false }, {
      ...base,
      severity: 'warning',
      installer,
      message:
        `${id} is applied by ${tier}, but its CRD ${origin.crd} is applied by ${owner}, which ${tier} does not ` +
        `depend on: on a cold start ${tier}'s dry-run fails with 'no matches for kind "${obj.kind}"' until ` +
        `${owner} happens to run first. Add ${dependsOnEntry(owner, tier)} to ${tier}.`,
    });
  }

  // Runtime-created: only a strict dependsOn path from the triggering tier helps; the same tier deadlocks.
  const triggers = origin.owners.filter((o): o is string => o !== null);
  const why = origin.how === 'runtime-inferred'
    ? `${origin.crd} is not in git while the group's other CRDs (${origin.trigger}) are, so the group's operator creates it at runtime`
    : `tiers.yaml declares that ${origin.crd} is created at runtime${origin.trigger ? ` by the operator of ${origin.trigger}` : ''}`;
  if (triggers.length === 0) {
    return found(null, {
      ...base,
      severity: 'error',
      installer: `the operator of ${origin.trigger ?? group}, at runtime`,
      message: `${id} is applied by ${tier}, but ${why}, and no tier in git applies the resource that triggers it. ` +
        `Add the trigger, or declare the CRD in tiers.yaml (externalCrds) if it is installed some other way.`,
    });
  }
  const verdicts = triggers.map((t) => (t === tier ? 'deadlock' : order.verdict(tier, t, 'ready')));
  const verdict = best(verdicts);
  if (verdict === 'ordered') return null;
  const trigger = triggers.find((t, i) => verdicts[i] === verdict)!;
  const installer = `the operator of ${origin.trigger ?? group}, once ${trigger} is applied`;
  // Inferred, not declared: a tier standup could not expand that runs first may ship the CRD itself.
  const unknown = origin.how === 'runtime-inferred' ? order.unexpandedBefore(tier) : [];
  if (unknown.length > 0) return found(null, { ...base, ...hedged(`${id} is applied by ${tier}, but ${why}, and ${tier} is not ordered after ${trigger}, which applies the trigger`, installer, unknown, tier) });
  if (verdict === 'deadlock') {
    const move = trigger === tier
      ? `Flux dry-runs every object of a tier before applying any, so ${tier} can never converge: the trigger is ` +
        `never applied, so the CRD is never created. Move ${id} to a new tier with ` +
        `dependsOn: [{name: ${parseKsKey(tier).name}}] (and wait: true on ${tier}).`
      : `${trigger}, which applies the trigger, can only run after ${tier}, so ${tier} can never converge. Move ${id} ` +
        `to a tier that depends on ${trigger}.`;
    return found({ tier: trigger, ready: true }, { ...base, severity: 'error', installer, message: `${id} is applied by ${tier}, but ${why}. ${move}` });
  }
  return found({ tier: trigger, ready: true }, {
    ...base,
    severity: 'warning',
    installer,
    message:
      `${id} is applied by ${tier}, but ${why}. ${tier} does not depend on ${trigger}, which applies the trigger, so ` +
      `its dry-run fails until the operator happens to have run. Add ${dependsOnEntry(trigger, tier)} to ${tier} ` +
      `(with wait: true on ${trigger}).`,
  });
}

/** A group with no CRD for the kind in git: installed by a known chart, guessed by name, or by nothing in git. */
function checkInstalled(
  order: Order,
  p: Pending,
  installers: Installers,
  probable: (tier: string, group: string) => ProbableInstaller | null,
  /** What installs the group in another cluster of the repository, if anything. */
  elsewhere: string | null,
): Found<Omit<Problem, 'cluster'>> | null {
  const first = p.objects[0]!;
  const id = refKey(first);
  const kinds = [...p.kinds].sort().join(', ');
  const what = `${p.objects.length > 1 ? `${id} and ${p.objects.length - 1} more resource(s)` : id} of ${kinds} (${p.group})`;
  const base = { code: 'runtime-crd' as const, file: first.origin.file, line: first.origin.line, object: id, tier: p.tier, crdGroup: p.group };

  const known = installers.releases(p.group);
  const candidates: ReleaseInstaller[] = known.length ? known : installers.byName(p.group);
  if (candidates.some((i) => order.verdict(p.tier, i.owner, 'ready') === 'ordered')) return null;
  const unknown = order.unexpandedBefore(p.tier);
  if (unknown.length > 0) {
    if (candidates.length === 0) {
      return found(null, {
        ...base,
        severity: 'info',
        installer: `perhaps ${unknown.join(', ')} (not expanded)`,
        message:
          (elsewhere
            ? `${p.tier} applies ${what}; no tier of this cluster that standup could expand installs the CRDs of ${p.group} before it (in the repository, ${elsewhere} does); `
            : `${p.tier} applies ${what}, and nothing standup could read installs the CRDs of ${p.group} before it; `) +
          `${list(unknown)} ${unknown.length > 1 ? 'run' : 'runs'} before ${p.tier} but ${unknown.length > 1 ? 'were' : 'was'} not expanded ` +
          `(another source, or a failed build), so ${unknown.length > 1 ? 'they' : 'it'} may install them. Not evaluated.`,
      });
    }
    // The installer standup knows is not ordered before the tier, but one it cannot see may be: a note, which names both.
    const inst = candidates[0]!;
    const installer = `${inst.release} (chart ${inst.chart}) in ${inst.owner ? `tier ${inst.owner}` : 'the entry path'}${inst.how === 'name' ? ' (a guess by name)' : ''}`;
    return found(null, { ...base, ...hedged(`${what}: ${installer} installs the CRDs, and ${p.tier} does not wait for it`, installer, unknown, p.tier) });
  }
  if (candidates.length === 0) {
    const likely = probable(p.tier, p.group);
    if (likely?.byWord) {
      return found(null, {
        ...base,
        severity: 'info',
        installer: `probably ${likely.what} in tier ${likely.tier}`,
        message:
          `${p.tier} applies ${what}. No chart or package standup knows installs the CRDs of ${p.group}, but ${p.tier} already waits for ${likely.tier}, ` +
          `whose ${likely.what} is not in standup's chart table and probably installs them. Not evaluated further; if it does not, declare what does in tiers.yaml (externalCrds: [${p.group}]).`,
      });
    }
    return found(null, {
      ...base,
      severity: 'warning',
      installer: elsewhere ? `nothing in this cluster (${elsewhere})` : 'nothing in git or the bootstrap',
      externalCrd: p.group,
      message:
        (elsewhere
          ? `${p.tier} applies ${what}, and nothing this cluster applies or bootstraps installs the CRDs of ${p.group}, while ${elsewhere} does: ` +
            `if this cluster needs that release too, add it and make ${p.tier} depend on its tier. If something outside this ` +
            `repository installs them here, declare it in tiers.yaml (externalCrds: [${p.group}]); `
          : `${p.tier} applies ${what}, and nothing in git or in the bootstrap installs the CRDs of ${p.group}: no CRD, ` +
            `no HelmRelease whose chart is known to ship them, no bootstrap release. If something outside this ` +
            `repository installs them, declare it in tiers.yaml (externalCrds: [${p.group}]); `) +
        (likely
          ? `${p.tier} already depends on ${likely.what}, which standup's chart table does not know: if it installs them, the order is right and the declaration is all that is missing.`
          : `if a chart of yours does, make ${p.tier} depend on its tier.`),
    });
  }
  const verdicts = candidates.map((i) => order.verdict(p.tier, i.owner, 'ready'));
  const verdict: Verdict = best(verdicts);
  if (verdict === 'ordered') return null;
  const inst = candidates.find((_, i) => verdicts[i] === verdict)!;
  const byName = inst.how === 'name';
  const where = inst.owner ? `tier ${inst.owner}` : 'the entry path';
  const installer = `${inst.release} (chart ${inst.chart}) in ${where}`;
  const guess = byName
    ? ` This is a guess by name only: chart ${inst.chart} is not in standup's chart table, so it may not ship these CRDs.`
    : '';
  if (verdict === 'deadlock') {
    const sameTier = inst.owner === p.tier;
    return found(inst.owner ? { tier: inst.owner, ready: true, ...(byName ? { guess: true } : {}) } : null, {
      ...base,
      severity: byName ? 'warning' : 'error',
      installer,
      message:
        `${what}: ${installer} installs the CRDs, and ${sameTier ? 'it is the same tier' : `that tier can only run after ${p.tier}`}. ` +
        `Flux dry-runs every object of a tier before applying any, so on a cold start ${p.tier} fails, the HelmRelease ` +
        `${sameTier ? 'is never applied' : 'never runs'} and the CRDs are never installed. Move the resource(s) to a ` +
        `new tier with ${dependsOnEntry(inst.owner ?? p.tier, p.tier)} (and wait: true on ${inst.owner ?? p.tier}); or, if the ` +
        `CRDs are installed before Flux, add the release to the bootstrap or declare externalCrds: [${p.group}].${guess}`,
    });
  }
  const add = inst.owner && !order.ancestors(p.tier).includes(inst.owner)
    ? `Add ${dependsOnEntry(inst.owner, p.tier)} to ${p.tier}`
    : `Move the HelmRelease to a tier that ${p.tier} can depend on`;
  return found(inst.owner && !order.ancestors(p.tier).includes(inst.owner) ? { tier: inst.owner, ready: true, ...(byName ? { guess: true } : {}) } : null, {
    ...base,
    severity: 'warning',
    installer,
    message:
      `${what}: ${installer} installs the CRDs, and ${p.tier} does not depend on it, so its dry-run fails until ` +
      `that chart happens to be installed (a slower cold start, retried every retryInterval). ${add}.${guess}`,
  });
}

/**
 * A finding whose installer is known but not ordered before the tier, while tiers standup could not expand run
 * before it and may install the CRDs first: a note that names both, never a deadlock or a race.
 */
function hedged(finding: string, installer: string, unknown: string[], tier: string): Pick<Problem, 'severity' | 'installer' | 'message'> {
  return {
    severity: 'info',
    installer: `${installer}; perhaps ${unknown.join(', ')} (not expanded)`,
    message:
      `${finding}; but ${list(unknown)} ${unknown.length > 1 ? 'run' : 'runs'} before ${tier} and ${unknown.length > 1 ? 'were' : 'was'} not expanded ` +
      `(another source, or a failed build), so ${unknown.length > 1 ? 'they' : 'it'} may install them first. Not evaluated.`,
  };
}

const list = (xs: string[]): string => (xs.length <= 3 ? xs.join(', ') : `${xs.slice(0, 3).join(', ')} and ${xs.length - 3} more`);

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
