import { describe, expect, it } from 'vitest';
import type { LivePod } from '../../src/status/pod.js';
import { describeDeployment, describeHelmRelease } from '../../src/status/workload.js';

const pod = (name: string, s: LivePod['status'], probe = true): LivePod => ({
  metadata: { name },
  spec: { nodeName: 'n1', containers: [{ name: 'app', ...(probe ? { readinessProbe: { httpGet: { path: '/healthz' } } } : {}) }] },
  status: s,
});
const dep = (want: number, ready: number) => ({ metadata: { name: 'web', namespace: 'apps', generation: 1 }, spec: { replicas: want }, status: { observedGeneration: 1, replicas: want, updatedReplicas: want, readyReplicas: ready, availableReplicas: ready } });
const one = { nodes: 1 };

describe('workload lines', () => {
  it.each([
    ['the image is not on the node', pod('a', { phase: 'Pending', containerStatuses: [{ name: 'app', state: { waiting: { reason: 'ErrImageNeverPull', message: 'Container image "x" is not present with pull policy of Never' } } }] }), 'a: ErrImageNeverPull (container app): Container image "x" is not present with pull policy of Never'],
    ['running, readiness probe failing', pod('b', { phase: 'Running', containerStatuses: [{ name: 'app', ready: false, state: { running: {} } }] }), 'b: running, readiness probe failing'],
    ['running, not ready, no probe', pod('c', { phase: 'Running', containerStatuses: [{ name: 'app', ready: false, state: { running: {} } }] }, false), 'c: running, not ready (app)'],
  ])('%s', (_n, p, reason) => {
    expect(describeDeployment(dep(1, 0), 'apps', 'web', [p], one).line).toBe(`0/1 ready; ${reason}`);
  });

  it('a Deployment: ready count, then the unready pods only', () => {
    const pods = [pod('web-1', { phase: 'Running', containerStatuses: [{ name: 'app', ready: true, state: { running: {} } }] }), pod('web-2', { phase: 'Running', containerStatuses: [{ name: 'app', ready: false, state: { running: {} } }] })];
    expect(describeDeployment(dep(2, 1), 'apps', 'web', pods, one).line).toBe('1/2 ready; web-2: running, readiness probe failing');
  });

  it('a HelmRelease: helm-controller\'s Ready message', () => {
    const h = { metadata: { name: 'web', namespace: 'apps' }, status: { conditions: [{ type: 'Ready', status: 'False', message: 'Helm install failed for release apps/web with chart web@0.1.0: timeout' }] } };
    expect(describeHelmRelease(h, 'apps', 'web')).toMatchObject({ object: 'HelmRelease/apps/web', line: 'Helm install failed for release apps/web with chart web@0.1.0: timeout' });
    expect(describeHelmRelease({ metadata: { name: 'web' } }, 'apps', 'web').line).toBe('no Ready condition yet');
  });
});
