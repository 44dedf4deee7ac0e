// Cold start from nothing, for real: a bare testbed whose node runs Flux's images (no Flux yet), cluster DNS
// (CoreDNS) and the API server reachable from pods. `standup up --repo examples/homelab --cluster dev` installs Flux from the
// repository's gotk-components.yaml, waits for its controllers' Deployments (real pods), applies the sync, and
// converges every tier; pods resolve Services by name; a controller that cannot start fails the install step
// naming its Deployment and the pod's reason.
import { createSocket } from 'node:dgram';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Testbed } from '../testbed/harness.js';
import { sopsRepo, type SopsRepo } from '../testbed/sops.js';
import { pollUntil } from '../testbed/wait.js';
import { describeAudit, readAudit } from '../testbed/audit.js';
import { standupProc } from './cli.js';
import { kube, ready, until } from './kube.js';
import { serveRepo } from './serve.js';

const TIERS = ['apps', 'apps-vms', 'crds', 'flux-system', 'headlamp', 'oauth2-proxy', 'platform', 'platform-config', 'platform-config-cdi'];
const FLUX_DEPLOYMENTS = ['helm-controller', 'kustomize-controller', 'source-controller'];
let tb: Testbed;
let sops: SopsRepo;

/** Files under the temp dir and the home dir changed since `since` that contain any of `needles` (outside `skip`). */
function filesContaining(needles: string[], since: number, skip: string[]): string[] {
  const hits: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (skip.some((s) => p === s || p.startsWith(s + path.sep))) continue;
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        try {
          const st = statSync(p);
          if (st.mtimeMs < since || st.size > 64 << 20) continue;
          const text = readFileSync(p, 'latin1');
          if (needles.some((n) => text.includes(n))) hits.push(p);
        } catch {
          // gone meanwhile, or unreadable
        }
      }
    }
  };
  walk(tmpdir());
  // The Go and testbed caches are large and written by builds, not by standup.
  for (const d of ['.cache', '.config', '.local', '.npm']) walk(path.join(homedir(), d));
  return hits;
}

beforeAll(async () => {
  tb = await start({ flux: 'pods', handleSignals: false });
  sops = await sopsRepo(tb.binDir);
}, 180_000);

afterAll(async () => {
  sops?.cleanup();
  await tb?.stop();
});

/** One DNS query (A record) over UDP, from the host to a Service address. */
function resolveA(server: string, name: string): Promise<{ rcode: number; addresses: string[] }> {
  const id = Math.floor(Math.random() * 65535);
  const labels = name.replace(/\.$/, '').split('.');
  const q = Buffer.concat([
    Buffer.from([id >> 8, id & 255, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]),
    ...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])),
    Buffer.from([0, 0, 1, 0, 1]),
  ]);
  return new Promise((resolve, reject) => {
    const s = createSocket('udp4');
    const timer = setTimeout(() => (s.close(), reject(new Error(`no DNS answer from ${server} for ${name}`))), 3000);
    s.on('message', (m) => {
      clearTimeout(timer);
      s.close();
      const rcode = m[3]! & 15;
      const answers = m.readUInt16BE(6);
      const addresses: string[] = [];
      let off = q.length;
      for (let i = 0; i < answers; i++) {
        off += (m[off]! & 0xc0) === 0xc0 ? 2 : m.indexOf(0, off) - off + 1;
        const type = m.readUInt16BE(off);
        const len = m.readUInt16BE(off + 8);
        if (type === 1 && len === 4) addresses.push([...m.subarray(off + 10, off + 14)].join('.'));
        off += 10 + len;
      }
      resolve({ rcode, addresses });
    });
    s.send(q, 53, server);
  });
}

describe.sequential('Flux installed into the cluster from the repository', () => {
  // The testbed's git server, as the cluster reaches it: up and reset --up sync from it (git's URL does not resolve here).
  let mirror = '';
  it('the bare testbed: no Flux, CoreDNS answers for Services and for nothing outside the cluster', async () => {
    expect(tb.flux).toBe('pods');
    expect(await kube(tb.kubeConfig()).namespace('flux-system')).toBeNull();
    const dns = tb.node!.dnsServiceIp;
    // kube-proxy programs the kube-dns Service a moment after CoreDNS turns Ready: ask until it answers.
    const answer = await pollUntil('CoreDNS to answer through its Service', () => resolveA(dns, 'kubernetes.default.svc.cluster.local.'), { timeoutMs: 30_000, intervalMs: 500 });
    expect(answer).toEqual({ rcode: 0, addresses: [tb.node!.kubernetesServiceIp] });
    const outside = await resolveA(dns, 'example.com.');
    expect(outside.addresses).toEqual([]);
    expect(outside.rcode).not.toBe(0);
  });

  it('up installs Flux from gotk-components.yaml, waits for its Deployments, applies the SOPS secret from memory, and converges every tier', async () => {
    {
      const { url, sha } = await serveRepo(tb.git, 'homelab', sops.repo, `${tb.clusterGitBaseUrl}/homelab.git`);
      mirror = url;
      const record = path.join(sops.repo, 'up-record.json');
      const t0 = Date.now();
      const r = await standupProc(tb, ['up', '--repo', sops.repo, '--cluster', 'dev', '--source-url', url, '--timeout', '5m', '--record', record], sops.repo, sops.env);
      expect(r.exitCode, r.all).toBe(0);
      // The install step, with its time in the summary.
      // The install has its own step (and time in the summary), before the secrets and the sync.
      expect(r.all).toMatch(/Install Flux\s+ok\s+\d+(\.\d+)?m?s/);
      expect(r.all).toMatch(/Bootstrap Flux \(secrets, sync\)\s+ok\s+\d+(\.\d+)?m?s/);
      expect(r.all).toMatch(/3 controller Deployment\(s\) Available/);
      const apps = tb.kubeConfig().makeApiClient(AppsV1Api);
      const deps = (await apps.listNamespacedDeployment({ namespace: 'flux-system' })).items;
      expect(deps.map((d) => d.metadata?.name).sort()).toEqual(FLUX_DEPLOYMENTS);
      for (const d of deps) expect(d.status?.availableReplicas, d.metadata?.name).toBe(1);
      // Every tier Ready at the pushed revision, reconciled by the in-cluster controllers.
      const kss = await kube(tb.kubeConfig()).kustomizations();
      expect(kss.map((k) => k.metadata.name).sort()).toEqual(TIERS);
      for (const k of kss) {
        expect(ready(k), k.metadata.name).toBe(true);
        expect(k.status?.lastAppliedRevision).toBe(`main@sha1:${sha}`);
      }
      // The secret, decrypted in memory, is in the cluster...
      const secret = await tb.kubeConfig().makeApiClient(CoreV1Api).readNamespacedSecret({ namespace: 'flux-system', name: 'cluster-secrets' });
      for (const [k, v] of Object.entries(sops.values)) expect(Buffer.from(secret.data?.[k] ?? '', 'base64').toString()).toBe(v);
      // ...and nowhere else: not in the output (events, logs), the record, or any file written meanwhile.
      expect(r.all).toContain('Secret/flux-system/cluster-secrets');
      const leaks = filesContaining(Object.values(sops.values), t0, [tb.dir]);
      for (const v of Object.values(sops.values)) {
        expect(r.all).not.toContain(v);
        expect(readFileSync(record, 'utf8')).not.toContain(v);
      }
      expect(leaks).toEqual([]);
    }
  });

  it('a converged cluster: a second up and a resume write nothing but the request that fetches git; the Namespace both files declare keeps both sides\' labels', async () => {
    const writes = (since: Date, until: Date) =>
      readAudit(tb.auditLog, { since, until, mutating: true }).filter((e) => !e.requestURI.includes('dryRun=All')).map(describeAudit);
    // The one justified write: reconcile.fluxcd.io/requestedAt on the root source, asking source-controller whether
    // git moved (standup's only way to learn git's newest revision). Nothing is applied, no tier is asked again.
    const FETCH = 'patch gitrepositories flux-system/flux-system -> 200';
    for (const cmd of [['up', '--source-url', mirror], ['resume']]) {
      const t0 = new Date();
      const r = await standupProc(tb, [cmd[0]!, '--repo', sops.repo, '--cluster', 'dev', ...cmd.slice(1), '-o', 'json'], sops.repo, sops.env);
      const t1 = new Date();
      expect(r.exitCode, r.all).toBe(0);
      expect(writes(t0, t1), cmd[0]).toEqual([FETCH]);
      expect(changes(r.stdout).filter((e) => !e.action.startsWith('annotated') && e.action !== 'unchanged').map((e) => `${e.object} ${e.action}`), cmd[0]).toEqual([]);
    }
    // Declared in gotk-components.yaml (with the labels the flux CLI finds its install by) and in the sync directory
    // (with the prune label): one merged declaration, so neither apply strips the other's labels.
    const ns = await tb.kubeConfig().makeApiClient(CoreV1Api).readNamespace({ name: 'flux-system' });
    expect(ns.metadata?.labels).toMatchObject({ 'app.kubernetes.io/instance': 'flux-system', 'kustomize.toolkit.fluxcd.io/prune': 'disabled' });
    // The dry run agrees: every object of every step unchanged.
    const dry = await standupProc(tb, ['up', '--repo', sops.repo, '--cluster', 'dev', '--source-url', mirror, '--dry-run', '-o', 'json'], sops.repo, sops.env);
    expect(dry.exitCode, dry.all).toBe(0);
    const applies = changes(dry.stdout).filter((e) => !e.action.startsWith('annotated'));
    expect(applies.length).toBeGreaterThan(0);
    expect(applies.filter((e) => e.action !== 'unchanged').map((e) => `${e.object} ${e.action}`)).toEqual([]);
  });

  it('reset --up: tiers torn down in reverse order and stood up again; Flux itself stays', async () => {
    const uids = async () => (await fluxDeployments(tb)).map((d) => d.metadata?.uid).sort();
    const before = await uids();
    const r = await standupProc(tb, ['reset', '--repo', sops.repo, '--cluster', 'dev', '--yes', '--up', '--source-url', mirror, '-o', 'json'], sops.repo, sops.env);
    expect(r.exitCode, r.all).toBe(0);
    const events = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { type: string; id?: string; result?: string });
    const torn = events.filter((e) => e.type === 'step-end' && String(e.id).startsWith('delete:')).map((e) => String(e.id).slice('delete:flux-system/'.length));
    expect(torn).toHaveLength(TIERS.length - 1);
    // Dependents first: apps-vms before platform-config-cdi before platform-config ... crds last.
    expect(torn.indexOf('apps-vms')).toBeLessThan(torn.indexOf('platform-config-cdi'));
    expect(torn.indexOf('platform-config')).toBeLessThan(torn.indexOf('platform'));
    expect(torn.indexOf('platform')).toBeLessThan(torn.indexOf('crds'));
    const kss = await kube(tb.kubeConfig()).kustomizations();
    expect(kss.every((k) => ready(k))).toBe(true);
    expect(await uids()).toEqual(before);
  });
});

/** The `change` events of a `-o json` run. */
const changes = (stdout: string) =>
  stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { type: string; object: string; action: string }).filter((e) => e.type === 'change');

async function allTiersReady(t: Testbed, sha: string): Promise<boolean> {
  // Killed right after the install created the Flux CRDs, the API server may still answer 429 "storage is
  // (re)initializing" for them, asking to be asked again: pollUntil asks again (and names the last error if it lasts).
  const kss = await pollUntil('the Kustomizations to be listable', () => kube(t.kubeConfig()).kustomizations(), { timeoutMs: 30_000, intervalMs: 500 });
  return kss.length === TIERS.length && kss.every((k) => ready(k) && k.status?.lastAppliedRevision === `main@sha1:${sha}`);
}

async function fluxDeployments(t: Testbed) {
  try {
    return (await t.kubeConfig().makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace: 'flux-system' })).items;
  } catch {
    return [];
  }
}

describe.sequential('interrupted cold starts, and an install that cannot start', () => {
  // Issue 10's resume proof: SIGINT ends the run itself (exit 130, the summary), SIGKILL leaves whatever the cluster
  // has at that moment. Killed during the rollout, up has not applied the sync yet, and the checkout's sync names
  // git's URL (which this cluster cannot reach): resume must sync from the mirror up recorded before the install.
  it.each([['SIGKILL'], ['SIGINT']] as const)('%s while the Flux Deployments roll out: resume finishes the job from the mirror', async (signal) => {
    const t = await start({ flux: 'pods', handleSignals: false });
    const sops = await sopsRepo(t.binDir);
    try {
      const { url, sha } = await serveRepo(t.git, 'homelab', sops.repo, `${t.clusterGitBaseUrl}/homelab.git`);
      const run = standupProc(t, ['up', '--repo', sops.repo, '--cluster', 'dev', '--source-url', url], sops.repo, sops.env);
      // The Deployments exist, their pods are not all Available yet.
      await until('the Flux Deployments to be rolling out', async () => {
        const deps = await fluxDeployments(t);
        return deps.length === 3 && deps.some((d) => (d.status?.availableReplicas ?? 0) === 0);
      }, 60_000, 100);
      run.kill(signal);
      const r = await run;
      if (signal === 'SIGINT') {
        expect(r.exitCode, r.all).toBe(130);
        expect(r.all).toMatch(/Bootstrap Flux/);
      } else expect(r.signal).toBe('SIGKILL');
      expect(await allTiersReady(t, sha)).toBe(false);
      // The sync was not applied: what resume finds is up's record of the mirror, nothing more.
      expect(await kube(t.kubeConfig()).gitRepository('flux-system')).toBeNull();
      const resumed = await standupProc(t, ['resume', '--repo', sops.repo, '--cluster', 'dev'], sops.repo, sops.env);
      expect(resumed.exitCode, resumed.all).toBe(0);
      expect(resumed.all).toContain(`using the mirror URL that up recorded (${url})`);
      expect(await allTiersReady(t, sha)).toBe(true);
      const src = await kube(t.kubeConfig()).gitRepository('flux-system');
      expect((src?.spec as { url?: string } | undefined)?.url).toBe(url);
    } finally {
      sops.cleanup();
      await t.stop();
    }
  }, 300_000);

  it.each([['SIGKILL'], ['SIGINT']] as const)('%s while a tier waits: resume finishes the job', async (signal) => {
    const t = await start({ flux: 'pods', handleSignals: false });
    const sops = await sopsRepo(t.binDir);
    try {
      const { url, sha } = await serveRepo(t.git, 'homelab', sops.repo, `${t.clusterGitBaseUrl}/homelab.git`);
      const run = standupProc(t, ['up', '--repo', sops.repo, '--cluster', 'dev', '--source-url', url], sops.repo, sops.env);
      // platform waits for its Deployments (wait: true) once crds is Ready.
      await until('a tier to be waiting on its Deployments', async () => {
        const kss = await kube(t.kubeConfig()).kustomizations();
        const crds = kss.find((k) => k.metadata.name === 'crds');
        const platform = kss.find((k) => k.metadata.name === 'platform');
        return crds && ready(crds) && platform && !ready(platform);
      }, 120_000, 100);
      run.kill(signal);
      const r = await run;
      if (signal === 'SIGINT') {
        expect(r.exitCode, r.all).toBe(130);
        expect(r.all).toMatch(/platform\s+interrupted/);
      } else expect(r.signal).toBe('SIGKILL');
      const resumed = await standupProc(t, ['resume', '--repo', sops.repo, '--cluster', 'dev'], sops.repo, sops.env);
      expect(resumed.exitCode, resumed.all).toBe(0);
      expect(await allTiersReady(t, sha)).toBe(true);
    } finally {
      sops.cleanup();
      await t.stop();
    }
  });

  it('a controller that cannot start: up fails at the install step naming the Deployment and the pod\'s reason (exit 1)', async () => {
    const t = await start({ flux: 'pods', handleSignals: false });
    // A copy of the repository (and its tiers.yaml) whose install names an image the node does not have.
    const sops = await sopsRepo(t.binDir);
    const repo = sops.repo;
    try {
      const gotk = path.join(repo, 'clusters/dev/flux-system/gotk-components.yaml');
      writeFileSync(
        gotk,
        readFileSync(gotk, 'utf8')
          .replace(/image: ghcr\.io\/fluxcd\/kustomize-controller:\S+/, 'image: ghcr.io/fluxcd/kustomize-controller:v0.0.0-not-built')
          // Never: the node must not even try a registry (there is none to reach).
          .replace(/(image: ghcr\.io\/fluxcd\/kustomize-controller:v0\.0\.0-not-built\n(\s+)imagePullPolicy:) IfNotPresent/, '$1 Never'),
      );
      const { url } = await serveRepo(t.git, 'homelab', repo, `${t.clusterGitBaseUrl}/homelab.git`);
      const t0 = Date.now();
      const r = await standupProc(t, ['up', '--repo', repo, '--cluster', 'dev', '--source-url', url], repo, sops.env);
      expect(r.exitCode, r.all).toBe(1);
      expect(Date.now() - t0).toBeLessThan(120_000);
      expect(r.all).toMatch(/Flux install from clusters\/dev\/flux-system\/gotk-components\.yaml cannot start: Deployment\/flux-system\/kustomize-controller: 0\/1 ready; kustomize-controller-[a-z0-9]+-[a-z0-9]+: ErrImageNeverPull/);
      expect(r.all).toContain('Check the controller images named in clusters/dev/flux-system/gotk-components.yaml');
      // The other controllers do start: up stops at the first pod that cannot run, maybe before they are Available.
      const available = async () => (await fluxDeployments(t)).filter((d) => (d.status?.availableReplicas ?? 0) === 1).map((d) => d.metadata?.name).sort();
      await pollUntil('helm- and source-controller to be Available', async () => ((await available()).length === 2 ? true : undefined), { timeoutMs: 90_000, intervalMs: 500 }).catch(() => undefined);
      expect(await available()).toEqual(['helm-controller', 'source-controller']);
    } finally {
      sops.cleanup();
      await t.stop();
    }
  });
});
