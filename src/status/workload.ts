// Why a workload a health check waits on is not healthy, in a line: a Deployment's ready count and its pods'
// reasons (`0/1 ready; web-7d9c-x2: ErrImageNeverPull`, `...: running, readiness probe failing`), a HelmRelease's
// Ready message (helm-controller's words, which quote source-controller's when the chart is missing). Pure.

interface Cond {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface LiveDeployment {
  metadata: { name: string; namespace?: string };
  spec?: { replicas?: number; selector?: { matchLabels?: Record<string, string> } };
  status?: { readyReplicas?: number; updatedReplicas?: number; conditions?: Cond[] };
}

export interface LivePod {
  metadata: { name: string; deletionTimestamp?: string };
  spec?: { containers?: { name: string; readinessProbe?: unknown }[] };
  status?: {
    phase?: string;
    conditions?: Cond[];
    containerStatuses?: {
      name: string;
      ready?: boolean;
      restartCount?: number;
      state?: { waiting?: { reason?: string; message?: string }; running?: unknown; terminated?: { reason?: string; exitCode?: number } };
    }[];
  };
}

/** One pod's reason for not being ready, or null when it is ready. */
export function podReason(p: LivePod): string | null {
  if (p.metadata.deletionTimestamp) return 'terminating';
  const scheduled = p.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False') return `unschedulable: ${scheduled.message ?? scheduled.reason ?? ''}`.trim();
  const statuses = p.status?.containerStatuses ?? [];
  if (statuses.length > 0 && statuses.every((c) => c.ready)) return null;
  for (const c of statuses) {
    const w = c.state?.waiting;
    // ErrImageNeverPull, ImagePullBackOff, CrashLoopBackOff, CreateContainerConfigError: kubelet's own reasons.
    if (w?.reason && w.reason !== 'ContainerCreating') return `${w.reason}${w.message ? ` (${w.message})` : ''}`;
    if (c.state?.terminated) return `${c.name} terminated: ${c.state.terminated.reason ?? `exit ${c.state.terminated.exitCode}`}`;
  }
  const running = statuses.find((c) => c.state?.running && !c.ready);
  if (running) {
    const probe = p.spec?.containers?.find((c) => c.name === running.name)?.readinessProbe;
    return probe ? 'running, readiness probe failing' : 'running, not ready';
  }
  return (p.status?.phase ?? 'Pending').toLowerCase();
}

export function deploymentSummary(d: LiveDeployment, pods: LivePod[]): string {
  const want = d.spec?.replicas ?? 1;
  const ready = d.status?.readyReplicas ?? 0;
  const why = pods.map((p) => [p.metadata.name, podReason(p)] as const).filter(([, r]) => r !== null);
  const id = `Deployment/${d.metadata.namespace ? `${d.metadata.namespace}/` : ''}${d.metadata.name}`;
  const progress = d.status?.conditions?.find((c) => c.type === 'Progressing' && c.status === 'False');
  return `${id}: ${ready}/${want} ready${why.length ? `; ${why.map(([n, r]) => `${n}: ${r}`).join('; ')}` : ''}${progress?.message ? `; ${progress.message}` : ''}`;
}

export interface LiveHelmRelease {
  metadata: { name: string; namespace?: string };
  status?: { conditions?: Cond[] };
}

export function helmReleaseSummary(h: LiveHelmRelease): string {
  const ready = h.status?.conditions?.find((c) => c.type === 'Ready');
  const id = `HelmRelease/${h.metadata.namespace ? `${h.metadata.namespace}/` : ''}${h.metadata.name}`;
  return ready ? `${id}: ${ready.message ?? ready.reason ?? `Ready=${ready.status}`}` : `${id}: no Ready condition yet`;
}
