import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, PROJECT } from './run.js';

// A throwaway git repository holding the example: first with the StorageProfiles in platform-config (a CRD deadlock),
// then with them moved to platform-config-cdi (the fix), so `diff --from` sees the objects move between tiers.
let repo: string;
const git = (...args: string[]) => execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo });

beforeAll(async () => {
  repo = mkdtempSync(path.join(tmpdir(), 'standup-diff-'));
  cpSync(path.join(PROJECT, 'examples/homelab'), repo, { recursive: true });
  const pc = path.join(repo, 'platform-config/kustomization.yaml');
  const fixed = readFileSync(pc, 'utf8');
  cpSync(path.join(repo, 'platform-config-cdi/cdi-storageprofiles.yaml'), path.join(repo, 'platform-config/cdi-storageprofiles.yaml'));
  writeFileSync(pc, fixed + '  - cdi-storageprofiles.yaml\n');
  writeFileSync(path.join(repo, 'platform-config-cdi/kustomization.yaml'), 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n');
  await git('init', '-q', '-b', 'main');
  await git('add', '-A');
  await git('commit', '-qm', 'pre-fix');
  writeFileSync(pc, fixed);
  rmSync(path.join(repo, 'platform-config/cdi-storageprofiles.yaml'));
  writeFileSync(path.join(repo, 'platform-config-cdi/kustomization.yaml'), 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - cdi-storageprofiles.yaml\n');
  await git('commit', '-qam', 'fix: StorageProfiles in their own tier');
  // An uncommitted change must not leak into a revision diff: it reads git, not the working tree.
  writeFileSync(path.join(repo, 'clusters/base/apps.yaml'), 'garbage: [\n');
});

afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe('diff', () => {
  it('between revisions lists the objects that move under prune, with the safe procedure', async () => {
    const r = await cli('diff', '--repo', repo, '--cluster', 'dev', '--from', 'HEAD~1', '-o', 'json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [d] = JSON.parse(r.stdout).diffs;
    expect(d.tiersAdded).toEqual([]);
    expect(d.moves.map((m: { object: string; from: string; to: string; pruned: boolean; guaranteed: boolean }) => [m.object, m.from, m.to, m.pruned, m.guaranteed])).toEqual([
      ['StorageProfile/longhorn', 'flux-system/platform-config', 'flux-system/platform-config-cdi', true, true],
      ['StorageProfile/longhorn-vm', 'flux-system/platform-config', 'flux-system/platform-config-cdi', true, true],
    ]);
    expect(d.moves[0].message).toContain('it WILL delete StorageProfile/longhorn');
    expect(d.moves[0].message).toContain('Safe procedure: first merge the move with prune: false on platform-config');
    // What depends on the tier that prunes them is named: apps-vms also waits for the new tier, apps does not.
    expect(d.moves[0].dependents).toEqual(['flux-system/apps', 'flux-system/apps-vms']);
    expect(d.moves[0].unguarded).toEqual(['flux-system/apps']);
    expect(d.moves[0].message).toContain('In that window StorageProfile/longhorn does not exist for what depends on flux-system/platform-config: flux-system/apps, flux-system/apps-vms.');
    expect(d.moves[0].message).toContain('flux-system/apps depends on flux-system/platform-config but not on flux-system/platform-config-cdi');
  });

  it('prints the same as text', async () => {
    const r = await cli('diff', '--repo', repo, '--cluster', 'dev', '--from', 'HEAD~1', '--to', 'HEAD');
    expect(r.stdout).toContain('--- dev@HEAD~1');
    expect(r.stdout).toMatch(/^! StorageProfile\/longhorn moves from flux-system\/platform-config \(prune: true\)/m);
  });

  it('between two clusters: the example\'s dev and prod graphs are identical', async () => {
    const r = await cli('diff', '--cluster', 'dev', '--cluster', 'prod');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(no difference in the graph)');
  });

  it('between two clusters that differ: edges only in one', async () => {
    const r = await cli('diff', '--repo', path.join(PROJECT, 'test/fixtures/lint/cluster-drift'), '--cluster', 'dev', '--cluster', 'prod');
    expect(r.stdout).toMatch(/^[-+] flux-system\/apps dependsOn flux-system\/(config|infra)$/m);
  });

  it('needs two clusters or --from', async () => {
    const r = await cli('diff', '--cluster', 'dev');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('diff needs two clusters, got 1');
  });
});
