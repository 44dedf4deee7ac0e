// Why a pod is not ready, in the words an operator searches for (ErrImageNeverPull, CrashLoopBackOff, readiness probe
// failing, Pending: unschedulable), and what to check for each. Pure: it reads the pods it is given.

import { findCondition, type Condition } from './conditions.js';

interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { reason?: string; exitCode?: number; message?: string };
}

interface ContainerStatus {
  name: string;
  ready?: boolean;
  restartCount?: number;
  state?: ContainerState;
  lastState?: ContainerState;
}

export interface LivePod {
  metadata: { name: string; namespace?: string; deletionTimestamp?: string };
  spec?: { nodeName?: string; containers?: { name: string; image?: string; readinessProbe?: unknown }[]; initContainers?: { name: string; image?: string }[] };
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    conditions?: Condition[];
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
  };
}

/** What the cluster around the pods looks like, for the Pending cases. */
export interface PodContext {
  /** Nodes in the cluster (a pod with nowhere to run is the "no node" case). */
  nodes: number;
}

export type PodProblemKind =
  | 'image-never-pull'
  | 'image-pull'
  /** A pull that cannot succeed without a change to the image reference: invalid, or not in a registry that answered. */
  | 'image-invalid'
  | 'crash-loop'
  | 'readiness'
  | 'unschedulable'
  | 'no-node'
  | 'not-scheduled'
  | 'config'
  | 'failed'
  | 'terminating'
  | 'starting';

export interface PodProblem {
  kind: PodProblemKind;
  /** One short phrase: `ErrImageNeverPull: Container image "x" is not present with pull policy of Never`. */
  reason: string;
  /** For a pull: the container and the image it asks for. */
  container?: string;
  image?: string;
}

const IMAGE_PULL = new Set(['ImagePullBackOff', 'ErrImagePull', 'InvalidImageName', 'RegistryUnavailable']);
const CONFIG = new Set(['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);

const firstLine = (s: string | undefined): string => (s ?? '').trim().split('\n')[0]!;

// The registry could not be asked (or not finished answering): the pull may work later without any change.
const MAY_HEAL = /no such host|connection refused|i\/o timeout|dial tcp|network is unreachable|TLS handshake|server misbehaving|temporary|timeout|deadline exceeded|too many requests|429|50[0-9] /i;
// The registry answered that the reference does not exist, or the reference cannot be parsed.
const NEVER = /\bnot found\b|manifest unknown|NotFound desc|invalid reference format|repository name must/i;

/** A pull error that only a change to the image reference fixes (kubelet's and containerd's words). */
export function pullCannotSucceed(reason: string, message: string | undefined): boolean {
  if (reason === 'InvalidImageName') return true;
  const m = message ?? '';
  return NEVER.test(m) && !MAY_HEAL.test(m);
}

/** The reason one pod is not ready, or null when it is ready. */
export function podProblem(pod: LivePod, ctx: PodContext): PodProblem | null {
  const st = pod.status ?? {};
  if (pod.metadata.deletionTimestamp) return { kind: 'terminating', reason: 'Terminating' };
  const containers = [...(st.initContainerStatuses ?? []), ...(st.containerStatuses ?? [])];
  for (const c of containers) {
    const w = c.state?.waiting;
    if (!w?.reason) continue;
    const detail = w.message ? `: ${firstLine(w.message)}` : '';
    if (w.reason === 'ErrImageNeverPull' || IMAGE_PULL.has(w.reason)) {
      const image = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].find((s) => s.name === c.name)?.image;
      const kind: PodProblemKind = w.reason === 'ErrImageNeverPull' ? 'image-never-pull' : pullCannotSucceed(w.reason, w.message) ? 'image-invalid' : 'image-pull';
      return { kind, reason: `${w.reason} (container ${c.name}${image ? `, image ${image}` : ''})${detail}`, container: c.name, ...(image ? { image } : {}) };
    }
    if (w.reason === 'CrashLoopBackOff') {
      const last = c.lastState?.terminated;
      const exit = last ? `, last exit code ${last.exitCode ?? '?'}${last.reason ? ` (${last.reason})` : ''}` : '';
      return { kind: 'crash-loop', reason: `CrashLoopBackOff (container ${c.name} restarted ${c.restartCount ?? 0} times${exit})` };
    }
    if (CONFIG.has(w.reason)) return { kind: 'config', reason: `${w.reason}${detail}` };
  }
  if (st.phase === 'Failed') return { kind: 'failed', reason: `Failed${st.reason ? `: ${st.reason}` : ''}${st.message ? ` (${firstLine(st.message)})` : ''}` };
  if (st.phase === 'Pending' || !st.phase) {
    const scheduled = findCondition(st.conditions, 'PodScheduled');
    if (scheduled?.status === 'False') {
      if (ctx.nodes === 0) return { kind: 'no-node', reason: 'Pending: no node' };
      return { kind: 'unschedulable', reason: `Pending: ${scheduled.reason ?? 'Unschedulable'}${scheduled.message ? ` (${firstLine(scheduled.message)})` : ''}` };
    }
    if (!pod.spec?.nodeName) return ctx.nodes === 0 ? { kind: 'no-node', reason: 'Pending: no node' } : { kind: 'not-scheduled', reason: 'Pending: not scheduled yet' };
    return { kind: 'starting', reason: 'Pending: containers starting' };
  }
  if (st.phase === 'Succeeded') return null;
  const notReady = (st.containerStatuses ?? []).filter((c) => !c.ready);
  if (notReady.length === 0) return null;
  const probed = notReady.some((c) => c.state?.running && pod.spec?.containers?.find((s) => s.name === c.name)?.readinessProbe);
  if (probed) return { kind: 'readiness', reason: 'running, readiness probe failing' };
  return { kind: 'starting', reason: `running, not ready (${notReady.map((c) => c.name).join(', ')})` };
}

/** What to look at for each kind of problem (one line, with the kubectl command where one helps). */
export function podAdvice(kind: PodProblemKind, ns: string, pod: string): string {
  switch (kind) {
    case 'image-never-pull':
      return `the image is not on the node and imagePullPolicy is Never: load it into the node's container runtime, or fix the image name`;
    case 'image-invalid':
      return `the image reference cannot be pulled as written (invalid, or the registry says it does not exist): fix it in the repository`;
    case 'image-pull':
      return `the node cannot pull the image: check its name and tag, the registry's reachability and imagePullSecrets (kubectl describe pod -n ${ns} ${pod})`;
    case 'crash-loop':
      return `the container keeps exiting: kubectl logs -n ${ns} ${pod} --previous`;
    case 'readiness':
      return `the container runs but its readiness probe fails: kubectl describe pod -n ${ns} ${pod}, then its logs`;
    case 'unschedulable':
      return `no node can take the pod: check node capacity, taints, and the pod's nodeSelector and tolerations`;
    case 'no-node':
      return `the cluster has no node to run pods on: join a node (a kubelet) first`;
    case 'not-scheduled':
      return `no scheduler has placed the pod: is kube-scheduler running?`;
    case 'config':
      return `the container cannot be created from its spec (a missing ConfigMap or Secret?): kubectl describe pod -n ${ns} ${pod}`;
    case 'failed':
      return `kubectl describe pod -n ${ns} ${pod}`;
    case 'terminating':
      return `a pod is still shutting down; wait, or check its finalizers`;
    case 'starting':
      return `the pods are still starting: kubectl get pods -n ${ns}`;
  }
}

/**
 * One line for a set of pods: each distinct problem once, after the first pod that has it (the name to `kubectl
 * describe`), with how many more share it: `web-7d9f-x2: ErrImageNeverPull: ...; web-7d9f-y3: Pending: no node`.
 */
export function summarizePods(pods: readonly LivePod[], ctx: PodContext): { line: string; problems: (PodProblem & { pod: string })[] } {
  const problems = pods.flatMap((p) => {
    const x = podProblem(p, ctx);
    return x ? [{ ...x, pod: p.metadata.name }] : [];
  });
  const byReason = new Map<string, { pod: string; n: number }>();
  for (const p of problems) {
    const seen = byReason.get(p.reason);
    if (seen) seen.n++;
    else byReason.set(p.reason, { pod: p.pod, n: 1 });
  }
  const line = [...byReason].map(([r, { pod, n }]) => `${pod}: ${r}${n > 1 ? ` (and ${n - 1} more pod${n > 2 ? 's' : ''})` : ''}`).join('; ');
  return { line, problems };
}
