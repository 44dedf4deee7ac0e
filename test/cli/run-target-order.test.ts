// `up` reads the kubeconfig while the repository loads (the client import overlaps the load): which error is reported
// must not depend on which finishes first.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRunTarget } from '../../src/cli/read-run-target.js';
import { offlineKubeconfig } from '../helpers/offline-kubeconfig.js';
import { cleanupRepos, cm, devTiers, ks, makeRepo } from '../helpers/repo-fixtures.js';

const { dir, kubeconfig } = offlineKubeconfig('standup-run-target-');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  cleanupRepos();
});

const flags = (repo: string, kc: string) => ({ repo, cluster: [], kubeconfig: kc, path: undefined, source: undefined, context: undefined, timeout: undefined }) as unknown as Parameters<typeof readRunTarget>[0];
const none = { bootstrap: 'none', checks: false, fallback: 'none', env: {} } as const;

describe('reading a run target: the kubeconfig and the repository together', () => {
  const broken = () => makeRepo({ 'tiers.yaml': 'version: 1\nclusters: [oops\n' });

  it('reports a missing kubeconfig before a broken repository, as when it was read first', async () => {
    await expect(readRunTarget(flags(broken(), path.join(dir, 'missing')), none)).rejects.toMatchObject({ code: 'KUBECONFIG_MISSING' });
  });

  it("reports the repository's error with a good kubeconfig, however soon the load fails", async () => {
    await expect(readRunTarget(flags(broken(), kubeconfig), none)).rejects.toMatchObject({ code: expect.not.stringMatching(/^KUBECONFIG/) });
  });

  it('gives the target with its client when both read', async () => {
    const repo = makeRepo({ 'tiers.yaml': devTiers, 'clusters/dev/a.yaml': ks('a', { path: './apps/a' }), 'apps/a/cm.yaml': cm('x') });
    const t = await readRunTarget(flags(repo, kubeconfig), none);
    expect(t.guard.actualContext).toBe('dev');
    expect(typeof t.client.find).toBe('function');
  });
});
