import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { Io } from '../../src/cli/io.js';
import { plainStyle } from '../../src/ui/style.js';
import { PROJECT } from './run.js';

// `diff --base` as a pull request runs it: against the merge-base with the default branch, in a full clone and in the
// shallow checkouts CI makes (actions/checkout: one commit of refs/pull/N/merge, no branches). The "remote" is a bare
// repository on disk, so every fetch stays on this machine.
let tmp: string;
let origin: string;
let featureSha: string;
let mainSha: string;

const git = async (cwd: string, ...args: string[]) =>
  (await execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], { cwd })).stdout.trim();

async function standup(cwd: string, args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const io: Io = { out: (t) => void (stdout += t), err: (t) => void (stderr += t), style: plainStyle, errStyle: plainStyle, isTTY: false, env, cwd };
  const code = await runCli(['--repo', cwd, ...args], io);
  return { code, stdout, stderr };
}

/** A clone the way actions/checkout makes one for a pull request: the merge ref only, one commit deep. */
async function prCheckout(name: string, ref: string): Promise<string> {
  const dir = path.join(tmp, name);
  mkdirSync(dir);
  await git(dir, 'init', '-q');
  await git(dir, 'remote', 'add', 'origin', origin);
  await git(dir, 'fetch', '-q', '--no-tags', '--depth=1', 'origin', `+${ref}:refs/remotes/pull/1/merge`);
  await git(dir, 'checkout', '-q', '--detach', 'refs/remotes/pull/1/merge');
  return dir;
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'standup-diff-base-'));
  const src = path.join(tmp, 'src');
  cpSync(path.join(PROJECT, 'examples/homelab'), src, { recursive: true });
  // main: the StorageProfiles applied by platform-config itself (before the fix).
  const pc = path.join(src, 'platform-config/kustomization.yaml');
  const fixed = readFileSync(pc, 'utf8');
  cpSync(path.join(src, 'platform-config-cdi/cdi-storageprofiles.yaml'), path.join(src, 'platform-config/cdi-storageprofiles.yaml'));
  writeFileSync(pc, fixed + '  - cdi-storageprofiles.yaml\n');
  writeFileSync(path.join(src, 'platform-config-cdi/kustomization.yaml'), 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n');
  await git(src, 'init', '-q');
  await git(src, 'add', '-A');
  await git(src, 'commit', '-qm', 'pre-fix');
  // feature: the fix, and apps waits for headlamp too.
  await git(src, 'checkout', '-qb', 'feature');
  writeFileSync(pc, fixed);
  rmSync(path.join(src, 'platform-config/cdi-storageprofiles.yaml'));
  writeFileSync(path.join(src, 'platform-config-cdi/kustomization.yaml'), 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - cdi-storageprofiles.yaml\n');
  const apps = path.join(src, 'clusters/base/apps.yaml');
  writeFileSync(apps, readFileSync(apps, 'utf8').replace('    - name: oauth2-proxy\n', '    - name: oauth2-proxy\n    - name: headlamp\n'));
  await git(src, 'commit', '-qam', 'fix: StorageProfiles in their own tier; apps after headlamp');
  for (let i = 0; i < 120; i++) await git(src, 'commit', '-q', '--allow-empty', '-m', `feature work ${i}`);
  featureSha = await git(src, 'rev-parse', 'HEAD');
  // main moves on meanwhile (not touching the graph), so the merge-base is deep in the feature's history.
  await git(src, 'checkout', '-q', 'main');
  for (let i = 0; i < 5; i++) await git(src, 'commit', '-q', '--allow-empty', '-m', `main work ${i}`);
  mainSha = await git(src, 'rev-parse', 'HEAD');
  // What GitHub serves as refs/pull/1/merge: main with the feature merged.
  await git(src, 'checkout', '-q', '-b', 'merge', 'main');
  await git(src, 'merge', '-q', '--no-ff', '--no-edit', 'feature');
  await git(src, 'update-ref', 'refs/pull/1/merge', 'HEAD');
  await git(src, 'update-ref', 'refs/pull/1/head', featureSha);
  await git(src, 'checkout', '-q', 'main');
  await git(src, 'branch', '-q', '-D', 'merge');
  origin = path.join(tmp, 'origin.git');
  await git(tmp, 'clone', '-q', '--mirror', src, origin);
  // A developer's full clone, on the feature branch.
  await git(tmp, 'clone', '-q', origin, path.join(tmp, 'full'));
  await git(path.join(tmp, 'full'), 'checkout', '-q', 'feature');
}, 120_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('diff --base', () => {
  it('in a full clone: against the merge-base with origin/HEAD, as the pull request changes the graph', async () => {
    const dir = path.join(tmp, 'full');
    const r = await standup(dir, ['diff', '--cluster', 'dev', '--base', '-o', 'json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    const mergeBase = await git(dir, 'merge-base', 'origin/main', 'HEAD');
    expect(out.base).toEqual({ ref: 'origin/main', commit: mergeBase, head: 'HEAD' });
    const [d] = out.diffs;
    expect(d.from).toBe(`dev@${mergeBase.slice(0, 12)}`);
    expect(d.edgesAdded).toEqual([{ from: 'flux-system/apps', to: 'flux-system/headlamp' }]);
    expect(d.moves.map((m: { object: string }) => m.object)).toEqual(['StorageProfile/longhorn', 'StorageProfile/longhorn-vm']);
    // No fetch in a full clone, and nothing said about one.
    expect(r.stderr).toBe('');
  });

  it('--exit-code: 1 when the graph changed, 0 when it did not', async () => {
    const dir = path.join(tmp, 'full');
    expect((await standup(dir, ['diff', '--cluster', 'dev', '--base', '--exit-code'])).code).toBe(1);
    await git(dir, 'checkout', '-q', 'origin/main');
    const same = await standup(dir, ['diff', '--cluster', 'dev', '--base', '--exit-code']);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('(no difference in the graph)');
    await git(dir, 'checkout', '-q', 'feature');
  });

  it('in a shallow pull request checkout: fetches the base branch named by GITHUB_BASE_REF, and says so', async () => {
    const dir = await prCheckout('pr-merge', 'refs/pull/1/merge');
    expect(await git(dir, 'rev-parse', '--is-shallow-repository')).toBe('true');
    const r = await standup(dir, ['diff', '--cluster', 'dev', '--base', '-o', 'json'], { GITHUB_BASE_REF: 'main' });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    // The merge commit's first parent is the base branch's tip: the merge-base is main itself.
    expect(out.base).toMatchObject({ ref: 'origin/main', commit: mainSha });
    expect(out.diffs[0].edgesAdded).toEqual([{ from: 'flux-system/apps', to: 'flux-system/headlamp' }]);
    expect(r.stderr).toContain('fetching the base branch: git fetch --no-tags --depth=50 origin +refs/heads/main:refs/remotes/origin/main');
  });

  it('in a shallow checkout of the branch itself: deepens the history until the merge-base is there', async () => {
    const dir = await prCheckout('pr-head', 'refs/pull/1/head');
    const r = await standup(dir, ['diff', '--cluster', 'dev', '--base', 'main', '-o', 'json']);
    expect(r.code).toBe(0);
    const full = path.join(tmp, 'full');
    const expected = await git(full, 'merge-base', 'origin/main', featureSha);
    expect(JSON.parse(r.stdout).base).toMatchObject({ ref: 'origin/main', commit: expected });
    expect(r.stderr).toContain('shallow checkout: fetching more history to find the merge-base: git fetch --no-tags --deepen=50');
    expect(r.stderr).toContain('--deepen=100');
  });

  it('with --no-fetch in a shallow checkout: exit 2, naming the exact git fetch to run', async () => {
    const dir = await prCheckout('pr-nofetch', 'refs/pull/1/merge');
    const r = await standup(dir, ['diff', '--cluster', 'dev', '--base', '--no-fetch'], { GITHUB_BASE_REF: 'main' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the base branch origin/main is not in this checkout');
    expect(r.stderr).toContain('git fetch --no-tags --depth=50 origin +refs/heads/main:refs/remotes/origin/main');
    // And once the branch is there, the missing history is named just as exactly.
    await git(dir, 'fetch', '-q', '--no-tags', '--depth=1', 'origin', '+refs/heads/main:refs/remotes/origin/main');
    const deeper = await standup(dir, ['diff', '--cluster', 'dev', '--base', '--no-fetch'], { GITHUB_BASE_REF: 'main' });
    expect(deeper.code).toBe(2);
    expect(deeper.stderr).toContain('this checkout is shallow and lacks the history down to the merge-base of origin/main and HEAD');
    expect(deeper.stderr).toContain('git fetch --no-tags --unshallow origin +refs/heads/main:refs/remotes/origin/main');
    expect(deeper.stderr).toContain('fetch-depth: 0');
  });

  it('without a remote or a main/master branch: exit 2, asking for --base', async () => {
    const dir = path.join(tmp, 'trunk');
    mkdirSync(dir);
    cpSync(path.join(PROJECT, 'examples/homelab'), dir, { recursive: true });
    await git(dir, 'init', '-q', '-b', 'trunk');
    await git(dir, 'add', '-A');
    await git(dir, 'commit', '-qm', 'x');
    const r = await standup(dir, ['diff', '--cluster', 'dev', '--base']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot tell the default branch');
    expect(r.stderr).toContain('--base main');
    expect((await standup(dir, ['diff', '--cluster', 'dev', '--base', 'trunk', '--exit-code'])).code).toBe(0);
  });

  it('--base with --from is exit 2', async () => {
    const r = await standup(path.join(tmp, 'full'), ['diff', '--base', '--from', 'HEAD~1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--base and --from both choose the older revision');
  });
});

describe('diff -o markdown', () => {
  it('a summary, the changes as a table, the prune warning and a Mermaid picture of the changed part', async () => {
    const r = await standup(path.join(tmp, 'full'), ['diff', '--cluster', 'dev', '--base', '-o', 'markdown']);
    expect(r.code).toBe(0);
    const md = r.stdout;
    expect(md).toMatch(/^### standup diff: `dev@[0-9a-f]{12}` → `dev@HEAD`$/m);
    expect(md).toContain('Compared with the merge-base of `origin/main` and `HEAD`');
    expect(md).toContain('**1 dependsOn added, 2 objects change Kustomization, 1 level changed; 2 fixed**');
    // The branch fixes the deadlock: check at both revisions says so; apps starts a level later.
    expect(md).toContain('| error | `runtime-crd` | `StorageProfile/longhorn-vm` |');
    expect(md).toContain('| ↕️ | level | `apps`: 3 → 4 (starts later) |');
    expect(md).toContain('| ➕ | dependsOn | `apps` depends on `headlamp` |');
    expect(md).toContain('#### Objects that change Kustomization (2)');
    expect(md).toContain('> [!WARNING]');
    expect(md).toContain('| `StorageProfile/longhorn` | `platform-config` | `platform-config-cdi` | **yes** | old owner always first: **will** delete |');
    expect(md).toContain('Safe procedure: first merge the move with prune: false on platform-config');
    const mermaid = /```mermaid\n([\s\S]*?)```/.exec(md)?.[1] ?? '';
    const id = (label: string) => new RegExp(`(n\\d+)\\["${label}"\\]`).exec(mermaid)?.[1];
    // apps now depends on headlamp: a thick arrow from headlamp to apps; the owners of the moved objects are marked.
    expect(mermaid).toContain(`${id('headlamp')} ==> ${id('apps')}`);
    expect(mermaid).toMatch(/\["platform-config-cdi"\]:::changed/);
    expect(mermaid).not.toContain('"flux-system"'); // the root sync is left out of pictures
  });

  it('no change: one line saying so', async () => {
    const r = await standup(path.join(tmp, 'full'), ['diff', '--cluster', 'dev', '--from', 'HEAD', '-o', 'markdown']);
    expect(r.stdout).toContain('No change in the Kustomization graph.');
    expect(r.stdout).not.toContain('```mermaid');
  });
});
