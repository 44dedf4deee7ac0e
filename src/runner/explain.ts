import type { Readiness } from '../status/kustomization.js';
import type { MissingCrd } from '../status/diagnose.js';
import { type ChartFailure } from '../status/helm-source.js';
import { humanizeDurations } from '../status/durations.js';
import { describeExpr } from '../status/ready-expr.js';
import { shortRevision } from '../status/revision.js';
import type { WorkloadReport } from '../status/workload.js';
import type { CrdKnowledge, FallbackCrd } from './run-target.js';
import { refKey, type NamespacedRef } from '../model/ref.js';

/** What standup knows when it explains a failure: its inputs, plus what it looked up in the cluster at that moment. */
export interface ExplainContext {
  fallback: readonly FallbackCrd[];
  knowledge: CrdKnowledge;
  /** API groups with at least one CRD in the cluster now. */
  liveCrdGroups: ReadonlySet<string>;
  /** The workloads a failed health check waited on, described from the cluster. */
  workloads: readonly WorkloadReport[];
  /** What the tier's healthCheckExprs give on the objects its health check waited on, one line each. */
  healthExprs?: readonly string[];
}

/** A tier as messages name it: its key (`namespace/name`) and, for commands to run, its namespace and name. */
export interface TierName {
  key: string;
  namespace: string;
  name: string;
}

/** The message and next step for a tier that failed, with the deadlock diagnosis where the message allows it. */
export function explainFailure(t: TierName, r: Readiness, x: ExplainContext): { message: string; hint: string } {
  const tier = t.key;
  const d = r.diagnosis;
  if (d?.type === 'missing-crd') return explainMissingCrd(tier, d, x);
  if (d?.type === 'health-check') {
    const laggards = d.objects.map((o) => `${o.object} (${[o.status, o.error].filter(Boolean).join(': ')})`);
    const advice = x.workloads.find((w) => w.advice)?.advice;
    return {
      message: humanizeDurations(`${tier} failed its health check${d.after ? ` after ${d.after}` : ''}; still not healthy: ${laggards.join(', ') || 'unknown'}`) + workloadLines(x.workloads) + exprLines(x.healthExprs),
      hint: advice
        ? `Check: ${advice}; then \`standup resume\`.`
        : x.healthExprs?.length
          ? `Their health is what the tier's healthCheckExprs say (above): check those objects' status (kubectl get -o yaml), or the expressions in ${tier}'s spec.healthCheckExprs; then \`standup resume\`.`
          : 'Inspect those objects (kubectl describe), fix them, then `standup resume`.',
    };
  }
  if (x.healthExprs?.length) {
    return {
      message: humanizeDurations(`${tier} failed (${r.reason}): ${r.message}`) + exprLines(x.healthExprs),
      hint: `Check those objects' status (kubectl get -o yaml), or the expressions in ${tier}'s spec.healthCheckExprs; then \`standup resume\`.`,
    };
  }
  return {
    message: humanizeDurations(`${tier} failed (${r.reason}): ${r.message}`),
    hint: `Fix the cause in the repository or the cluster, then \`standup resume\`; \`flux events --for Kustomization/${t.name} -n ${t.namespace}\` has the details.`,
  };
}

function explainMissingCrd(tier: string, d: MissingCrd, x: ExplainContext): { message: string; hint: string } {
  const entry = x.fallback.find((f) => f.group === d.group && f.kind === d.kind);
  const declared = x.knowledge.runtimeCrds.find((c) => c.kind === d.kind && c.group === d.group);
  const operatorKnown = !!entry || !!declared || x.knowledge.groupsInGit.has(d.group) || x.liveCrdGroups.has(d.group);
  if (!operatorKnown && x.knowledge.externalCrds.includes(d.group)) {
    return {
      message:
        `${tier} applies ${d.object}, of kind ${d.kind} (${d.group}/${d.version}); tiers.yaml declares ${d.group} installed ` +
        `outside Flux (externalCrds), but the cluster has no CRD of that group, so Flux cannot apply the tier.`,
      hint: `Install the CRDs of ${d.group} the way they are meant to be installed (it is not a tier's job here), then \`standup resume\`.`,
    };
  }
  if (!operatorKnown) {
    return {
      message:
        `${tier} applies ${d.object}, of kind ${d.kind} (${d.group}/${d.version}), and no CRD for it exists anywhere standup ` +
        `can see: none of group ${d.group} in the cluster, none in git, none in the CRD fallback (crds:), and no ` +
        `runtimeCrds entry names an operator that creates it. Flux cannot apply the tier until that CRD exists; moving ` +
        `the resource to another tier does not help.`,
      hint:
        `Add the CRD for ${d.kind}.${d.group} to git (in a tier that ${tier} dependsOn) or to crds: in tiers.yaml ` +
        `(then \`standup crds\` and \`standup resume\`); if an operator creates it at runtime, declare it under runtimeCrds: with createdBy.`,
    };
  }
  const message =
    `${tier} is deadlocked on a second-order CRD: ${d.object} needs kind ${d.kind} (${d.group}/${d.version}), whose CRD ` +
    `does not exist${declared?.createdBy ? ` until the operator reconciles a ${declared.createdBy.kind} (${declared.createdBy.group})` : ''}. ` +
    `Flux dry-runs every object of the tier before applying any, so if the resource that makes an operator create ` +
    `this CRD is in the same tier, it is never applied and the tier never converges.`;
  const hint = entry
    ? `Unblock it with the CRD fallback: \`standup crds\` applies ${entry.name} (${entry.file}), then \`standup resume\`. ` +
      `For good, move ${d.object} to a tier that dependsOn ${tier} (\`standup check\` reports it as runtime-crd).`
    : `No CRD fallback in tiers.yaml provides ${d.kind}.${d.group}: add its CRD manifest under \`crds:\` in tiers.yaml, run ` +
      `\`standup crds\`, then \`standup resume\`; for good, move ${d.object} to a tier that dependsOn ${tier}.`;
  return { message, hint };
}

/** Where an object is in the repository (`file:line`), when the run's model has it. */
export type Locate = (o: NamespacedRef) => string | null;

/**
 * A HelmRelease that can never get its chart: names the release, its chart source and source-controller's own
 * message, and what to change (the release's chart template, the chartRef'd source, or the repository it builds from).
 */
export function explainChartFailure(tier: string, f: ChartFailure, locate: Locate): { message: string; hint: string } {
  const stalled = refKey(f.stalled);
  const chart = refKey(f.chart);
  const name = refKey(f.release);
  const via = stalled === chart ? `${chart} is Stalled` : `${chart} builds from ${stalled}, which is Stalled`;
  const message = `${tier} cannot become Ready: ${name} cannot get its chart: ${via} (${f.reason}): ${f.message}`;
  const at = (o: NamespacedRef) => {
    const l = locate(o);
    return l ? ` in ${l}` : '';
  };
  const release = at(f.release);
  // KC keeps waiting on the health check it is in; a fix pushed meanwhile is applied only after it (FLUX.md, HealthCheckCanceled).
  const then =
    "source-controller will not try again until that spec changes; then `standup resume` (kustomize-controller first runs out the health check it is in, up to the tier's timeout, unless its CancelHealthCheckOnNewRevision feature gate is on).";
  if (stalled !== chart || !f.template) {
    return { message, hint: `Fix the spec of ${stalled}${at(f.stalled)} (${f.reason}); ${then}` };
  }
  const t = f.template;
  if (f.reason === 'InvalidChartReference') {
    const what = [t.chart !== null ? `spec.chart.spec.chart (${t.chart})` : null, `spec.chart.spec.version (${t.version ?? '*'})`].filter(Boolean).join(' or ');
    const publish = t.sourceRef ? `, or publish that chart version to ${t.sourceRef}` : '';
    return { message, hint: `Fix ${what} of ${name}${release}${publish}; ${then}` };
  }
  const field = f.reason === 'ValuesFilesError' ? 'spec.chart.spec.valuesFiles' : 'spec.chart.spec';
  return { message, hint: `Fix ${field} of ${name}${release}; ${then}` };
}

/** Why each workload is not healthy, one indented line each (`Deployment/apps/web: 0/1 ready; web-x2: ...`). */
export const workloadLines = (ws: readonly WorkloadReport[]): string => ws.filter((w) => w.readiness.state !== 'current').map((w) => `\n  ${w.object}: ${w.line}`).join('');

/** The healthCheckExprs verdicts, one indented line each. */
export const exprLines = (lines: readonly string[] | null | undefined): string => (lines ?? []).map((l) => `\n  ${l}`).join('');

/** One status line for a tier, in the words `flux get ks` would use. */
export function statusLine(r: Readiness): string {
  switch (r.state) {
    case 'ready':
      return `Ready at ${shortRevision(r.revision)}`;
    case 'waiting':
      return r.waitingFor ? `waiting for ${r.waitingFor}${r.readyExpr ? `: ${describeExpr(r.readyExpr)}${r.readyExprNote ?? ''}` : ''}` : humanizeDurations(r.message);
    case 'not-found':
      return 'not applied yet';
    default:
      return humanizeDurations(r.message || r.reason);
  }
}
