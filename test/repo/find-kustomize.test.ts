// `kubectl kustomize` renders without asking any cluster, even through a kubectl that is a version dispatcher
// (gcloud's asks the current context's API server for its version before every command, for up to 5 s).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKustomize } from '../../src/repo/find-kustomize.js';
import { runProcess } from '../../src/repo/run-process.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'standup-find-kustomize-'));
let silent: net.Server;
let connections = 0;
let kubeconfig: string;

// A kubectl that does what the dispatcher does first: reads the kubeconfig its flags or KUBECONFIG name, and when the
// context in use has a server, connects to it and waits (here 3 s) for its version; then it "renders" nothing.
const FAKE_KUBECTL = `#!${process.execPath}
const fs = require('node:fs');
const net = require('node:net');
const flag = (n) => process.argv.find((a) => a.startsWith('--' + n + '='))?.slice(n.length + 3);
const file = flag('kubeconfig') ?? process.env.KUBECONFIG;
let text = '';
try { text = fs.readFileSync(file, 'utf8'); } catch {}
const context = flag('context') ?? /current-context: (\\S+)/.exec(text)?.[1];
const server = context && text.includes('name: ' + context) ? /server: "?https?:\\/\\/([^":]+):(\\d+)/.exec(text) : null;
if (!server) { process.stdout.write('asked no cluster\\n'); process.exit(0); }
const s = net.connect(Number(server[2]), server[1]);
const done = () => { s.destroy(); process.stdout.write('asked the cluster\\n'); };
s.on('data', done); s.on('error', done); setTimeout(done, 3000);
`;

beforeAll(async () => {
  silent = net.createServer((sock) => {
    connections++;
    sock.on('error', () => undefined);
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const port = (silent.address() as net.AddressInfo).port;
  kubeconfig = path.join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, [
    'apiVersion: v1', 'kind: Config',
    `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}"}}]`,
    'users: [{name: u, user: {token: t}}]',
    'contexts: [{name: dev, context: {cluster: c, user: u}}]',
    'current-context: dev', '',
  ].join('\n'));
  writeFileSync(path.join(dir, 'kubectl'), FAKE_KUBECTL);
  chmodSync(path.join(dir, 'kubectl'), 0o755);
});
afterAll(() => {
  silent.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('kubectl kustomize', () => {
  it('is run so that a dispatching kubectl asks no cluster, not even the current context of KUBECONFIG', async () => {
    const k = findKustomize(dir);
    expect(k.display).toBe('kubectl kustomize');
    const [bin, ...args] = k.command;
    const t0 = Date.now();
    const r = await runProcess(bin, [...args, 'some/dir'], { env: { ...process.env, KUBECONFIG: kubeconfig } });
    expect(r.stdout).toBe('asked no cluster\n');
    expect(connections).toBe(0);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
