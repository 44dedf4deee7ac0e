// The CLI's render cache: under $XDG_CACHE_HOME/standup (else ~/.cache/standup) of the environment it runs in, and
// --no-cache neither reads nor writes it.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Io } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/main.js';
import { lastLoadStats } from '../../src/repo/load.js';
import { plainStyle } from '../../src/ui/style.js';
import { PROJECT } from './run.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function cli(env: NodeJS.ProcessEnv, ...args: string[]) {
  let stdout = '';
  let stderr = '';
  const io: Io = { out: (t) => void (stdout += t), err: (t) => void (stderr += t), style: plainStyle, errStyle: plainStyle, isTTY: false, env, cwd: PROJECT };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

describe('the render cache from the command line', () => {
  it('plan fills $XDG_CACHE_HOME/standup, and the next run reads it; --no-cache does neither', async () => {
    const xdg = mkdtempSync(path.join(tmpdir(), 'standup-cli-cache-'));
    dirs.push(xdg);
    const env = { XDG_CACHE_HOME: xdg };
    const first = await cli(env, 'plan', '-o', 'json');
    expect(first.code).toBe(0);
    expect(lastLoadStats.cacheHits).toBe(0);
    expect(readdirSync(path.join(xdg, 'standup', 'render')).length).toBeGreaterThan(0);
    const second = await cli(env, 'plan', '-o', 'json');
    expect(second.stdout).toBe(first.stdout);
    expect(lastLoadStats.cacheHits).toBeGreaterThan(0);
    expect(lastLoadStats.spawned).toBe(0);
    const bypass = await cli(env, 'plan', '-o', 'json', '--no-cache');
    expect(bypass.stdout).toBe(first.stdout);
    expect(lastLoadStats.cacheHits).toBe(0);
    expect(lastLoadStats.spawned).toBeGreaterThan(0);
  });

  it('falls back to $HOME/.cache/standup, and uses none when the environment names no home', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'standup-cli-home-'));
    dirs.push(home);
    await cli({ HOME: home }, 'plan');
    expect(existsSync(path.join(home, '.cache', 'standup', 'render'))).toBe(true);
    await cli({ XDG_CACHE_HOME: 'relative/dir' }, 'plan');
    expect(lastLoadStats.cacheHits + lastLoadStats.cacheMisses).toBe(0);
    expect(existsSync(path.join(PROJECT, 'relative'))).toBe(false);
  });
});
