import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { Io } from '../../src/cli/io.js';
import { plainStyle } from '../../src/ui/style.js';
import { PROJECT } from './run.js';

// New-only gating as a team turns it on: main has a real error (the seeds' StorageProfile deadlock), a baseline
// written on main accepts it, and branches that add a cycle, fix the deadlock or only move lines are judged by what
// they change. A real git repository, the real kustomize.
let tmp: string;
let repo: string;

const git = async (...args: string[]) =>
  (await execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], { cwd: repo })).stdout.trim();

async function standup(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const io: Io = { out: (t) => void (stdout += t), err: (t) => void (stderr += t), style: plainStyle, errStyle: plainStyle, isTTY: false, env, cwd: repo };
  const code = await runCli(['--repo', repo, '--cluster', 'dev', ...args], io);
  return { code, stdout, stderr };
}
const json = async (args: string[]) => {
  const r = await standup([...args, '-o', 'json']);
  return { code: r.code, doc: JSON.parse(r.stdout), stderr: r.stderr };
};
const edit = (file: string, from: string | RegExp, to: string) => {
  const f = path.join(repo, file);
  const text = readFileSync(f, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`${file}: nothing replaced`);
  writeFileSync(f, next);
};

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'standup-check-gate-'));
  repo = path.join(tmp, 'repo');
  cpSync(path.join(PROJECT, 'examples/homelab'), repo, { recursive: true });
  // main: the StorageProfiles applied by platform-config itself, a runtime-crd deadlock (an error).
  cpSync(path.join(repo, 'platform-config-cdi/cdi-storageprofiles.yaml'), path.join(repo, 'platform-config/cdi-storageprofiles.yaml'));
  edit('platform-config/kustomization.yaml', /$/, '  - cdi-storageprofiles.yaml\n');
  writeFileSync(path.join(repo, 'platform-config-cdi/kustomization.yaml'), 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n');
  await git('init', '-q');
  await git('add', '-A');
  await git('commit', '-qm', 'main with a deadlock');
  // A branch that adds a dependsOn cycle away from the deadlock: headlamp after apps, and apps after headlamp.
  await git('checkout', '-qb', 'cycle');
  edit('clusters/base/headlamp.yaml', '    - name: oauth2-proxy\n', '    - name: oauth2-proxy\n    - name: apps\n');
  edit('clusters/base/apps.yaml', '    - name: oauth2-proxy\n', '    - name: oauth2-proxy\n    - name: headlamp\n');
  await git('commit', '-qam', 'apps and headlamp wait for each other');
  // A branch that only pushes the deadlocked objects down their file.
  await git('checkout', '-q', 'main');
  await git('checkout', '-qb', 'moved');
  edit('platform-config/cdi-storageprofiles.yaml', /^/, '# moved down\n# by a comment\n---\n');
  await git('commit', '-qam', 'comments');
  // A branch that fixes the deadlock.
  await git('checkout', '-q', 'main');
  await git('checkout', '-qb', 'fix');
  rmSync(path.join(repo, 'platform-config/cdi-storageprofiles.yaml'));
  edit('platform-config/kustomization.yaml', '  - cdi-storageprofiles.yaml\n', '');
  writeFileSync(path.join(repo, 'platform-config-cdi/kustomization.yaml'), 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - cdi-storageprofiles.yaml\n');
  await git('add', '-A');
  await git('commit', '-qm', 'fix');
  await git('checkout', '-q', 'main');
}, 120_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('check --baseline', () => {
  it('a baseline written on main makes check pass there, and fail on a branch that adds a cycle', async () => {
    expect((await standup(['check'])).code).toBe(2);
    const written = await standup(['check', '--baseline-write', '.standup-baseline.json']);
    expect(written.code).toBe(0);
    expect(written.stderr).toMatch(/wrote \.standup-baseline\.json: \d+ problem\(s\)/);
    const file = JSON.parse(readFileSync(path.join(repo, '.standup-baseline.json'), 'utf8'));
    expect(file.problems.map((p: { code: string }) => p.code)).toContain('runtime-crd');
    expect(JSON.stringify(file)).not.toMatch(/"line"/);

    const onMain = await standup(['check', '--baseline', '.standup-baseline.json']);
    expect(onMain.code).toBe(0);
    expect(onMain.stdout).toMatch(/only what is new since the baseline \.standup-baseline\.json: \d+ pre-existing problem\(s\) not shown \(2 error\(s\)\)/);
    expect(onMain.stdout).not.toContain('runtime-crd');

    await git('checkout', '-q', 'cycle');
    const onBranch = await json(['check', '--baseline', '.standup-baseline.json']);
    expect(onBranch.code).toBe(2);
    expect(onBranch.doc.problems.filter((p: { severity: string }) => p.severity === 'error').map((p: { code: string }) => p.code)).toEqual(['cycle']);
    expect(onBranch.doc.problems[0].target).toBe('flux-system/apps -> flux-system/headlamp -> flux-system/apps');
    expect(onBranch.doc.problems[0].fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(onBranch.doc.gate).toMatchObject({ mode: 'baseline', file: '.standup-baseline.json', preExistingErrors: 2, fixed: [] });
    await git('checkout', '-q', 'main');
  });

  it('a baseline entry that no longer matches is reported as fixed', async () => {
    await standup(['check', '--baseline-write', path.join(tmp, 'b.json')]);
    await git('checkout', '-q', 'fix');
    const r = await standup(['check', '--baseline', path.join(tmp, 'b.json')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/2 baseline entries that no longer match/);
    expect(r.stdout).toContain('  fixed  runtime-crd  StorageProfile/longhorn');
    await git('checkout', '-q', 'main');
  });

  it('a missing or foreign baseline file is exit 2, naming it', async () => {
    const none = await standup(['check', '--baseline', 'nope.json']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('cannot read --baseline nope.json: ENOENT');
    expect(none.stderr).toContain('--baseline-write');
    writeFileSync(path.join(tmp, 'other.json'), '{"version": 2}');
    const other = await standup(['check', '--baseline', path.join(tmp, 'other.json')]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('is not a standup baseline');
    const both = await standup(['check', '--baseline', 'x.json', '--base']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--base and --baseline each choose what check compares with');
  });
});

describe('check --base', () => {
  it('on a branch that adds a cycle: only the cycle, exit 2, with the count of what was there before', async () => {
    await git('checkout', '-q', 'cycle');
    const r = await json(['check', '--base', 'main']);
    expect(r.code).toBe(2);
    expect(r.doc.gate).toMatchObject({ mode: 'base', ref: 'main', commit: await git('rev-parse', 'main'), preExistingErrors: 2, fixed: [] });
    expect(r.doc.problems.filter((p: { severity: string }) => p.severity === 'error').map((p: { code: string }) => p.code)).toEqual(['cycle']);
    const text = await standup(['check', '--base', 'main']);
    expect(text.stdout).toMatch(/^only what is new since the merge-base of main and HEAD \([0-9a-f]{12}\): \d+ pre-existing problem\(s\) not shown \(2 error\(s\)\)$/m);
    expect(text.stdout).toContain('dependency cycle:');
    expect(text.stdout).not.toContain('runtime-crd');
    await git('checkout', '-q', 'main');
  });

  it('a branch that only moves the old error down its file adds nothing: exit 0', async () => {
    await git('checkout', '-q', 'moved');
    const r = await json(['check', '--base', 'main']);
    expect(r.code).toBe(0);
    expect(r.doc.problems.filter((p: { severity: string }) => p.severity !== 'info')).toEqual([]);
    expect(r.doc.gate.preExistingErrors).toBe(2);
    // Without the gate the error is still there, on its new line.
    expect((await standup(['check'])).code).toBe(2);
    await git('checkout', '-q', 'main');
  });

  it('a branch that fixes the error: exit 0, the fix named in text and Markdown', async () => {
    await git('checkout', '-q', 'fix');
    const r = await json(['check', '--base', 'main']);
    expect(r.code).toBe(0);
    expect(r.doc.gate.fixed.map((f: { code: string; object: string }) => `${f.code} ${f.object}`)).toEqual(['runtime-crd StorageProfile/longhorn', 'runtime-crd StorageProfile/longhorn-vm']);
    const md = await standup(['check', '--base', 'main', '-o', 'markdown']);
    expect(md.stdout).toContain('Only what is new since the merge-base of main and HEAD');
    expect(md.stdout).toContain('Fixed (2):');
    await git('checkout', '-q', 'main');
  });

  it('SARIF results carry the fingerprint check -o json gives', async () => {
    const sarif = JSON.parse((await standup(['check', '-o', 'sarif'])).stdout);
    const { doc } = await json(['check']);
    const fromSarif = sarif.runs[0].results.map((r: { partialFingerprints: Record<string, string> }) => r.partialFingerprints['standupFingerprint/v1']!.replace(/:\d+$/, ''));
    expect(fromSarif.sort()).toEqual(doc.problems.map((p: { fingerprint: string }) => p.fingerprint).sort());
  });
});

describe('diff --base: what a change breaks, fixes and moves', () => {
  it('a branch that adds a cycle: the dependsOn, the levels that move, and the cycle as a new error; --exit-code 1', async () => {
    await git('checkout', '-q', 'cycle');
    const r = await json(['diff', '--base', 'main']);
    expect(r.code).toBe(0);
    const [d] = r.doc.diffs;
    expect(d.edgesAdded).toEqual([{ from: 'flux-system/apps', to: 'flux-system/headlamp' }, { from: 'flux-system/headlamp', to: 'flux-system/apps' }]);
    expect(d.levelsChanged).toEqual([{ key: 'flux-system/apps', from: 3, to: null }, { key: 'flux-system/headlamp', from: 3, to: null }]);
    expect(d.problemsAdded.filter((p: { severity: string }) => p.severity === 'error').map((p: { code: string; target: string }) => `${p.code} ${p.target}`))
      .toEqual(['cycle flux-system/apps -> flux-system/headlamp -> flux-system/apps']);
    expect(d.problemsFixed).toEqual([]);
    const text = await standup(['diff', '--base', 'main']);
    expect(text.stdout).toContain('~ flux-system/apps level 3 -> cycle');
    expect(text.stdout).toMatch(/^\+ new error cycle clusters\/base\/apps\.yaml:\d+: dependency cycle: flux-system\/apps -> flux-system\/headlamp -> flux-system\/apps/m);
    const md = await standup(['diff', '--base', 'main', '-o', 'markdown']);
    expect(md.stdout).toMatch(/\*\*2 dependsOn added, 2 levels changed; \d+ new problems? \(1 error\)\*\*/);
    expect(md.stdout).toContain('| error | `cycle` |');
    expect(md.stdout).toContain('| ↕️ | level | `apps`: 3 → cycle |');
    expect((await standup(['diff', '--base', 'main', '--exit-code'])).code).toBe(1);
    await git('checkout', '-q', 'main');
  });

  it('a branch that changes no graph but fixes an error: the fix is named, and --exit-code stays 0', async () => {
    await git('checkout', '-q', 'fix');
    const r = await json(['diff', '--base', 'main']);
    const [d] = r.doc.diffs;
    expect(d.problemsAdded.filter((p: { severity: string }) => p.severity === 'error')).toEqual([]);
    expect(d.problemsFixed.map((p: { code: string; object: string }) => `${p.code} ${p.object}`)).toEqual(['runtime-crd StorageProfile/longhorn', 'runtime-crd StorageProfile/longhorn-vm']);
    const md = await standup(['diff', '--base', 'main', '-o', 'markdown']);
    expect(md.stdout).toContain('#### Fixed problems (2)');
    await git('checkout', '-q', 'main');
  });

  it('a level that moves later is said to start later', async () => {
    await git('checkout', '-q', '-b', 'later');
    // apps-vms (level 4) after apps (level 3): no change; headlamp (level 3) after apps: level 4, later.
    edit('clusters/base/headlamp.yaml', '    - name: oauth2-proxy\n', '    - name: oauth2-proxy\n    - name: apps\n');
    await git('commit', '-qam', 'headlamp after apps');
    const r = await standup(['diff', '--base', 'main']);
    expect(r.stdout).toContain('~ flux-system/headlamp level 3 -> 4 (starts later)');
    await git('checkout', '-q', 'main');
  });
});
