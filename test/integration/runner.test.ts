import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type CrdOperator, type TestbedClient } from '../testbed/harness.js';
import { PROJECT, standup, standupProcess } from './cli.js';
import { kube, ready, until, type Ks } from './kube.js';
import { serveRepo } from './serve.js';
import { RUNTIME_CRDS, startCdiOperators as startCdiOperators_, wipeCdiScenario } from './cdi-scenario.js';

// The runner's proofs (issue 4) against the real kube-apiserver and Flux controllers. The steps share one testbed
// and build on each other, so they run in order.

const EXAMPLE = path.join(PROJECT, 'examples/homelab');
const PREFIX = path.join(PROJECT, 'test/fixtures/prefix-cdi');
const EXAMPLE_TIERS = ['apps', 'apps-vms', 'crds', 'flux-system', 'headlamp', 'oauth2-proxy', 'platform', 'platform-config', 'platform-config-cdi'];

let tb: TestbedClient;
let k: ReturnType<typeof kube>;
let kubeconfig: string;
let homelabUrl: string;
let homelabSha: string;
let operators: CrdOperator[] = [];

/** Runs standup and returns its exit code, printing its stderr when it fails so the test log says why. */
async function code(args: string[]): Promise<number> {
  const r = await standup(args);
  if (r.code !== 0) process.stderr.write(`standup ${args.join(' ')} exited ${r.code}:\n${r.stderr}\n`);
  return r.code;
}
const dev = (cmd: string, ...extra: string[]) => [cmd, '--cluster', 'dev', '--kubeconfig', kubeconfig, ...extra];
const allReadyAt = async (revision: string, names = EXAMPLE_TIERS) => {
  const kss = await k.kustomizations();
  return names.every((n) => {
    const ks = kss.find((x) => x.metadata.name === n);
    return ks !== undefined && ready(ks) && ks.status?.lastAppliedRevision === revision;
  }) ? kss : null;
};

function startCdiOperators() {
  operators = startCdiOperators_(tb);
}

const wipe = () => wipeCdiScenario(tb, k);

beforeAll(async () => {
  tb = connect(inject('testbed'));
  k = kube(tb.kubeConfig());
  kubeconfig = tb.kubeconfigPath;
  ({ url: homelabUrl, sha: homelabSha } = await serveRepo(tb.git, 'homelab', EXAMPLE));
  await serveRepo(tb.git, 'prefix', PREFIX);
});

// Test files share the testbed: leave it as found (no root sync, no tiers, no runtime CRDs) for the next one.
afterAll(async () => {
  if (tb) await wipe();
}, 300_000);

describe.sequential('standup against the testbed', () => {
  it('the context guard refuses a mismatched context and writes nothing', async () => {
    const r = await standup(['up', '--cluster', 'prod', '--kubeconfig', kubeconfig, '--source-url', homelabUrl, '-o', 'json']);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('prod-admin');
    expect(r.stderr).toContain('standup-testbed');
    expect(await k.gitRepository('flux-system')).toBeNull();
    expect(await k.kustomizations()).toEqual([]);
  });

  it('up --dry-run says what it would apply and annotate, and writes nothing', async () => {
    const r = await standup([...dev('up', '--source-url', homelabUrl, '--dry-run'), '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const changes = r.events.filter((e) => e.type === 'change');
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.every((e) => e.dryRun === true)).toBe(true);
    expect(changes.map((e) => e.object)).toEqual(expect.arrayContaining(['GitRepository/flux-system/flux-system', 'Kustomization/flux-system/flux-system']));
    expect(await k.gitRepository('flux-system')).toBeNull();
    expect(await k.kustomizations()).toEqual([]);
    expect(await k.crd('storageprofiles.cdi.kubevirt.io')).toBeNull();
  });

  it('reset refuses a cluster not marked resettable', async () => {
    const r = await standup(['reset', '--cluster', 'prod', '--kubeconfig', kubeconfig, '--yes']);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('not marked resettable');
  });

  it('the seeds\' deadlock, left stuck by Flux alone: resume applies the CRD fallback first, as up does, and converges it', async () => {
    const prefixUrl = tb.git.url('prefix');
    const sha = await tb.git.head('prefix');
    // A cold cluster's kustomize-controller has never seen the StorageProfile kind. One that has (another file
    // made and deleted the CRD on this shared testbed) still maps it, and its dry-run fails with NotFound, never
    // `no matches for kind`: the seeds' deadlock is then not what the cluster shows. A fresh process is the cold one.
    await tb.restart('kustomize-controller');
    tb.operator.cdi(1000);
    // The cold start as Flux alone runs it (what `flux bootstrap` leaves): the root sync, then nothing else.
    const sync = readFileSync(path.join(PREFIX, 'clusters/dev/flux-system/gotk-sync.yaml'), 'utf8').replace(/url: .*/, `url: ${prefixUrl}`);
    await execa('kubectl', ['--kubeconfig', kubeconfig, 'apply', '--server-side', '-f', '-'], { input: sync });
    const pc = await until('platform-config to be stuck on the missing CRD', async () => {
      const x = (await k.kustomizations()).find((y) => y.metadata.name === 'platform-config');
      return x?.status?.conditions?.find((c) => c.type === 'Ready')?.message?.includes('no matches for kind "StorageProfile"') ? x : null;
    }, 150_000).catch(async (e) => {
      // Say what the cluster showed instead, and leave it for the next test as the scenario's end would.
      const x = (await k.kustomizations()).find((y) => y.metadata.name === 'platform-config');
      await wipe();
      throw new Error(`${(e as Error).message}; platform-config's Ready: ${JSON.stringify(x?.status?.conditions?.find((c) => c.type === 'Ready') ?? null)}`);
    });
    expect(pc.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');

    // resume on the stuck cluster applies the repository's CRD fallback first, as up does, and that unblocks it.
    const fixed = await standup(['resume', '--repo', PREFIX, '--cluster', 'dev', '--kubeconfig', kubeconfig, '-o', 'json']);
    expect(fixed.stderr).toBe('');
    expect(fixed.code, fixed.stderr).toBe(0);
    const applied = fixed.events.filter((e) => e.type === 'change' && e.id === 'crds').map((e) => e.object);
    expect(applied).toContain('CustomResourceDefinition/storageprofiles.cdi.kubevirt.io');
    expect(await allReadyAt(`main@sha1:${sha}`, ['crds', 'platform', 'platform-config', 'apps-vms'])).toBeTruthy();
    await wipe();
  });

  it('up on a bare cluster converges the example: every tier Ready at the pushed revision', async () => {
    startCdiOperators();
    const r = await standup([...dev('up', '--source-url', homelabUrl), '-o', 'json', '--record', path.join(tb.dir, 'up-record.json')]);
    expect(r.stderr).toBe('');
    expect(r.code, r.stderr).toBe(0);
    const kss = await allReadyAt(`main@sha1:${homelabSha}`);
    expect(kss?.map((x) => x.metadata.name).sort()).toEqual(EXAMPLE_TIERS);
    // Tiers became Ready in dependency order: each after everything it depends on.
    const ends = r.events.filter((e) => e.type === 'step-end' && String(e.id).startsWith('tier:')).map((e) => String(e.id).slice('tier:flux-system/'.length));
    expect(ends.indexOf('platform-config')).toBeLessThan(ends.indexOf('platform-config-cdi'));
    expect(ends.indexOf('platform-config-cdi')).toBeLessThan(ends.indexOf('apps-vms'));
    const record = JSON.parse(readFileSync(path.join(tb.dir, 'up-record.json'), 'utf8'));
    expect(record.ok).toBe(true);
    expect(record.steps.find((s: { id: string }) => s.id === 'tier:flux-system/apps-vms').result).toBe('ok');
    // Waiting is done with watches: while the tiers converge, the only requests are the reconcile annotations.
    const api = r.events.find((e) => e.type === 'run-end')?.api as { waiting?: { requests: number; ms: number; perMinute: number; watches: number } };
    process.stderr.write(`[runner] api ${JSON.stringify(api)}\n`);
    expect(api.waiting?.ms).toBeGreaterThan(0);
    // Requests while waiting: the reconcile annotations, the LIST that opens each watch (a waiting tier's live line
    // watches the workloads it names, on demand), and a liveness probe in a spell when no watch said anything.
    expect(api.waiting!.requests).toBeLessThanOrEqual(EXAMPLE_TIERS.length + 2 + api.waiting!.watches + 2);
  });

  it('crds twice: the second run reports every object unchanged and writes nothing', async () => {
    // The CDI operator writes the same CRDs once it sees the CDI resource; let it finish first.
    await Promise.all(operators.map((op) => op.waitCreated(60_000)));
    const before = await Promise.all(RUNTIME_CRDS.map((c) => k.crd(c)));
    const r = await standup([...dev('crds'), '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const actions = r.events.filter((e) => e.type === 'change').map((e) => e.action);
    expect(actions).toEqual(['unchanged', 'unchanged']);
    const after = await Promise.all(RUNTIME_CRDS.map((c) => k.crd(c)));
    expect(after.map((c) => c?.metadata?.resourceVersion)).toEqual(before.map((c) => c?.metadata?.resourceVersion));
  });

  it('status agrees with Flux', async () => {
    const r = await standup([...dev('status'), '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout).kustomizations as { key: string; ready: string; revision: string }[];
    const live = await k.kustomizations();
    for (const row of rows) {
      const ks = live.find((x) => `${x.metadata.namespace}/${x.metadata.name}` === row.key)!;
      expect(row.ready).toBe(ks.status?.conditions?.find((c) => c.type === 'Ready')?.status);
      expect(row.revision).toBe(ks.status?.lastAppliedRevision);
    }
    const text = await standup(dev('status'));
    expect(text.stdout.split('\n')[0]).toBe(`Context standup-testbed (${tb.server}), cluster dev (examples/homelab/clusters/dev)`);
    expect(text.stdout.split('\n')[1]).toMatch(/^LEVEL\s+NAME\s+READY\s+REVISION\s+SUSPENDED\s+AGE\s+MESSAGE$/);
    expect(text.stdout).toContain(`main@sha1:${homelabSha.slice(0, 8)}`);
  });

  it('a pushed commit moves the revision, and up waits for every tier to apply it', async () => {
    const sha = await tb.git.commitAndPush('homelab', { 'NOTES.md': 'a push that changes no manifest still moves the revision\n' }, 'no-op push');
    const r = await standup([...dev('resume'), '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(await allReadyAt(`main@sha1:${sha}`)).toBeTruthy();
    homelabSha = sha;
  });

  it('reset tears down in reverse order, and up brings everything back', async () => {
    const r = await standup([...dev('reset', '--yes'), '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const deleted = r.events.filter((e) => e.type === 'step-end' && String(e.id).startsWith('delete:') && e.result === 'ok').map((e) => String(e.id).slice('delete:flux-system/'.length));
    expect(deleted.indexOf('apps-vms')).toBeLessThan(deleted.indexOf('platform-config-cdi'));
    expect(deleted.indexOf('platform-config-cdi')).toBeLessThan(deleted.indexOf('platform-config'));
    expect(deleted.indexOf('platform')).toBeLessThan(deleted.indexOf('crds'));
    expect((await k.kustomizations()).map((x) => x.metadata.name)).toEqual(['flux-system']);
    const up = await standup([...dev('up', '--source-url', homelabUrl), '-o', 'json']);
    expect(up.code, up.stderr).toBe(0);
    expect(await allReadyAt(`main@sha1:${homelabSha}`)).toBeTruthy();
  });

  it.each([['SIGINT'], ['SIGKILL']] as const)('up killed by %s mid-run: resume finishes the job', async (signal) => {
    expect(await code([...dev('reset', '--yes')])).toBe(0);
    const child = standupProcess([...dev('up', '--source-url', homelabUrl)]);
    // Stop it once the first tiers are through, in the middle of the order. If that never comes, the run must not
    // outlive this test: a leftover up would still be writing while the next test runs.
    await until('platform to be Ready', async () => (await k.kustomizations()).find((x) => x.metadata.name === 'platform' && ready(x)), 120_000, 200)
      .catch(async (e) => {
        child.kill('SIGKILL');
        await child.catch(() => undefined);
        throw e;
      });
    child.kill(signal);
    const killed = await child;
    if (signal === 'SIGINT') expect(killed.exitCode, killed.all).toBe(130);
    else expect(killed.signal).toBe('SIGKILL');
    const resumed = await standup([...dev('resume'), '-o', 'json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await allReadyAt(`main@sha1:${homelabSha}`)).toBeTruthy();
    const status = JSON.parse((await standup([...dev('status'), '-o', 'json'])).stdout).kustomizations as { state: string }[];
    expect(status.every((s) => s.state === 'ready')).toBe(true);
  });

  it('a kube-apiserver restart while resume waits: it reconnects and finishes', async () => {
    expect(await code([...dev('reset', '--yes')])).toBe(0);
    const sofar = { stdout: '', stderr: '' };
    const run = standup([...dev('up', '--source-url', homelabUrl), '-o', 'json'], {}, sofar);
    // An up that ends before crds is Ready says why at once; one that never gets there shows what it said so far.
    let ended: Awaited<typeof run> | undefined;
    void run.then((r) => (ended = r));
    await until('crds to be Ready', async () => (await k.kustomizations()).find((x) => x.metadata.name === 'crds' && ready(x)), 120_000, 200,
      () => (ended ? `up exited ${ended.code} first: ${ended.stderr.trim().split('\n').slice(-8).join(' | ')}` : undefined))
      .catch(async (e: Error) => {
        const ks = (await k.kustomizations()).map((x) => `${x.metadata.name}: ${JSON.stringify(x.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]))}`);
        throw new Error(`${e.message}\nup's last events:\n${sofar.stdout.trim().split('\n').slice(-15).join('\n')}\nstderr: ${sofar.stderr}\nKustomizations:\n${ks.join('\n')}`);
      });
    await tb.restartApiServer();
    const r = await run;
    expect(r.stderr).toBe('');
    expect(r.code, r.stderr).toBe(0);
    expect(await allReadyAt(`main@sha1:${homelabSha}`)).toBeTruthy();
  });
});

export type { Ks };
