import { describe, expect, it } from 'vitest';
import { deploymentReadiness, podSelector, type LiveDeployment } from '../../src/status/deployment.js';

const dep = (status: LiveDeployment['status'], o: { generation?: number; replicas?: number; deleting?: boolean } = {}): LiveDeployment => ({
  metadata: { name: 'source-controller', namespace: 'flux-system', generation: o.generation ?? 1, ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
  spec: { replicas: o.replicas ?? 1, selector: { matchLabels: { app: 'source-controller' } } },
  status,
});
const available = { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' };
const progressed = { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' };
const current = { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [available, progressed] };

describe('deploymentReadiness (kstatus rules)', () => {
  it.each([
    ['does not exist', undefined, 'not-found', 'Deployment not found'],
    ['everything updated, ready and available', dep(current), 'current', 'Deployment is available'],
    ['the controller has not observed the new generation', dep({ ...current, observedGeneration: 1 }, { generation: 2 }), 'in-progress', 'Deployment generation is 2, but latest observed generation is 1'],
    ['no replicas created yet (no status at all)', dep(undefined), 'in-progress', 'Deployment generation is 1, but latest observed generation is none'],
    ['pods created but none ready (Pending)', dep({ observedGeneration: 1, replicas: 1, updatedReplicas: 1, conditions: [{ type: 'Available', status: 'False' }] }), 'in-progress', 'Available: 0/1'],
    ['fewer replicas than wanted', dep({ ...current, replicas: 1 }, { replicas: 2 }), 'in-progress', 'Replicas: 1/2'],
    ['an old replica still terminating', dep({ ...current, replicas: 2 }), 'in-progress', 'Pending termination: 1'],
    ['a rollout past its deadline fails', dep({ ...current, readyReplicas: 0, conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "x" has timed out progressing.' }] }), 'failed', 'Progress deadline exceeded: ReplicaSet "x" has timed out progressing.'],
    ['being deleted', dep(current, { deleting: true }), 'terminating', 'Deployment is being deleted'],
    ['scaled to zero is current', dep({ observedGeneration: 1, conditions: [progressed] }, { replicas: 0 }), 'current', 'Deployment is available'],
  ])('%s', (_n, d, state, message) => {
    expect(deploymentReadiness(d)).toMatchObject({ state, message });
  });

  it('reports READY as kubectl prints it', () => {
    expect(deploymentReadiness(dep({ ...current, readyReplicas: 0 }, { replicas: 1 })).ready).toBe('0/1');
  });

  it('selects its pods by matchLabels', () => {
    expect(podSelector(dep(current))).toBe('app=source-controller');
  });
});
