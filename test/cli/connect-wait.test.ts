// `standup up` against an API server that accepts TCP connections and never answers (a VIP with no live backend):
// the run says within a moment what it is waiting on, gives up after the connect timeout with the server named and
// exit 1 (API_UNREACHABLE), and a Ctrl-C meanwhile says what it interrupted, exit 130. The CLI runs as a subprocess,
// with the kubeconfig in KUBECONFIG as an operator has it; STANDUP_CONNECT_TIMEOUT shortens the 10 s default.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupRepos, cm, gotkSync, ks, makeRepo } from '../helpers/repo-fixtures.js';
import { PROJECT } from './run.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'standup-connect-wait-'));
let silent: net.Server;
let server: string;
let repo: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  // Accepts connections and says nothing, not even a TLS handshake.
  silent = net.createServer((sock) => sock.on('error', () => undefined));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  server = `https://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
  repo = makeRepo({
    'tiers.yaml': 'clusters:\n  dev:\n    path: clusters/dev\n    context: dev\n    bootstrap: {install: already-running, sync: clusters/dev/flux-system}\n',
    'clusters/dev/flux-system/gotk-sync.yaml': gotkSync('./clusters/dev'),
    'clusters/dev/a.yaml': ks('a', { path: './apps/a' }),
    'apps/a/cm.yaml': cm('x'),
  });
});
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL'); // a failed test's run
  silent.close();
  rmSync(dir, { recursive: true, force: true });
  cleanupRepos();
});

const kubeconfig = (url: string) => {
  const file = path.join(dir, `kc-${url.replace(/\W/g, '')}`);
  writeFileSync(file, [
    'apiVersion: v1', 'kind: Config',
    `clusters: [{name: c, cluster: {server: "${url}", insecure-skip-tls-verify: true}}]`,
    'users: [{name: u, user: {token: t}}]',
    'contexts: [{name: dev, context: {cluster: c, user: u}}]',
    'current-context: dev', '',
  ].join('\n'));
  return file;
};

interface Run {
  child: ChildProcess;
  /** stderr so far. */
  text: () => string;
  /** ms after the spawn at which a line matching `re` was written. */
  seen: (re: RegExp) => Promise<number>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

/** `standup up` as a subprocess, its stderr a pipe (plain lines, as in CI or `| tee`). */
function up(url: string, connectTimeout: string): Run {
  const t0 = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT, 'src/cli/main.ts'), 'up', '--repo', repo, '--cluster', 'dev'], {
    cwd: PROJECT,
    env: { ...process.env, KUBECONFIG: kubeconfig(url), STANDUP_CONNECT_TIMEOUT: connectTimeout, NO_COLOR: '1', CI: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  const lines: { at: number; line: string }[] = [];
  let partial = '';
  const waiters: (() => void)[] = [];
  child.stderr!.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    for (const line of parts) lines.push({ at: Date.now() - t0, line });
    for (const w of waiters.splice(0)) w();
  });
  const seen = (re: RegExp) => new Promise<number>((resolve, reject) => {
    const look = () => {
      const hit = lines.find((l) => re.test(l.line));
      if (hit) return resolve(hit.at);
      if (child.exitCode !== null || child.signalCode !== null) return reject(new Error(`never said ${re}:\n${lines.map((l) => l.line).join('\n')}`));
      waiters.push(look);
    };
    look();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>((r) =>
    child.on('close', (code, signal) => {
      for (const w of waiters.splice(0)) w();
      r({ code, signal, ms: Date.now() - t0 });
    }));
  return { child, text: () => lines.map((l) => l.line).join('\n'), seen, exit };
}

describe('up against an API server that never answers', () => {
  it('says within a second of preflight what it is waiting on, and Ctrl-C then says it was interrupted while connecting, exit 130', async () => {
    const run = up(server, '60s');
    const preflight = await run.seen(/^► Preflight$/);
    const waiting = await run.seen(new RegExp(`^◎ Preflight: connecting to ${server} \\(context dev\\)…$`));
    expect(waiting - preflight).toBeLessThan(1000);
    run.child.kill('SIGINT');
    const end = await run.exit;
    expect(end, run.text()).toMatchObject({ code: 130, signal: null });
    expect(end.ms - waiting).toBeLessThan(5000);
    expect(run.text()).toContain(`✗ interrupted while connecting to ${server} (context dev)\n  Nothing was written; run \`standup up\` again.`);
  }, 30_000);

  it('gives up after the connect timeout with the server named, what to check, and exit 1 (API_UNREACHABLE)', async () => {
    const run = up(server, '1s');
    const preflight = await run.seen(/^► Preflight$/);
    const end = await run.exit;
    expect(end, run.text()).toMatchObject({ code: 1, signal: null });
    expect(end.ms - preflight).toBeLessThan(5000); // the request timeout alone is 30 s
    expect(run.text()).toContain(`✗ cannot reach the API server of context dev (${server}): no answer in 1s\n  Nothing was written. Check that the server answers`);
    expect(run.text()).toMatch(/VIP or load balancer.*pass --context or --kubeconfig/);
  }, 30_000);

  it('says a server that refuses connections at once, as before (ECONNREFUSED)', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const url = `https://127.0.0.1:${(closed.address() as net.AddressInfo).port}`;
    await new Promise((r) => closed.close(r));
    const run = up(url, '60s');
    const end = await run.exit;
    expect(end, run.text()).toMatchObject({ code: 1, signal: null });
    expect(run.text()).not.toContain('connecting to');
    expect(run.text()).toContain(`✗ cannot reach the API server of context dev (${url}): ECONNREFUSED`);
  }, 30_000);
});
