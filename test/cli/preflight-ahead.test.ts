// `up` asks preflight's question (which of Flux's CRDs exist) while the repository loads, so its connection and
// answer are ready when the run starts (issue 23, item 5); only of a cluster the context guard lets through, and a
// question asked ahead never keeps a refused run's process alive.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunTarget } from '../../src/cli/read-run-target.js';
import { cleanupRepos, cm, gotkSync, ks, makeRepo } from '../helpers/repo-fixtures.js';
import { FakeApiServer } from '../cluster/fake-apiserver.js';
import { PROJECT } from './run.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'standup-preflight-ahead-'));
let api: FakeApiServer;
beforeAll(async () => {
  api = await new FakeApiServer().start();
});
afterAll(async () => {
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
  cleanupRepos();
});

const kubeconfig = (server: string, context = 'dev') => {
  const file = path.join(dir, `kc-${context}-${server.replace(/\W/g, '')}`);
  writeFileSync(file, [
    'apiVersion: v1', 'kind: Config',
    `clusters: [{name: c, cluster: {server: "${server}", insecure-skip-tls-verify: true}}]`,
    'users: [{name: u, user: {token: t}}]',
    `contexts: [{name: ${context}, context: {cluster: c, user: u}}]`,
    `current-context: ${context}`, '',
  ].join('\n'));
  return file;
};
const repo = (extra: Record<string, string> = {}) => makeRepo({
  'tiers.yaml': 'clusters:\n  dev:\n    path: clusters/dev\n    context: dev\n    bootstrap: {install: already-running, sync: clusters/dev/flux-system}\n',
  'clusters/dev/flux-system/gotk-sync.yaml': gotkSync('./clusters/dev'),
  'clusters/dev/a.yaml': ks('a', { path: './apps/a' }),
  'apps/a/cm.yaml': cm('x'),
  ...extra,
});
const flags = (r: string, kc: string) => ({ repo: r, cluster: [], kubeconfig: kc, path: undefined, source: undefined, context: undefined, timeout: undefined }) as unknown as Parameters<typeof readRunTarget>[0];
const needs = { bootstrap: 'full', checks: true, fallback: 'apply', preflight: true, env: {} } as const;
const crdGets = () => api.log.filter((l) => l.method === 'GET' && l.url.includes('customresourcedefinitions/')).length;

describe("preflight's question, asked while the repository loads", () => {
  it('is answered by the time the run target is read, for a context tiers.yaml pins', async () => {
    api.log = [];
    const t = await readRunTarget(flags(repo(), kubeconfig(api.url)), needs);
    try {
      expect(t.fluxCrdsProbe).toBeDefined();
      await expect(t.fluxCrdsProbe).resolves.toEqual({ present: [], missing: ['kustomizations.kustomize.toolkit.fluxcd.io', 'gitrepositories.source.toolkit.fluxcd.io'] });
      expect(crdGets()).toBe(2);
    } finally {
      t.client.close?.();
    }
  });

  it('is not asked of a context tiers.yaml does not pin (the guard will refuse it)', async () => {
    api.log = [];
    const t = await readRunTarget(flags(repo(), kubeconfig(api.url, 'other')), needs);
    try {
      await expect(t.fluxCrdsProbe).resolves.toBeUndefined();
      expect(api.log).toEqual([]);
    } finally {
      t.client.close?.();
    }
  });

  it('does not keep a run its static checks refuse from ending, against a server that never answers', async () => {
    // Accepts connections and says nothing: the question asked ahead hangs until it is abandoned.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const url = `https://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
    try {
      const cyclic = repo({ 'clusters/dev/b.yaml': ks('b', { path: './apps/a', dependsOn: [{ name: 'c' }] }), 'clusters/dev/c.yaml': ks('c', { path: './apps/a', dependsOn: [{ name: 'b' }] }) });
      const t0 = Date.now();
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT, 'src/cli/main.ts'), 'up', '--repo', cyclic, '--cluster', 'dev', '--kubeconfig', kubeconfig(url)], { cwd: PROJECT, env: { ...process.env, CI: 'true', NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
      const code = await new Promise<number | null>((r) => child.on('close', r));
      expect(code, stderr).toBe(2);
      expect(stderr).toMatch(/cycle/i);
      expect(Date.now() - t0).toBeLessThan(15_000); // the request timeout is 30 s
    } finally {
      silent.close();
    }
  }, 40_000);
});
