// `npm run testbed -- up` keeps its state per testbed: two `up`s at once give two working testbeds, each with its
// own KUBECONFIG and id, and each `down` stops its own (the other keeps running).
import { execa } from 'execa';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { loadKubeConfig } from '../testbed/kube.js';
import { repoRoot } from '../testbed/paths.js';

// A state root of its own: `env` without --id must see this test's two testbeds only, not another shard's or
// engineer's `npm run testbed -- up` on the same machine.
const stateRoot = mkdtempSync(path.join(tmpdir(), 'standup-testbed-cli-'));
const cli = (args: string[], env: Record<string, string> = {}) =>
  execa('npx', ['tsx', path.join(repoRoot, 'scripts/testbed.ts'), ...args], { cwd: repoRoot, reject: false, env: { STANDUP_TESTBED_STATE_ROOT: stateRoot, ...env } });
const exported = (stdout: string, name: string) => new RegExp(`^export ${name}=(.+)$`, 'm').exec(stdout)?.[1] ?? '';
const started: string[] = [];

afterAll(async () => {
  for (const id of started) await cli(['down', '--id', id]);
  rmSync(stateRoot, { recursive: true, force: true });
});

describe('npm run testbed', () => {
  it('two parallel `up`s give two working testbeds; each `down` stops its own', async () => {
    const [a, b] = await Promise.all([cli(['up']), cli(['up'])]);
    expect(a.exitCode, a.stderr).toBe(0);
    expect(b.exitCode, b.stderr).toBe(0);
    const ids = [exported(a.stdout, 'STANDUP_TESTBED_ID'), exported(b.stdout, 'STANDUP_TESTBED_ID')];
    started.push(...ids);
    const kubeconfigs = [exported(a.stdout, 'KUBECONFIG'), exported(b.stdout, 'KUBECONFIG')];
    expect(ids[0]).not.toBe(ids[1]);
    expect(kubeconfigs[0]).not.toBe(kubeconfigs[1]);
    const servers = kubeconfigs.map((k) => loadKubeConfig(k).getCurrentCluster()?.server);
    expect(servers[0]).not.toBe(servers[1]);
    // Both answer, each with its own node.
    for (const k of kubeconfigs) {
      const nodes = await loadKubeConfig(k).makeApiClient(CoreV1Api).listNode();
      expect(nodes.items.map((n) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status)).toEqual(['True']);
    }
    // With two running, a command must be told which.
    const ambiguous = await cli(['env']);
    expect(ambiguous.exitCode).toBe(1);
    expect(ambiguous.stderr).toMatch(/2 testbeds are running .*--id ID or STANDUP_TESTBED_ID/);
    expect((await cli(['env'], { STANDUP_TESTBED_ID: ids[1]! })).stdout).toContain(`export KUBECONFIG=${kubeconfigs[1]}`);

    expect((await cli(['down', '--id', ids[0]!])).exitCode).toBe(0);
    expect(existsSync(kubeconfigs[0]!)).toBe(false);
    const other = await cli(['status', '--id', ids[1]!]);
    expect(other.exitCode, other.stderr).toBe(0);
    expect((await loadKubeConfig(kubeconfigs[1]!).makeApiClient(CoreV1Api).listNode()).items).toHaveLength(1);
    expect((await cli(['down', '--id', ids[1]!])).exitCode).toBe(0);
    expect(existsSync(kubeconfigs[1]!)).toBe(false);
    expect((await cli(['status', '--id', ids[1]!])).exitCode).toBe(1);
    // Not a speed test: two testbeds starting at once (~90 s alone) beside the other shard's took over 180 s at load 20.
  }, 420_000);
});
