// The loopback git server without a cluster: clone over smart HTTP (protocol
// v0, as go-git speaks it, and v2), follow a pushed commit, and the control route.
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitEnv, gitRepos, type GitRepos } from './git-repos.js';
import { startHttpServer, type HttpServer } from './http-server.js';
import { repoRoot } from './paths.js';

let dir: string;
let server: HttpServer;
let repos: GitRepos;
let restarts = 0;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'testbed-git-'));
  server = await startHttpServer(path.join(dir, 'git'), { 'restart-apiserver': async () => ({ n: ++restarts }) });
  repos = gitRepos(path.join(dir, 'git'), path.join(dir, 'work'), server.baseUrl);
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const clone = (args: string[], dest: string) => execa('git', [...args, 'clone', '-q', '--depth=1', repos.url('basic'), dest], { env: gitEnv() });

describe('testbed git server', () => {
  it('serves a fixture repo over smart HTTP and follows pushed commits', async () => {
    const sha1 = await repos.createRepo('basic', path.join(repoRoot, 'test/fixtures/testbed/basic'));
    expect(sha1).toMatch(/^[0-9a-f]{40}$/);
    expect(repos.url('basic')).toBe(`${server.baseUrl}/basic.git`);

    await clone(['-c', 'protocol.version=0'], path.join(dir, 'v0'));
    expect(readFileSync(path.join(dir, 'v0/apps/configmap.yaml'), 'utf8')).toContain('greeting: hello');
    expect((await execa('git', ['-C', path.join(dir, 'v0'), 'rev-parse', 'HEAD'])).stdout).toBe(sha1);

    const sha2 = await repos.commitAndPush('basic', { 'apps/configmap.yaml': null, 'apps/new.yaml': 'a: 1\n' }, 'second');
    expect(sha2).not.toBe(sha1);
    expect(await repos.head('basic')).toBe(sha2);
    await clone(['-c', 'protocol.version=2'], path.join(dir, 'v2'));
    expect(existsSync(path.join(dir, 'v2/apps/configmap.yaml'))).toBe(false);
    expect(readFileSync(path.join(dir, 'v2/apps/new.yaml'), 'utf8')).toBe('a: 1\n');
  });

  it('rejects bad repo names and paths that escape the repo', async () => {
    expect(() => repos.url('../x')).toThrow(/invalid repo name/);
    await expect(repos.commitAndPush('basic', { '../outside': 'x' }, 'm')).rejects.toThrow(/escapes/);
  });

  it('answers 404 for a missing repo and serves control routes under /-/', async () => {
    const r = await fetch(`${server.baseUrl}/missing.git/info/refs?service=git-upload-pack`);
    expect(r.status).toBe(404);
    const c = await fetch(`${server.baseUrl}/-/restart-apiserver`, { method: 'POST' });
    expect(await c.json()).toEqual({ n: 1 });
    expect((await fetch(`${server.baseUrl}/-/nope`)).status).toBe(404);
  });
});
