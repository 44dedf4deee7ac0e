import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fluxInfo, renderVersionText } from '../../src/cli/commands/version.js';
import { cli, PROJECT } from './run.js';

// `standup version` without a cluster, with a cluster that refuses, and with one that never answers. The answers of
// a real API server are tested against the testbed (test/integration/version.test.ts).
const VERSION = (JSON.parse(readFileSync(path.join(PROJECT, 'package.json'), 'utf8')) as { version: string }).version;
let dir: string;
let silent: net.Server;
const sockets = new Set<net.Socket>();

const kubeconfig = (name: string, server: string) => {
  const file = path.join(dir, name);
  writeFileSync(file, `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`);
  return file;
};

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'standup-version-'));
  // Accepts connections and never says a word: a hung API server (or a firewall that swallows packets).
  silent = net.createServer((s) => void sockets.add(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => silent.close(r));
  rmSync(dir, { recursive: true, force: true });
});

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('standup version', () => {
  it('--client: the version in package.json, with Node and the platform; asks no cluster', async () => {
    const r = await cli('version', '--client', '-o', 'json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ client: { version: VERSION, node: process.version, platform: `${process.platform}/${process.arch}` }, server: null });
    expect((await cli('--version')).stdout.trim()).toBe(VERSION);
  });

  it('a cluster that refuses the connection: the client version, the reason on stderr, exit 0', async () => {
    const file = kubeconfig('refused', `https://127.0.0.1:${await closedPort()}`);
    const text = await cli('version', '--kubeconfig', file);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`standup: ${VERSION} (node ${process.version}, ${process.platform}/${process.arch})\n`);
    expect(text.stderr).toMatch(/! server: cannot reach the API server https:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
    const json = JSON.parse((await cli('version', '--kubeconfig', file, '-o', 'json')).stdout);
    expect(json.server).toBeNull();
    expect(json.serverError).toContain('ECONNREFUSED');
  });

  it('a cluster that never answers: gives up after --request-timeout instead of hanging', async () => {
    const { port } = silent.address() as net.AddressInfo;
    const r = await cli('version', '--kubeconfig', kubeconfig('silent', `https://127.0.0.1:${port}`), '--request-timeout', '500ms', '-o', 'json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).serverError).toContain('timed out after 500 ms');
  });

  it('a --context that the kubeconfig lacks is bad input, exit 2', async () => {
    const r = await cli('version', '--kubeconfig', kubeconfig('ctx', 'https://127.0.0.1:1'), '--context', 'nope');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('context "nope" not found');
  });
});

describe('what the Flux objects say', () => {
  const crd = (labels: Record<string, string>) => ({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: 'kustomizations.kustomize.toolkit.fluxcd.io', labels },
    spec: { versions: [{ name: 'v1', served: true }, { name: 'v1beta2', served: false }] },
  });
  const deployment = (name: string, image: string) => ({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'flux-system' },
    spec: { template: { spec: { containers: [{ name: 'manager', image }] } } },
  });

  it('the distribution from the CRD label, each controller from its image tag (a digest is not a tag)', () => {
    const info = fluxInfo(crd({ 'app.kubernetes.io/version': 'v2.3.0' }), [
      deployment('kustomize-controller', 'ghcr.io/fluxcd/kustomize-controller:v1.3.0'),
      deployment('source-controller', 'registry.local:5000/fluxcd/source-controller:v1.3.0@sha256:abc'),
    ]);
    expect(info).toEqual({ version: 'v2.3.0', kustomizationApi: ['v1'], controllers: { 'kustomize-controller': 'v1.3.0', 'source-controller': 'v1.3.0' }, namespaces: ['flux-system'] });
    expect(renderVersionText({ client: { version: '1', node: 'v20', platform: 'linux/x64' }, server: { context: 'c', url: 'https://k', kubernetes: 'v1.36.5', flux: info } }))
      .toBe('standup: 1 (node v20, linux/x64)\nkubernetes: v1.36.5 (context c, https://k)\nflux: v2.3.0 (kustomize.toolkit.fluxcd.io/v1)\n  kustomize-controller: v1.3.0, source-controller: v1.3.0 (in flux-system)\n');
  });

  it('no Kustomization CRD: Flux is not installed; an unlabelled one: installed, version unknown', () => {
    expect(fluxInfo(undefined, [])).toBeNull();
    expect(fluxInfo(crd({}), [])).toMatchObject({ version: null, kustomizationApi: ['v1'], controllers: {} });
  });
});
