import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT } from './run.js';

// The real CLI as a subprocess, its stdout a pipe read by a slow reader: an exit right after the last write used to
// cut the output at the pipe's 64 KiB buffer.
// Long names and several dependsOn each make the JSON large from few tiers: the point is bytes, not tier count.
const TIERS = 800;
let repo: string;

const tierName = (i: number) => `${'tier-with-a-long-name-so-that-the-output-grows-'.repeat(4)}${String(i).padStart(5, '0')}`;

/** A repository whose one entry holds TIERS Kustomizations in a chain, so `plan -o json` is well over 1 MiB. */
function writeRepo(dir: string): void {
  const file = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  file('clusters/big/flux-system/gotk-sync.yaml', `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, url: https://git.example/big.git, ref: {branch: main}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./clusters/big, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
`);
  const docs: string[] = [];
  for (let i = 0; i < TIERS; i++) {
    const deps = [1, 2, 3].filter((d) => i - d >= 0).map((d) => `{name: ${tierName(i - d)}}`);
    const name = tierName(i);
    const dependsOn = deps.length ? `\n  dependsOn: [${deps.join(', ')}]` : '';
    docs.push(`apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: ${name}, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}${dependsOn}`);
  }
  file('clusters/big/tiers.yaml', docs.join('\n---\n') + '\n');
  file('clusters/big/kustomization.yaml', 'resources: [flux-system/gotk-sync.yaml, tiers.yaml]\n');
  file('apps/kustomization.yaml', 'resources: [cm.yaml]\n');
  file('apps/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: default}\n');
}

/** Runs `standup plan -o json` on the big repository; stdout goes to `stdout` (a file descriptor) or a pipe. */
function run(stdout: number | 'pipe'): { child: ReturnType<typeof spawn>; done: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT, 'src/cli/main.ts'), 'plan', '--repo', repo, '-o', 'json'], {
    cwd: PROJECT,
    stdio: ['ignore', stdout, 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  const done = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, done };
}

describe('output through a pipe', () => {
  beforeAll(() => {
    repo = mkdtempSync(path.join(os.tmpdir(), 'standup-pipe-'));
    writeRepo(repo);
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it('is byte-identical to the output written to a file, at well over 1 MiB, with a slow reader', async () => {
    const outFile = path.join(repo, 'plan.json');
    const fd = openSync(outFile, 'w');
    const toFile = run(fd);
    closeSync(fd);
    expect(await toFile.done).toBe(0);
    const expected = readFileSync(outFile);
    expect(expected.length).toBeGreaterThan(1024 * 1024);

    const piped = run('pipe');
    const chunks: Buffer[] = [];
    // A slow consumer: take one chunk, pause, resume a little later, so the writer meets a full pipe many times.
    piped.child.stdout!.on('data', (c: Buffer) => {
      chunks.push(c);
      piped.child.stdout!.pause();
      setTimeout(() => piped.child.stdout!.resume(), 5);
    });
    expect(await piped.done).toBe(0);
    const got = Buffer.concat(chunks);
    expect(got.length).toBe(expected.length);
    expect(got.equals(expected)).toBe(true);
    const plan = JSON.parse(got.toString('utf8')) as { clusters: { tiers: string[] }[] };
    expect(plan.clusters[0]!.tiers).toHaveLength(TIERS);
  }, 120_000);

  it('ends quietly when the reader goes away after the first chunk (`| head -c 100`): no stack, no EPIPE, the command\'s own exit code', async () => {
    const piped = run('pipe');
    let stderr = '';
    piped.child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    piped.child.stdout!.once('data', () => piped.child.stdout!.destroy());
    expect(await piped.done).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|Unhandled|at .*\.ts:\d+/);
  }, 120_000);
});
