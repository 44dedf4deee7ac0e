// A Deployment and its pods in one line, for an operator: `Deployment flux-system/source-controller: 0/1 ready,
// ErrImageNeverPull: ...`, with what to check. Pure.

import { deploymentReadiness, type LiveDeployment, type WorkloadReadiness } from './deployment.js';
import { podAdvice, summarizePods, type LivePod, type PodContext, type PodProblemKind } from './pod.js';

export interface WorkloadReport {
  /** `Deployment/ns/name` */
  object: string;
  readiness: WorkloadReadiness;
  /** `0/1 ready, readiness probe failing` (kstatus' message when no pod says more). */
  line: string;
  /** What to check next; empty when the Deployment is current. */
  advice: string;
  /** Waiting will not help: the image can never be pulled, or the rollout's deadline passed. */
  terminal: boolean;
  /** The first pod's problem, when a pod has one. */
  problem: PodProblemKind | null;
}

const TERMINAL: ReadonlySet<PodProblemKind> = new Set(['image-never-pull']);

export function describeDeployment(d: LiveDeployment | undefined, namespace: string, name: string, pods: readonly LivePod[], ctx: PodContext): WorkloadReport {
  const object = `Deployment/${namespace}/${name}`;
  const readiness = deploymentReadiness(d);
  if (readiness.state === 'not-found') return { object, readiness, line: 'not found', advice: `it was never applied, or was deleted: kubectl get deploy -n ${namespace}`, terminal: false, problem: null };
  if (readiness.state === 'current') return { object, readiness, line: `${readiness.ready} ready`, advice: '', terminal: false, problem: null };
  const { line: podLine, problems } = summarizePods(pods, ctx);
  const first = problems[0];
  const why = podLine || (pods.length === 0 ? 'no pods yet' : readiness.message);
  const advice = first ? podAdvice(first.kind, namespace, first.pod) : `kubectl describe deploy -n ${namespace} ${name}`;
  const terminal = readiness.state === 'failed' || problems.some((p) => TERMINAL.has(p.kind));
  return { object, readiness, line: `${readiness.ready} ready, ${why}`, advice, terminal, problem: first?.kind ?? null };
}
