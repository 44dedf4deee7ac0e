// A Kustomization reading this repository through a GitRepository at another branch or tag than the root sync's:
// built from that ref when git has it (one info per source says so), from the work tree otherwise (the info says
// that instead), never in silence.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/load/load-repository.js';
import { cleanupRepos, makeRepo } from '../helpers/repo-fixtures.js';

afterAll(cleanupRepos);

const URL = 'https://example.com/me/fleet.git';
const gitRepo = (name: string, ref: string) =>
  `apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1m\n  url: ${URL}\n  ref:\n    ${ref}\n`;
const kustomization = (name: string, source: string, p: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ${p}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: ${source}\n`;
const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\n`;

function fleet(ref: string): string {
  const root = makeRepo({
    'clusters/dev/flux-system/gotk-sync.yaml': `${gitRepo('flux-system', 'branch: main')}---\n${kustomization('flux-system', 'flux-system', './clusters/dev')}`,
    'clusters/dev/release.yaml': `${gitRepo('release', ref)}---\n${kustomization('apps', 'release', './apps')}`,
    'apps/cm.yaml': cm('from-main'),
  });
  const git = (...a: string[]) => execFileSync('git', ['-c', 'user.email=t@localhost', '-c', 'user.name=t', ...a], { cwd: root, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'main');
  git('checkout', '-q', '-b', 'release');
  writeFileSync(path.join(root, 'apps/cm.yaml'), cm('from-release'));
  git('commit', '-q', '-am', 'release');
  git('tag', 'v1.0.0');
  git('checkout', '-q', 'main');
  return root;
}

const load = async (root: string) => {
  const r = await loadRepository({ repo: root });
  const names = r.clusters[0]!.objects.filter((o) => o.kind === 'ConfigMap').map((o) => `${o.name} ${o.origin.file}`);
  return { names, notes: r.problems.filter((p) => p.code === 'source-ref') };
};

describe('a GitRepository of this repository at another ref', () => {
  it('a branch git has: built from it, one info naming the ref and commit', async () => {
    const { names, notes } = await load(fleet('branch: release'));
    expect(names).toEqual(['from-release apps/cm.yaml']);
    expect(notes).toHaveLength(1);
    expect(notes[0]!.severity).toBe('info');
    expect(notes[0]!.message).toMatch(/GitRepository\/flux-system\/release is this repository at branch release.*built from refs\/heads\/release \(commit [0-9a-f]{12}\)/);
    expect(notes[0]!.file).toBe('clusters/dev/release.yaml');
  });

  it('a tag git has: built from it', async () => {
    const { names } = await load(fleet('tag: v1.0.0'));
    expect(names).toEqual(['from-release apps/cm.yaml']);
  });

  it('a ref git does not have: the work tree, and the info says so', async () => {
    const { names, notes } = await load(fleet('branch: gone'));
    expect(names).toEqual(['from-main apps/cm.yaml']);
    expect(notes[0]!.message).toContain('git here has no such ref, so it is built from the work tree');
  });

  it('the same ref as the root sync: nothing to say', async () => {
    const { names, notes } = await load(fleet('branch: main'));
    expect(names).toEqual(['from-main apps/cm.yaml']);
    expect(notes).toEqual([]);
  });
});
