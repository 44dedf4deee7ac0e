// A Deployment's readiness with kstatus' meaning (fluxcd/cli-utils pkg/kstatus/status/core.go), the rule Flux's own
// health checks apply: the controller has observed the current generation, every replica is updated, available and
// ready, and the rollout's Progressing condition says the new ReplicaSet is available. Pure.

import { findCondition, type Condition } from './conditions.js';

export interface LiveDeployment {
  metadata: { name: string; namespace?: string; generation?: number; deletionTimestamp?: string };
  spec?: { replicas?: number; selector?: { matchLabels?: Record<string, string> } };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    conditions?: Condition[];
  };
}

export interface WorkloadReadiness {
  /** kstatus' words: Current, InProgress, Failed, Terminating, NotFound. */
  state: 'current' | 'in-progress' | 'failed' | 'terminating' | 'not-found';
  /** `ready/wanted`, as kubectl get deploy prints READY (`0/1`). */
  ready: string;
  /** Why it is not current, in kstatus' words (`Available: 0/1`), or `Deployment is available`. */
  message: string;
}

/** Readiness of a Deployment (undefined: it does not exist). Never fetches. */
export function deploymentReadiness(d: LiveDeployment | undefined | null): WorkloadReadiness {
  if (!d) return { state: 'not-found', ready: '-', message: 'Deployment not found' };
  const want = d.spec?.replicas ?? 1;
  const st = d.status ?? {};
  const ready = `${st.readyReplicas ?? 0}/${want}`;
  const r = (state: WorkloadReadiness['state'], message: string): WorkloadReadiness => ({ state, ready, message });
  if (d.metadata.deletionTimestamp) return r('terminating', 'Deployment is being deleted');
  const gen = d.metadata.generation;
  if (gen !== undefined && st.observedGeneration !== gen) {
    return r('in-progress', `Deployment generation is ${gen}, but latest observed generation is ${st.observedGeneration ?? 'none'}`);
  }
  const progressing = findCondition(st.conditions, 'Progressing');
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
    return r('failed', `Progress deadline exceeded${progressing.message ? `: ${progressing.message}` : ''}`);
  }
  const replicas = st.replicas ?? 0;
  if (want > replicas) return r('in-progress', `Replicas: ${replicas}/${want}`);
  if ((st.updatedReplicas ?? 0) < want) return r('in-progress', `Updated: ${st.updatedReplicas ?? 0}/${want}`);
  if (replicas > want) return r('in-progress', `Pending termination: ${replicas - want}`);
  if ((st.availableReplicas ?? 0) < want) return r('in-progress', `Available: ${st.availableReplicas ?? 0}/${want}`);
  if ((st.readyReplicas ?? 0) < want) return r('in-progress', `Ready: ${st.readyReplicas ?? 0}/${want}`);
  const available = findCondition(st.conditions, 'Available');
  if (want > 0 && available?.status !== 'True') return r('in-progress', 'Deployment not Available');
  if (progressing && !(progressing.status === 'True' && progressing.reason === 'NewReplicaSetAvailable')) {
    return r('in-progress', `Deployment is progressing${progressing.reason ? ` (${progressing.reason})` : ''}`);
  }
  return r('current', 'Deployment is available');
}

/** The label selector of a Deployment's pods (`a=b,c=d`), or null when it has none to match on. */
export function podSelector(d: LiveDeployment): string | null {
  const labels = d.spec?.selector?.matchLabels;
  if (!labels || Object.keys(labels).length === 0) return null;
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}
