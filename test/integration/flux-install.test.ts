// Cold start from nothing, for real: a bare testbed whose node runs Flux's images (no Flux yet), cluster DNS
// (CoreDNS) and the API server reachable from pods. `standup up --cluster dev-incluster` installs Flux from the
// repository's gotk-components.yaml, waits for its controllers' Deployments (real pods), applies the sync, and
// converges every tier; pods resolve Services by name; a controller that cannot start fails the install step
// naming its Deployment and the pod's reason.
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AppsV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Testbed } from '../testbed/harness.js';
import { PROJECT, standup } from './cli.js';
import { kube, ready } from './kube.js';
import { serveRepo } from './serve.js';

const EXAMPLE = path.join(PROJECT, 'examples/homelab');
const TIERS = ['apps', 'apps-vms', 'crds', 'flux-system', 'headlamp', 'oauth2-proxy', 'platform', 'platform-config', 'platform-config-cdi'];
const FLUX_DEPLOYMENTS = ['helm-controller', 'kustomize-controller', 'source-controller'];
let tb: Testbed;

beforeAll(async () => {
  tb = await start({ flux: 'pods', handleSignals: false });
}, 180_000);

afterAll(async () => {
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
  it('the bare testbed: no Flux, CoreDNS answers for Services and for nothing outside the cluster', async () => {
    expect(tb.flux).toBe('pods');
    expect(await kube(tb.kubeConfig()).namespace('flux-system')).toBeNull();
    const dns = tb.node!.dnsServiceIp;
    expect(await resolveA(dns, 'kubernetes.default.svc.cluster.local.')).toEqual({ rcode: 0, addresses: [tb.node!.kubernetesServiceIp] });
    const outside = await resolveA(dns, 'example.com.');
    expect(outside.addresses).toEqual([]);
    expect(outside.rcode).not.toBe(0);
  });

  it('up installs Flux from gotk-components.yaml, waits for its Deployments, and converges every tier', async () => {
    const { url, sha } = await serveRepo(tb.git, 'homelab', EXAMPLE, `${tb.clusterGitBaseUrl}/homelab.git`);
    const r = await standup(['up', '--cluster', 'dev-incluster', '--kubeconfig', tb.kubeconfigPath, '--source-url', url, '--timeout', '5m']);
    expect(r.code, r.stderr).toBe(0);
    // The install step, with its time in the summary.
    expect(r.stderr).toMatch(/Bootstrap Flux \(install, secrets, sync\)\s+ok\s+\d+(\.\d+)?m?s/);
    expect(r.stderr).toMatch(/3 controller Deployment\(s\) Available/);
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
    // Flux here is the repository's: no host process of the testbed serves Flux.
    expect(readFileSync(path.join(EXAMPLE, 'clusters/dev/flux-system/gotk-components.yaml'), 'utf8')).toContain('ghcr.io/fluxcd/source-controller:');
  });
});
