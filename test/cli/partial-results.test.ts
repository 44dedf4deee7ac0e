import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { Io } from '../../src/cli/io.js';
import { plainStyle } from '../../src/ui/style.js';
import { PROJECT } from './run.js';

// One cluster that cannot be ordered hides no other: the example with dev's entry broken (a YAML error in its
// kustomization.yaml, so its build fails) and, in a second copy, a dependsOn cycle in prod only.
let tmp: string;
let broken: string;
let cyclic: string;

async function standup(repo: string, args: string[]) {
  let stdout = '';
  let stderr = '';
  const io: Io = { out: (t) => void (stdout += t), err: (t) => void (stderr += t), style: plainStyle, errStyle: plainStyle, isTTY: false, env: {}, cwd: repo };
  const code = await runCli(['--repo', repo, ...args], io);
  return { code, stdout, stderr };
}

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'standup-partial-'));
  broken = path.join(tmp, 'broken');
  cpSync(path.join(PROJECT, 'examples/homelab'), broken, { recursive: true });
  writeFileSync(path.join(broken, 'clusters/dev/kustomization.yaml'), 'resources:\n  - ../base\n  [\n');
  cyclic = path.join(tmp, 'cyclic');
  cpSync(path.join(PROJECT, 'examples/homelab'), cyclic, { recursive: true });
  // prod only: its overlay makes crds wait for apps, which waits (through platform) for crds.
  const prod = path.join(cyclic, 'clusters/prod/kustomization.yaml');
  writeFileSync(prod, readFileSync(prod, 'utf8') + [
    'patches:',
    '  - target: {kind: Kustomization, name: crds}',
    '    patch: |',
    '      - op: add',
    '        path: /spec/dependsOn',
    '        value: [{name: apps}]',
    '',
  ].join('\n'));
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('plan with a cluster that cannot be ordered', () => {
  it('an entry that does not build: the other cluster is printed, this one marked, exit 2 naming --cluster', async () => {
    const r = await standup(broken, ['plan']);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^Cluster prod \(clusters\/prod: 9 Kustomizations/m);
    expect(r.stdout).toContain('TIER_ORDER=(crds platform');
    expect(r.stdout).toMatch(/^Cluster dev \(clusters\/dev\): cannot be ordered, no TIER_ORDER\n  error build-failed  clusters\/dev  /m);
    expect(r.stderr).toContain('✗ dev cannot be ordered until these are fixed; the other cluster is printed above. To leave it out: --cluster prod');
    expect((await standup(broken, ['plan', '--cluster', 'prod'])).code).toBe(0);
  });

  it('-o json: the orderable clusters in clusters, the others in unordered with their problems', async () => {
    const r = await standup(broken, ['plan', '-o', 'json']);
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.stdout);
    expect(doc.clusters.map((c: { name: string }) => c.name)).toEqual(['prod']);
    expect(doc.unordered).toMatchObject([{ name: 'dev', entry: 'clusters/dev', problems: [{ code: 'build-failed', cluster: 'dev', file: 'clusters/dev' }] }]);
  });

  it('-o markdown: the plan, then a caution for the cluster without one', async () => {
    const r = await standup(broken, ['plan', '-o', 'markdown']);
    expect(r.stdout).toContain('### standup plan: cluster `prod`');
    expect(r.stdout).toContain('### standup: cluster `dev` cannot be ordered');
    expect(r.stdout).toContain('> [!CAUTION]');
  });

  it('a dependsOn cycle in one cluster: the other is printed, the cycle named', async () => {
    const r = await standup(cyclic, ['plan']);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^Cluster dev \(clusters\/dev: 9 Kustomizations, 5 levels\)/m);
    expect(r.stdout).toMatch(/^Cluster prod \(clusters\/prod\): cannot be ordered, no TIER_ORDER\n  error cycle  /m);
    expect(r.stderr).toContain('To leave it out: --cluster dev');
  });
});

describe('graph and diff with a cluster that cannot be ordered', () => {
  it('graph: the tree of the other cluster, this one marked; Mermaid says so in a comment', async () => {
    const r = await standup(broken, ['graph']);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^prod \(clusters\/prod\)\n├── \[0\] crds/m);
    expect(r.stdout).toContain('Cluster dev (clusters/dev): cannot be ordered');
    const mermaid = await standup(broken, ['graph', '-o', 'mermaid']);
    expect(mermaid.code).toBe(2);
    expect(mermaid.stdout).toContain('  %% cluster dev cannot be ordered: build-failed (standup check)');
    const json = JSON.parse((await standup(broken, ['graph', '-o', 'json'])).stdout);
    expect(json.clusters.map((c: { name: string }) => c.name)).toEqual(['prod']);
    expect(json.unordered.map((c: { name: string }) => c.name)).toEqual(['dev']);
  });

  it('diff of two clusters, one without a graph: marked, exit 2', async () => {
    const r = await standup(broken, ['diff', '--cluster', 'dev', '--cluster', 'prod']);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Cluster dev (clusters/dev): cannot be ordered');
    expect(r.stderr).toContain('--cluster prod');
  });
});
