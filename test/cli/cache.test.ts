// The CLI's render cache: under $XDG_CACHE_HOME/standup (else ~/.cache/standup) of the environment it runs in, and
// --no-cache neither reads nor writes it.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Io } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/main.js';
import { LoadSession } from '../../src/load/load-session.js';
import { plainStyle } from '../../src/ui/style.js';
import { PROJECT } from './run.js';
import { yaml } from '../../src/repo/lazy-yaml.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Runs one command; `stats` is what its load did. */
async function cli(env: NodeJS.ProcessEnv, ...args: string[]) {
  let stdout = '';
  let stderr = '';
  const session = new LoadSession();
  const io: Io = { out: (t) => void (stdout += t), err: (t) => void (stderr += t), style: plainStyle, errStyle: plainStyle, isTTY: false, env, cwd: PROJECT, loadSession: session };
  const code = await runCli(args, io);
  return { code, stdout, stderr, stats: session.stats };
}

/** A kubeconfig whose cluster refuses at once: up loads the repository, then its preflight says it is unreachable. */
function refusingKubeconfig(dir: string): string {
  const kubeconfig = path.join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\n' +
    'users: [{name: u, user: {token: t}}]\ncontexts: [{name: standup-testbed, context: {cluster: c, user: u}}]\ncurrent-context: standup-testbed\n');
  return kubeconfig;
}

describe('the render cache from the command line', () => {
  it('plan fills $XDG_CACHE_HOME/standup, and the next run reads it; --no-cache does neither', async () => {
    const xdg = mkdtempSync(path.join(tmpdir(), 'standup-cli-cache-'));
    dirs.push(xdg);
    const env = { XDG_CACHE_HOME: xdg };
    const first = await cli(env, 'plan', '-o', 'json');
    expect(first.code).toBe(0);
    expect(first.stats.cacheHits).toBe(0);
    expect(readdirSync(path.join(xdg, 'standup', 'render')).length).toBeGreaterThan(0);
    const second = await cli(env, 'plan', '-o', 'json');
    expect(second.stdout).toBe(first.stdout);
    expect(second.stats.cacheHits).toBeGreaterThan(0);
    expect(second.stats.spawned).toBe(0);
    const bypass = await cli(env, 'plan', '-o', 'json', '--no-cache');
    expect(bypass.stdout).toBe(first.stdout);
    expect(bypass.stats.cacheHits).toBe(0);
    expect(bypass.stats.spawned).toBeGreaterThan(0);
  });

  it('falls back to $HOME/.cache/standup, and uses none when the environment names no home', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'standup-cli-home-'));
    dirs.push(home);
    await cli({ HOME: home }, 'plan');
    expect(existsSync(path.join(home, '.cache', 'standup', 'render'))).toBe(true);
    const relative = await cli({ XDG_CACHE_HOME: 'relative/dir' }, 'plan');
    expect(relative.stats.builds).toBeGreaterThan(0);
    expect(relative.stats.cacheHits + relative.stats.cacheMisses).toBe(0);
    expect(existsSync(path.join(PROJECT, 'relative'))).toBe(false);
  });

  it('up reads what check rendered from it, before it connects; --no-cache renders again', async () => {
    const xdg = mkdtempSync(path.join(tmpdir(), 'standup-cli-cache-up-'));
    dirs.push(xdg);
    const kubeconfig = refusingKubeconfig(xdg);
    const env = { XDG_CACHE_HOME: xdg, STANDUP_CONNECT_TIMEOUT: '2s' };
    await cli(env, 'check', '--cluster', 'dev');
    const load = (stderr: string) => {
      const m = /load done in \d+ ms: (\d+) builds in (\d+) kustomize processes \((\d+) from the render cache/.exec(stderr);
      expect(m, stderr).not.toBeNull();
      return { builds: Number(m![1]), spawned: Number(m![2]), hits: Number(m![3]) };
    };
    const up = await cli(env, 'up', '--cluster', 'dev', '--kubeconfig', kubeconfig, '--verbose');
    expect(up.code).toBe(1);
    const cached = load(up.stderr);
    expect(cached.hits).toBe(cached.builds);
    expect(cached.spawned).toBe(0);
    const fresh = load((await cli(env, 'up', '--cluster', 'dev', '--kubeconfig', kubeconfig, '--verbose', '--no-cache')).stderr);
    expect(fresh.hits).toBe(0);
    expect(fresh.spawned).toBeGreaterThan(0);
  });

  it('up keeps what it parsed after the load (its bootstrap files) in the parse memo: its next run parses no YAML', async () => {
    const xdg = mkdtempSync(path.join(tmpdir(), 'standup-cli-cache-memo-'));
    dirs.push(xdg);
    const kubeconfig = refusingKubeconfig(xdg);
    const env = { XDG_CACHE_HOME: xdg, STANDUP_CONNECT_TIMEOUT: '2s' };
    const parsed: string[] = [];
    const real = yaml().parseAllDocuments.bind(yaml());
    const counting = vi.spyOn(yaml(), 'parseAllDocuments').mockImplementation(((text: string, ...rest: unknown[]) => {
      parsed.push(text);
      return (real as (...x: unknown[]) => unknown)(text, ...rest);
    }) as never);
    try {
      const first = await cli(env, 'up', '--cluster', 'dev', '--kubeconfig', kubeconfig);
      expect(first.code).toBe(1);
      expect(parsed.some((t) => t.includes('kind: GitRepository'))).toBe(true); // the root sync's objects (bootstrap.sync)
      parsed.length = 0;
      const second = await cli(env, 'up', '--cluster', 'dev', '--kubeconfig', kubeconfig);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain('cannot reach the API server');
      expect(parsed).toEqual([]);
    } finally {
      counting.mockRestore();
    }
  });
});
