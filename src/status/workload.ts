// Why a workload a tier (or the Flux install) waits on is not healthy, in one line, with what to check: a
// Deployment's ready count and its pods' reasons (`0/1 ready; source-controller-7d9f-x2: ErrImageNeverPull: ...`),
// a HelmRelease's Ready message (helm-controller's words). Pure.

import { deploymentReadiness, type LiveDeployment, type WorkloadReadiness } from './deployment.js';
import { podAdvice, summarizePods, type LivePod, type PodContext, type PodProblemKind } from './pod.js';
import type { LiveHelmRelease } from './helm-source.js';

export interface WorkloadReport {
  /** `Deployment/ns/name` */
  object: string;
  readiness: WorkloadReadiness;
  /** `0/1 ready; web-7d9f-x2: readiness probe failing` (kstatus' message when no pod says more). */
  line: string;
  /** What to check next; empty when the Deployment is current. */
  advice: string;
  /** Waiting will not help: the image can never be pulled, or the rollout's deadline passed. */
  terminal: boolean;
  /** The first pod's problem, when a pod has one. */
  problem: PodProblemKind | null;
  /** Where that problem is: the pod, and for a pull the container and image. */
  problemAt?: { pod: string; container?: string; image?: string };
}

const TERMINAL: ReadonlySet<PodProblemKind> = new Set(['image-never-pull', 'image-invalid']);

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
  const deadline = readiness.state === 'failed' && podLine ? `; ${readiness.message}` : '';
  const problemAt = first ? { pod: first.pod, ...(first.container ? { container: first.container } : {}), ...(first.image ? { image: first.image } : {}) } : undefined;
  return { object, readiness, line: `${readiness.ready} ready; ${why}${deadline}`, advice, terminal, problem: first?.kind ?? null, ...(problemAt ? { problemAt } : {}) };
}


/** A HelmRelease as the health check saw it: helm-controller's Ready message (it quotes the chart's own errors). */
export function describeHelmRelease(h: LiveHelmRelease | undefined, namespace: string, name: string): WorkloadReport {
  const object = `HelmRelease/${namespace}/${name}`;
  const ready = h?.status?.conditions?.find((c) => c.type === 'Ready');
  const state: WorkloadReadiness['state'] = !h ? 'not-found' : ready?.status === 'True' ? 'current' : ready?.status === 'False' ? 'failed' : 'in-progress';
  const line = !h ? 'not found' : ready ? (ready.message ?? ready.reason ?? `Ready=${ready.status}`).trim().split('\n')[0]! : 'no Ready condition yet';
  return {
    object,
    readiness: { state, ready: ready?.status ?? '-', message: line },
    line,
    advice: h ? `flux get helmrelease -n ${namespace} ${name}, and helm-controller's events (kubectl describe hr -n ${namespace} ${name})` : `kubectl get hr -n ${namespace}`,
    terminal: false,
    problem: null,
  };
}
