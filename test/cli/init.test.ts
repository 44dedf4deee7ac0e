import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { Io } from '../../src/cli/io.js';
import { parseConfig } from '../../src/repo/tiers-yaml-parser.js';
import { plainStyle } from '../../src/ui/style.js';
import { PROJECT } from './run.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'standup-init-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function standup(args: string[]) {
  let stdout = '';
  let stderr = '';
  const io: Io = { out: (t) => void (stdout += t), err: (t) => void (stderr += t), style: plainStyle, errStyle: plainStyle, isTTY: false, env: {}, cwd: tmp };
  return { code: await runCli(args, io), stdout, stderr };
}

describe('standup init', () => {
  it('writes a tiers.yaml from discovery that check accepts, and refuses to overwrite it without --force', async () => {
    const repo = path.join(tmp, 'homelab');
    cpSync(path.join(PROJECT, 'examples/homelab'), repo, { recursive: true });
    rmSync(path.join(repo, 'tiers.yaml'), { force: true });
    const r = await standup(['init', '--repo', repo]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('2 cluster(s)');
    const text = readFileSync(path.join(repo, 'tiers.yaml'), 'utf8');
    const config = parseConfig(text, 'tiers.yaml');
    expect(Object.keys(config.clusters)).toEqual(['dev', 'prod']);
    expect(config.clusters.dev).toMatchObject({ path: 'clusters/dev', bootstrap: { install: { path: 'clusters/dev/flux-system/gotk-components.yaml' }, sync: 'clusters/dev/flux-system' } });
    expect(text).toContain('# found in clusters/dev/flux-system/gotk-sync.yaml');
    expect(text).toContain('# context: my-context');
    expect((await standup(['check', '--repo', repo])).code).toBe(0);
    const again = await standup(['init', '--repo', repo]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('exists already');
    expect(again.stderr).toContain('--force');
    expect((await standup(['init', '--repo', repo, '--force'])).code).toBe(0);
  });

  it('on a corpus repository: its clusters and the platform it shows', async () => {
    const repo = path.join(tmp, 'sulibot');
    cpSync(path.join(PROJECT, '../shared/corpus/sulibot__home-ops'), repo, { recursive: true, mode: 0 });
    const r = await standup(['init', '--repo', repo]);
    expect(r.code).toBe(0);
    const config = parseConfig(readFileSync(path.join(repo, 'tiers.yaml'), 'utf8'), 'tiers.yaml');
    expect(Object.keys(config.clusters)).toEqual(expect.arrayContaining(['cluster-101', 'cluster-104']));
  }, 120_000);
});
