// The testbed's real node: pods of the local images start, readiness probes decide Availability, Services route,
// pods cannot reach past the node, and a testbed's stop() leaves the machine as it found it: checked here on a
// second node testbed started beside the suite's own (which also proves two node testbeds do not meet).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, start } from '../testbed/harness.js';
import { ensureNamespace } from '../testbed/kube.js';
import { ctr } from '../testbed/node/containerd.js';
import { machineState, withoutOtherTestbeds } from '../testbed/node/machine-state.js';
import { repoRoot } from '../testbed/paths.js';
import { pollUntil } from '../testbed/wait.js';
import { applyAll, appWorkload, describeDeployment, waitDeploymentAvailable } from '../testbed/workloads.js';

const tb = connect(inject('testbed'));
const kc = tb.kubeConfig();
const NS = 'it-node';
const node = tb.node!;

beforeAll(async () => {
  await ensureNamespace(kc, NS);
});

afterAll(async () => {
  await kc.makeApiClient(CoreV1Api).deleteNamespace({ name: NS }).catch(() => undefined);
});

/** The host pid of a running container of the pod, from the node's containerd. */
async function containerPid(podName: string): Promise<number> {
  const containers = await ctr(node.containerdSocket, ['containers', 'ls', `labels."io.kubernetes.pod.name"==${podName}`, '-q']);
  const tasks = await ctr(node.containerdSocket, ['tasks', 'ls']);
  for (const id of containers.split('\n').filter(Boolean)) {
    const row = tasks.split('\n').find((l) => l.startsWith(id));
    const pid = Number(row?.split(/\s+/)[1]);
    if (row?.includes('RUNNING') && pid > 0) return pid;
  }
  throw new Error(`no running container for pod ${podName}`);
}

describe('testbed node: pods, probes, Services', () => {
  it('registers one Ready node running the images it imported', async () => {
    const n = await kc.makeApiClient(CoreV1Api).readNode({ name: node.name });
    expect(n.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(n.status?.addresses).toContainEqual({ type: 'InternalIP', address: node.nodeIp });
    expect(n.status?.nodeInfo?.kubeletVersion).toBe('v1.36.5');
    const images = await ctr(node.containerdSocket, ['images', 'ls', '-q']);
    for (const ref of node.images) expect(images).toContain(ref);
  });

  it('a Deployment of the local image becomes Available, and its Service routes to its pods', async () => {
    await applyAll(kc, appWorkload('web', NS, { replicas: 2, readyAfter: '1', message: 'hello-node' }));
    const d = await waitDeploymentAvailable(kc, NS, 'web');
    expect(d.status?.readyReplicas).toBe(2);
    const svc = await kc.makeApiClient(CoreV1Api).readNamespacedService({ namespace: NS, name: 'web' });
    const ip = svc.spec?.clusterIP ?? '';
    expect(ip.startsWith(node.serviceCidr.split('.').slice(0, 3).join('.'))).toBe(true);
    // From the host through kube-proxy's rules in the node's namespace to one of the two pods.
    const body = await pollUntil('the Service to answer', async () => (await fetch(`http://${ip}/`, { signal: AbortSignal.timeout(2000) })).text(), { timeoutMs: 20_000 });
    expect(body).toMatch(/^hello-node web-[a-z0-9]+-[a-z0-9]+\n$/);
  });

  it('a readiness probe that never passes keeps the Deployment unavailable, and says so', async () => {
    await applyAll(kc, appWorkload('never', NS, { readyAfter: 'never' }));
    const apps = kc.makeApiClient(AppsV1Api);
    // The pod runs (the container started) but is never Ready.
    await pollUntil('the pod to run', async () => ((await describeDeployment(kc, NS, 'never')).includes(': Running not ready') ? true : undefined), { timeoutMs: 30_000 });
    await sleep(5000);
    const d = await apps.readNamespacedDeployment({ namespace: NS, name: 'never' });
    expect(d.status?.availableReplicas ?? 0).toBe(0);
    expect(d.status?.conditions?.find((c) => c.type === 'Available')?.status).toBe('False');
    expect(await describeDeployment(kc, NS, 'never')).toMatch(/^0\/1 ready; never-[a-z0-9-]+: Running not ready$/);
  });

  it('pods have no default route: nothing leaves the node', async () => {
    const pods = await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: NS, labelSelector: 'app=web' });
    const pid = await containerPid(pods.items[0]!.metadata!.name!);
    const routes = execFileSync('nsenter', ['-t', String(pid), '-n', 'ip', '-4', 'route'], { encoding: 'utf8' });
    expect(routes).not.toMatch(/^default/m);
    expect(routes).toContain(node.serviceCidr);
    const nodeRoutes = execFileSync('nsenter', ['-t', String(node.namespacePid), '-n', 'ip', '-4', 'route'], { encoding: 'utf8' });
    expect(nodeRoutes).not.toMatch(/^default/m);
  });
});

describe('testbed node: isolation and clean-up', () => {
  it('a second node testbed gets its own addresses, and its stop() leaves the machine as it found it', async () => {
    const before = machineState();
    const second = await start({ handleSignals: false });
    try {
      const n2 = second.node!;
      expect(n2.slot).not.toBe(node.slot);
      expect(n2.podCidr).not.toBe(node.podCidr);
      expect(n2.cgroup).not.toBe(node.cgroup);
      // Its node is a real one too.
      const kc2 = second.kubeConfig();
      await ensureNamespace(kc2, NS);
      await applyAll(kc2, appWorkload('web2', NS));
      await waitDeploymentAvailable(kc2, NS, 'web2');
      // ...and the suite's node still serves (the two kube-proxies' chains never meet).
      const svc = await kc.makeApiClient(CoreV1Api).readNamespacedService({ namespace: NS, name: 'web' });
      expect((await fetch(`http://${svc.spec?.clusterIP}/`, { signal: AbortSignal.timeout(2000) })).status).toBe(200);
      expect(machineState().cgroups).toContain(`/sys/fs/cgroup/pids/${n2.cgroup}`);
    } finally {
      await second.stop();
    }
    const after = machineState(second.dir);
    expect(after.processes).toEqual([]);
    expect(existsSync(second.dir)).toBe(false);
    // Other node testbeds (the other shards', anyone's) may start or stop meanwhile: their own links, routes and
    // cgroups are left out of both snapshots; everything else, and all of this testbed's, must be as before.
    const own = { slot: second.node!.slot, cgroup: second.node!.cgroup };
    expect({ ...withoutOtherTestbeds(after, own), processes: [] }).toEqual({ ...withoutOtherTestbeds(before, own), processes: [] });
  });

  it('a SIGKILLed host process: the reaper cleans up its node all the same', async () => {
    const before = machineState();
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'test/testbed/node/hold.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    // Its start-up (tsx, then a whole node testbed) took over 120 s at load 26 with integration shards and other
    // sessions' testbeds starting beside it; if it never comes up, the child is killed all the same (its reaper
    // cleans up), never left running after the test.
    let dir: string;
    try {
      dir = await pollUntil('the held testbed to start', async () => /^dir (\S+)$/m.exec(out)?.[1], { timeoutMs: 240_000, intervalMs: 200 });
    } catch (e) {
      child.kill('SIGKILL');
      throw e;
    }
    const own = { slot: Number(/^slot (\d+)$/m.exec(out)?.[1]), cgroup: `standup-${path.basename(dir)}` };
    expect(Number.isInteger(own.slot)).toBe(true);
    expect(machineState(dir).processes.length).toBeGreaterThan(3);
    child.kill('SIGKILL');
    await pollUntil('the reaper to remove the state dir', async () => (existsSync(dir) ? undefined : true), { timeoutMs: 30_000 });
    const after = machineState(dir);
    expect(after.processes).toEqual([]);
    expect({ ...withoutOtherTestbeds(after, own), processes: [] }).toEqual({ ...withoutOtherTestbeds(before, own), processes: [] });
  }, 300_000);
});
