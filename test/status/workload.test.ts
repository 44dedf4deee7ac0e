import { describe, expect, it } from 'vitest';
import { deploymentSummary, helmReleaseSummary, podReason, type LivePod } from '../../src/status/workload.js';

const pod = (name: string, s: LivePod['status'], probe = true): LivePod => ({
  metadata: { name },
  spec: { containers: [{ name: 'app', ...(probe ? { readinessProbe: { httpGet: { path: '/healthz' } } } : {}) }] },
  status: s,
});

describe('workload summaries', () => {
  it('names kubelet\'s reason for each unready pod', () => {
    expect(podReason(pod('a', { phase: 'Pending', containerStatuses: [{ name: 'app', state: { waiting: { reason: 'ErrImageNeverPull', message: 'Container image "x" is not present with pull policy of Never' } } }] }))).toBe(
      'ErrImageNeverPull (Container image "x" is not present with pull policy of Never)',
    );
    expect(podReason(pod('b', { phase: 'Running', containerStatuses: [{ name: 'app', ready: false, state: { running: {} } }] }))).toBe('running, readiness probe failing');
    expect(podReason(pod('c', { phase: 'Running', containerStatuses: [{ name: 'app', ready: false, state: { running: {} } }] }, false))).toBe('running, not ready');
    expect(podReason(pod('d', { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/1 nodes are available' }] }))).toBe('unschedulable: 0/1 nodes are available');
    expect(podReason(pod('e', { phase: 'Running', containerStatuses: [{ name: 'app', ready: true, state: { running: {} } }] }))).toBeNull();
  });

  it('a Deployment: ready count, then the unready pods only', () => {
    const d = { metadata: { name: 'web', namespace: 'apps' }, spec: { replicas: 2 }, status: { readyReplicas: 1 } };
    const pods = [pod('web-1', { phase: 'Running', containerStatuses: [{ name: 'app', ready: true, state: { running: {} } }] }), pod('web-2', { phase: 'Running', containerStatuses: [{ name: 'app', ready: false, state: { running: {} } }] })];
    expect(deploymentSummary(d, pods)).toBe('Deployment/apps/web: 1/2 ready; web-2: running, readiness probe failing');
  });

  it('a HelmRelease: helm-controller\'s Ready message', () => {
    expect(helmReleaseSummary({ metadata: { name: 'web', namespace: 'apps' }, status: { conditions: [{ type: 'Ready', status: 'False', message: 'Helm install failed for release apps/web with chart web@0.1.0: timeout' }] } })).toBe(
      'HelmRelease/apps/web: Helm install failed for release apps/web with chart web@0.1.0: timeout',
    );
    expect(helmReleaseSummary({ metadata: { name: 'web' } })).toBe('HelmRelease/web: no Ready condition yet');
  });
});
