// A run that stops before its first write (the server refuses at once) says the reason once as the step's line and
// once as the conclusion, and no table of steps that never ran (issue 24, item 8: it was said three times, and the
// table repeated "not run: Preflight failed" for every tier).
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { offlineKubeconfig } from '../helpers/offline-kubeconfig.js';
import { cleanupRepos, cm, gotkSync, ks, makeRepo } from '../helpers/repo-fixtures.js';
import { cli } from './run.js';

const { dir, kubeconfig } = offlineKubeconfig('standup-refused-');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  cleanupRepos();
});

describe('a run refused before it writes', () => {
  it('up against a server that refuses: the reason twice (step, conclusion), one line for what did not run, exit 1', async () => {
    const repo = makeRepo({
      'tiers.yaml': 'clusters:\n  dev:\n    path: clusters/dev\n    context: dev\n    bootstrap: {install: already-running, sync: clusters/dev/flux-system}\n',
      'clusters/dev/flux-system/gotk-sync.yaml': gotkSync('./clusters/dev'),
      'clusters/dev/a.yaml': ks('a', { path: './apps/a' }),
      'clusters/dev/b.yaml': ks('b', { path: './apps/b', dependsOn: [{ name: 'a' }] }),
      'apps/a/cm.yaml': cm('x'),
      'apps/b/cm.yaml': cm('y'),
    });
    const r = await cli('up', '--repo', repo, '--cluster', 'dev', '--kubeconfig', kubeconfig);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.match(/ECONNREFUSED/g), r.stderr).toHaveLength(2);
    expect(r.stderr).not.toMatch(/not run:|STEP\s+RESULT/);
    expect(r.stderr).toMatch(/✗ up stopped in \d+ms, before it changed anything on the cluster \(\d+ steps not run\)/);
    expect(r.stderr).toContain('kubectl get --raw /readyz');
  });
});
