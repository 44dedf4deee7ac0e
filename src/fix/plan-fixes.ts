// Which findings `standup fix` repairs and how: a runtime-crd deadlock by a new tier (new-tier.ts), a runtime-crd
// race and a hidden HelmRelease order by the Kustomization dependsOn the finding names (with wait: true on a tier
// whose resources make the CRD exist), a removed-api by the apiVersion `flux migrate` writes. Everything else, and
// anything it cannot edit safely, is a manual step that says why and what to do. Pure.
import type { FluxKustomization, RenderedObject } from '../model/flux.js';
import type { Problem, ProblemCode } from '../model/problem.js';
import { refKey } from '../model/ref.js';
import type { PlanContext } from '../plan/plan.js';
import { hiddenHelmOrders } from '../plan/helm-order.js';
import { Order } from '../graph/order.js';
import type { RuntimeCrdFinding } from '../lint/rules/runtime-crd.js';
import type { RepoFiles } from './files.js';
import { emptyPlan, type FixPlan } from './fix-plan.js';
import { addDependsOn, setWait } from './kustomization-edits.js';
import { planNewTier } from './new-tier.js';
import { setScalar, UnsafeEdit } from './yaml-splice.js';

/** The codes fix repairs. */
export const FIXABLE: readonly ProblemCode[] = ['runtime-crd', 'helmrelease-order', 'removed-api'];

export interface FixInput {
  contexts: PlanContext[];
  /** The problems check shows (suppressed ones are not repaired), and runtime-crd's findings with repair inputs. */
  problems: Problem[];
  runtimeCrd: RuntimeCrdFinding[];
  files: RepoFiles;
  kustomizationFiles: readonly string[];
  /** Which of the shown problems to repair (--code, names). */
  selected: (p: Problem) => boolean;
  suffix?: string;
  /** The replacement apiVersion for a Flux Kustomization's removed one in a cluster (removed-api), or null. */
  kustomizationApi: (cluster: string, apiVersion: string) => string | null;
}

const sameProblem = (a: Problem, b: Problem) => a.code === b.code && a.cluster === b.cluster && a.object === b.object && a.file === b.file && a.line === b.line && a.message === b.message;

/** Plans every repair; the files' new texts are in `input.files`. */
export function planFixes(input: FixInput): Omit<FixPlan, 'files'> {
  const out = emptyPlan();
  const shown = (p: Problem) => input.problems.some((q) => sameProblem(p, q)) && input.selected(p);
  const manual = (p: Problem, message: string) => out.manual.push({ code: p.code, severity: p.severity, cluster: p.cluster ?? '', object: p.object, file: p.file, line: p.line, message });
  // dependsOn edges the repairs add, so that two repairs never close a cycle between them (a race each way).
  const added: { cluster: string; from: string; to: string }[] = [];
  const reaches = (ctx: PlanContext, from: string, to: string): boolean => {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length > 0) {
      const k = stack.pop()!;
      if (k === to) return true;
      if (seen.has(k)) continue;
      seen.add(k);
      stack.push(...(ctx.graph.deps.get(k) ?? []), ...added.filter((e) => e.cluster === ctx.cluster.name && e.from === k).map((e) => e.to));
    }
    return false;
  };
  const dependOn = (ctx: PlanContext, ks: FluxKustomization, target: string): boolean => {
    if (reaches(ctx, target, ks.key)) {
      throw new UnsafeEdit(`dependsOn ${target} on ${ks.key} would close a dependency cycle (${target} already waits for ${ks.key}, with the other repairs); move the resource to a tier that can come after ${target}`);
    }
    const changed = addDependsOn(input.files, ks, target);
    added.push({ cluster: ctx.cluster.name, from: ks.key, to: target });
    return changed;
  };
  /** Runs one repair; on an UnsafeEdit undoes it, lists its findings for a hand edit and returns why. */
  const attempt = (p: Problem[], f: () => void): string | null => {
    const snapshot = input.files.snapshot();
    const edges = added.length;
    const lengths = { changes: out.changes.length, repaired: out.repaired.length, costs: out.costs.length, moves: out.moves.length, notes: out.notes.length };
    try {
      f();
    } catch (e) {
      if (!(e instanceof UnsafeEdit)) throw e;
      input.files.restore(snapshot);
      added.length = edges;
      for (const [k, n] of Object.entries(lengths)) (out[k as keyof typeof lengths] as unknown[]).length = n;
      for (const x of p) manual(x, `${e.message}; left alone. ${x.message}`);
      return e.message;
    }
    return null;
  };
  /** Deadlock repairs made (null) or refused (why), by tier and files: another cluster sharing them shares the outcome. */
  const done = new Map<string, string | null>();

  // runtime-crd first: a race is a dependsOn (and wait) on Kustomizations, made at once; deadlocks are gathered into
  // one new tier per old tier and installer, planned after the races so the new tier copies the old one as edited.
  // A tier repaired in one cluster is the same files in another that shares them.
  const deadlocks = new Map<string, { ctx: PlanContext; f: RuntimeCrdFinding[] }>();
  for (const f of input.runtimeCrd) {
    if (!shown(f.problem) || f.problem.severity === 'info') continue;
    const ctx = input.contexts.find((c) => c.cluster.name === f.problem.cluster)!;
    const tier = f.problem.tier!;
    if (!f.installer || f.installer.guess) {
      manual(f.problem, f.installer?.guess
        ? `what installs the CRDs is a guess by name, so standup does not move anything for it. ${f.problem.message}`
        : `nothing in the repository makes this CRD exist, so no dependsOn can order it. ${f.problem.message}`);
      continue;
    }
    const order = new Order(ctx.graph);
    // A race whose dependsOn would close a cycle with another repair's (two races the other way round) is repaired
    // as a deadlock is: the resources move to a tier after their installer.
    if (f.installer.tier === tier || order.blockedBy(f.installer.tier, tier) || reaches(ctx, f.installer.tier, tier)) {
      const key = `${ctx.cluster.name}\u0000${tier}\u0000${f.installer.tier}`;
      const g = deadlocks.get(key) ?? { ctx, f: [] };
      g.f.push(f);
      deadlocks.set(key, g);
    } else {
      attempt([f.problem], () => {
        const ks = ctx.graph.nodes.get(tier)!;
        if (dependOn(ctx, ks, f.installer!.tier)) {
          out.changes.push({ code: 'runtime-crd', cluster: ctx.cluster.name, object: f.problem.object, file: ks.origin.file, what: `dependsOn ${f.installer!.tier} on ${tier}`, why: `${f.problem.object}'s CRD comes from ${f.installer!.tier}, which ${tier} did not wait for: a race on a cold start` });
        }
        const inst = ctx.graph.nodes.get(f.installer!.tier)!;
        if (f.installer!.ready && setWait(input.files, inst)) {
          out.changes.push({ code: 'runtime-crd', cluster: ctx.cluster.name, object: f.problem.object, file: inst.origin.file, what: `wait: true on ${inst.key}`, why: `the CRD exists only once ${inst.key}'s resources are healthy; without wait, ${inst.key} is Ready as soon as it has applied` });
        }
        out.repaired.push(f.problem);
      });
    }
  }
  for (const { ctx, f } of deadlocks.values()) {
    const objects = uniqueObjects(f.flatMap((x) => x.objects));
    const id = `${f[0]!.problem.tier}\u0000${objects.map((o) => `${o.origin.file}:${o.origin.line}`).join(',')}`;
    if (done.has(id)) {
      // The same tier and files in another cluster: repaired by the edits already planned, or refused for the same reason.
      const why = done.get(id);
      if (why === null) out.repaired.push(...f.map((x) => x.problem));
      else for (const x of f) manual(x.problem, `${why}; left alone. ${x.problem.message}`);
      continue;
    }
    done.set(id, attempt(f.map((x) => x.problem), () => planNewTier({
      ctx, tier: f[0]!.problem.tier!, installer: f[0]!.installer!, objects, problems: f.map((x) => x.problem), suffix: input.suffix,
      kustomizationApi: (v) => input.kustomizationApi(ctx.cluster.name, v) ?? v, kustomizationFiles: input.kustomizationFiles,
    }, input.files, out)));
  }

  // Hidden HelmRelease orders: the Kustomization dependsOn the finding names.
  for (const ctx of input.contexts) {
    for (const h of hiddenHelmOrders(ctx.cluster, ctx.graph)) {
      const id = refKey({ kind: 'HelmRelease', namespace: h.release.namespace, name: h.release.name });
      const p = input.problems.find((q) => q.code === 'helmrelease-order' && q.cluster === ctx.cluster.name && q.object === id && q.tier === h.tier);
      if (!p || !input.selected(p)) continue;
      if (h.deadlock) {
        manual(p, `a deadlock: ${h.targetTier} can only run after ${h.tier}; move one of the two releases, or drop wait on ${h.tier}`);
        continue;
      }
      attempt([p], () => {
        const ks = ctx.graph.nodes.get(h.tier)!;
        if (dependOn(ctx, ks, h.targetTier)) {
          out.changes.push({ code: 'helmrelease-order', cluster: ctx.cluster.name, object: id, file: ks.origin.file, what: `dependsOn ${h.targetTier} on ${h.tier}`, why: `${id} depends on ${refKey(h.target)}, which ${h.targetTier} applies: the order becomes one the tier graph shows` });
        }
        out.repaired.push(p);
      });
    }
  }

  // Removed apiVersions: the apiVersion line of each object, as flux migrate rewrites it.
  for (const p of input.problems) {
    if (p.code !== 'removed-api' || !input.selected(p) || !p.replacement || p.file === null) continue;
    const kind = p.object!.split('/')[0]!;
    const name = p.object!.split('/').at(-1)!;
    attempt([p], () => {
      const doc = input.files.docAt(p.file!, p.line, (v) => v.kind === kind && (v.metadata as { name?: string } | undefined)?.name === name);
      const current = String(doc.value.apiVersion);
      if (current === p.replacement) {
        out.repaired.push(p);
        return;
      }
      const removed = removedFields(kind, current, doc.value);
      if (removed.length > 0) throw new UnsafeEdit(`${p.object} uses ${removed.join(', ')}, which ${p.replacement} does not have: rewrite ${removed.length === 1 ? 'it' : 'them'} by hand`);
      input.files.replaceDoc(p.file!, doc.slice, setScalar(doc.slice.text, ['apiVersion'], p.replacement!, p.replacement));
      out.changes.push({ code: 'removed-api', cluster: p.cluster ?? '', object: p.object, file: p.file!, what: `apiVersion ${current} -> ${p.replacement}`, why: `Flux ${p.fluxVersion?.minor ?? ''} no longer serves ${current}${p.fluxVersion?.assumed ? ' (assumed: the repository does not say which Flux it installs)' : ''}` });
      out.repaired.push(p);
    });
  }

  // What fix does not repair, said once each.
  for (const p of input.problems) {
    if (!input.selected(p) || p.severity === 'info') continue;
    if (!FIXABLE.includes(p.code) && p.severity === 'error') manual(p, `standup fix does not repair ${p.code}. ${p.message}`);
  }
  return out;
}

function uniqueObjects(objs: RenderedObject[]): RenderedObject[] {
  const seen = new Set<string>();
  return objs.filter((o) => {
    const k = `${o.origin.file}\u0000${o.origin.line}\u0000${o.kind}\u0000${o.name}`;
    return !seen.has(k) && !!seen.add(k);
  });
}

/** Fields of the old apiVersion that the replacement dropped (the documented breaking changes): a hand edit. */
function removedFields(kind: string, apiVersion: string, value: Record<string, unknown>): string[] {
  const spec = (value.spec ?? {}) as Record<string, unknown>;
  if (kind === 'Kustomization' && /\/v1beta[12]$/.test(apiVersion)) {
    return ['patchesStrategicMerge', 'patchesJson6902', 'validation'].filter((f) => f in spec).map((f) => `spec.${f}`);
  }
  if (kind === 'HelmRelease' && /\/v2beta[12]$/.test(apiVersion)) {
    const post = Array.isArray(spec.postRenderers) ? (spec.postRenderers as { kustomize?: Record<string, unknown> }[]) : [];
    const out = post.some((p) => p.kustomize && ('patchesStrategicMerge' in p.kustomize || 'patchesJson6902' in p.kustomize)) ? ['spec.postRenderers[].kustomize.patchesStrategicMerge/patchesJson6902'] : [];
    const chart = (spec.chart as { spec?: Record<string, unknown> } | undefined)?.spec;
    if (chart && 'valuesFile' in chart) out.push('spec.chart.spec.valuesFile');
    return out;
  }
  return [];
}
