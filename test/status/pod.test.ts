import { describe, expect, it } from 'vitest';
import { podProblem, summarizePods, type LivePod } from '../../src/status/pod.js';
import { describeDeployment } from '../../src/status/workload.js';

const pod = (status: LivePod['status'], o: { node?: string; probe?: boolean; name?: string; image?: string } = {}): LivePod => ({
  metadata: { name: o.name ?? 'source-controller-7d9f-abcde', namespace: 'flux-system' },
  spec: { ...(o.node ? { nodeName: o.node } : {}), containers: [{ name: 'manager', ...(o.image ? { image: o.image } : {}), ...(o.probe ? { readinessProbe: { httpGet: { path: '/readyz' } } } : {}) }] },
  status,
});
const waiting = (reason: string, message?: string) => ({ phase: 'Pending', containerStatuses: [{ name: 'manager', ready: false, state: { waiting: { reason, ...(message ? { message } : {}) } } }] });
const nodes = { nodes: 1 };

describe('podProblem', () => {
  it.each([
    ['the image is not on the node and may not be pulled', pod(waiting('ErrImageNeverPull', 'Container image "ghcr.io/fluxcd/source-controller:v9" is not present with pull policy of Never'), { node: 'n1' }), nodes, 'image-never-pull', 'ErrImageNeverPull (container manager): Container image "ghcr.io/fluxcd/source-controller:v9" is not present with pull policy of Never'],
    ['the image cannot be pulled', pod(waiting('ImagePullBackOff', 'Back-off pulling image "x"'), { node: 'n1' }), nodes, 'image-pull', 'ImagePullBackOff (container manager): Back-off pulling image "x"'],
    // The image is named, and a pull only a new reference fixes is told from one that may heal.
    ['a registry that cannot be reached: may heal', pod(waiting('ErrImagePull', 'failed to pull and unpack image "127.0.0.1:1/x:v1": failed to resolve reference "127.0.0.1:1/x:v1": failed to do request: Head "https://127.0.0.1:1/v2/x/manifests/v1": dial tcp 127.0.0.1:1: connect: connection refused'), { node: 'n1', image: '127.0.0.1:1/x:v1' }), nodes, 'image-pull', 'ErrImagePull (container manager, image 127.0.0.1:1/x:v1): failed to pull and unpack image "127.0.0.1:1/x:v1": failed to resolve reference "127.0.0.1:1/x:v1": failed to do request: Head "https://127.0.0.1:1/v2/x/manifests/v1": dial tcp 127.0.0.1:1: connect: connection refused'],
    ['a tag the registry says does not exist', pod(waiting('ImagePullBackOff', 'Back-off pulling image "ghcr.io/a/b:nope": ErrImagePull: rpc error: code = NotFound desc = failed to pull and unpack image "ghcr.io/a/b:nope": failed to resolve reference "ghcr.io/a/b:nope": ghcr.io/a/b:nope: not found'), { node: 'n1', image: 'ghcr.io/a/b:nope' }), nodes, 'image-invalid', 'ImagePullBackOff (container manager, image ghcr.io/a/b:nope): Back-off pulling image "ghcr.io/a/b:nope": ErrImagePull: rpc error: code = NotFound desc = failed to pull and unpack image "ghcr.io/a/b:nope": failed to resolve reference "ghcr.io/a/b:nope": ghcr.io/a/b:nope: not found'],
    ['an invalid reference', pod(waiting('InvalidImageName', 'Failed to apply default image tag "Bad/Ref:x": couldn\'t parse image name "Bad/Ref:x": invalid reference format: repository name must be lowercase'), { node: 'n1', image: 'Bad/Ref:x' }), nodes, 'image-invalid', 'InvalidImageName (container manager, image Bad/Ref:x): Failed to apply default image tag "Bad/Ref:x": couldn\'t parse image name "Bad/Ref:x": invalid reference format: repository name must be lowercase'],
    ['the container keeps crashing', pod({ phase: 'Running', containerStatuses: [{ name: 'manager', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, reason: 'Error' } } }] }, { node: 'n1' }), nodes, 'crash-loop', 'CrashLoopBackOff (container manager restarted 4 times, last exit code 1 (Error))'],
    ['running, but its readiness probe fails', pod({ phase: 'Running', containerStatuses: [{ name: 'manager', ready: false, state: { running: {} } }] }, { node: 'n1', probe: true }), nodes, 'readiness', 'running, readiness probe failing'],
    ['no node can take it', pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available: 3 Insufficient memory.' }] }), { nodes: 3 }, 'unschedulable', 'Pending: Unschedulable (0/3 nodes are available: 3 Insufficient memory.)'],
    ['the cluster has no node at all (the node-less testbed)', pod({ phase: 'Pending' }), { nodes: 0 }, 'no-node', 'Pending: no node'],
    ['nodes exist but nothing scheduled it (no scheduler)', pod({ phase: 'Pending' }), nodes, 'not-scheduled', 'Pending: not scheduled yet'],
    ['a missing ConfigMap', pod(waiting('CreateContainerConfigError', 'configmap "x" not found'), { node: 'n1' }), nodes, 'config', 'CreateContainerConfigError: configmap "x" not found'],
  ])('%s', (_n, p, ctx, kind, reason) => {
    const { container: _c, image: _i, ...rest } = podProblem(p, ctx)!;
    expect(rest).toEqual({ kind, reason });
  });

  it('a ready pod has no problem', () => {
    expect(podProblem(pod({ phase: 'Running', containerStatuses: [{ name: 'manager', ready: true, state: { running: {} } }] }, { node: 'n1' }), nodes)).toBeNull();
  });

  it('counts pods with the same problem once', () => {
    const p = pod({ phase: 'Pending' });
    expect(summarizePods([p, { ...p, metadata: { name: 'b' } }], { nodes: 0 }).line).toBe('source-controller-7d9f-abcde: Pending: no node (and 1 more pod)');
  });
});

describe('describeDeployment', () => {
  const d = { metadata: { name: 'source-controller', namespace: 'flux-system', generation: 1 }, spec: { replicas: 1 }, status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1 } };

  it('names the state and the pods\' reason in one line, with what to check, and marks a never-pull image terminal', () => {
    const w = describeDeployment(d, 'flux-system', 'source-controller', [pod(waiting('ErrImageNeverPull', 'not present'), { node: 'n1' })], nodes);
    expect(w).toMatchObject({ object: 'Deployment/flux-system/source-controller', line: '0/1 ready; source-controller-7d9f-abcde: ErrImageNeverPull (container manager): not present', terminal: true, problem: 'image-never-pull' });
    expect(w.advice).toContain('imagePullPolicy is Never');
  });

  it('a readiness probe failing is not terminal', () => {
    const w = describeDeployment(d, 'flux-system', 'source-controller', [pod({ phase: 'Running', containerStatuses: [{ name: 'manager', ready: false, state: { running: {} } }] }, { node: 'n1', probe: true })], nodes);
    expect(w).toMatchObject({ line: '0/1 ready; source-controller-7d9f-abcde: running, readiness probe failing', terminal: false });
  });
});
