import { describe, expect, it } from 'vitest';
import { debugEnabled } from '../../src/model/debug.js';
import { cli } from './run.js';

// --verbose: debug lines on stderr (it replaces STANDUP_DEBUG_BUILD), data on stdout untouched.
describe('--verbose', () => {
  it('logs the load and every kustomize build on stderr, with the time since start; stdout is the same', async () => {
    const quiet = await cli('plan', '--cluster', 'dev');
    const loud = await cli('plan', '--cluster', 'dev', '--verbose');
    expect(loud.code).toBe(0);
    expect(loud.stdout).toBe(quiet.stdout);
    expect(quiet.stderr).toBe('');
    const lines = loud.stderr.trim().split('\n');
    expect(lines.every((l) => /^debug \+\d+\.\d{3}s /.test(l))).toBe(true);
    expect(loud.stderr).toMatch(/debug \+\S+ load \S+: \S*tiers\.yaml, entries dev=examples\/homelab\/clusters\/dev, kustomize /);
    expect(loud.stderr).toMatch(/debug \+\S+ kustomize build \w+: \d+ ms, exit 0, \d+ bytes/);
    expect(loud.stderr).toMatch(/debug \+\S+ load done in \d+ ms: \d+ builds in \d+ kustomize processes/);
  });

  it('lasts one command: the next run without it is quiet', async () => {
    await cli('plan', '--cluster', 'dev', '--verbose');
    expect(debugEnabled()).toBe(false);
    expect((await cli('plan', '--cluster', 'dev')).stderr).toBe('');
  });

  it('shows the git commands of diff --base', async () => {
    const r = await cli('diff', '--cluster', 'dev', '--base', 'HEAD', '--verbose');
    expect(r.stderr).toMatch(/debug \+\S+ git merge-base HEAD [0-9a-f]{40}: exit 0 in \d+ ms/);
  });
});
