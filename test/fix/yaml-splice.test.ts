import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendItem, removeItems, setScalar, UnsafeEdit } from '../../src/fix/yaml-splice.js';
import { unifiedDiff } from '../../src/fix/unified-diff.js';

const KS = `# the platform tier
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps   # the apps
spec:
  interval: 10m
  dependsOn:
  - name: infra  # first
  prune: true
`;

describe('yaml-splice: edits that keep everything else byte for byte', () => {
  it('appends to a block list in its own indentation, keeping comments', () => {
    expect(appendItem(KS, ['spec', 'dependsOn'], 'name: db', { name: 'db' })).toBe(KS.replace('  - name: infra  # first\n', '  - name: infra  # first\n  - name: db\n'));
  });

  it('appends to a flow list as a flow item', () => {
    const flow = KS.replace('  dependsOn:\n  - name: infra  # first\n', '  dependsOn: [{name: infra}]\n');
    expect(appendItem(flow, ['spec', 'dependsOn'], 'name: db\nnamespace: data', { name: 'db', namespace: 'data' })).toContain('dependsOn: [{name: infra}, {name: db, namespace: data}]');
  });

  it('creates a missing list under its map, after the last key', () => {
    const none = KS.replace('  dependsOn:\n  - name: infra  # first\n', '');
    expect(appendItem(none, ['spec', 'dependsOn'], 'name: db', { name: 'db' })).toBe(`${none}  dependsOn:\n    - name: db\n`);
  });

  it('sets or adds a scalar', () => {
    expect(setScalar(KS, ['spec', 'prune'], 'false', false)).toBe(KS.replace('prune: true', 'prune: false'));
    expect(setScalar(KS, ['spec', 'wait'], 'true', true)).toBe(`${KS}  wait: true\n`);
  });

  it('removes list items with their lines; the last one leaves an empty list', () => {
    const k = 'resources:\n  - a.yaml  # keep\n  - b.yaml\n  - c.yaml\n';
    expect(removeItems(k, ['resources'], (x) => x === 'b.yaml')).toBe('resources:\n  - a.yaml  # keep\n  - c.yaml\n');
    expect(removeItems('resources:\n  - b.yaml\n', ['resources'], (x) => x === 'b.yaml')).toBe('resources: []\n');
  });

  it('refuses what it cannot do safely: an anchored value, a flow list to shrink', () => {
    expect(() => setScalar('a: &x 1\nb: *x\n', ['a'], '2', 2)).toThrow(UnsafeEdit);
    expect(() => removeItems('resources: [a.yaml, b.yaml]\n', ['resources'], (x) => x === 'a.yaml')).toThrow(UnsafeEdit);
  });
});

describe('unifiedDiff', () => {
  it('is the patch git applies (changed, created, deleted files)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'standup-diff-test-'));
    try {
      const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n') + '\n';
      const after = before.replace('line 3\n', 'line three\n').replace('line 15\n', '').replace('line 19\n', 'line 19\nline 20\n');
      writeFileSync(path.join(dir, 'a.txt'), before);
      writeFileSync(path.join(dir, 'gone.txt'), 'bye\n');
      const patch = unifiedDiff('a.txt', before, after) + unifiedDiff('new/b.txt', null, 'hi\n') + unifiedDiff('gone.txt', 'bye\n', null);
      expect(patch.match(/^@@/gm)).toHaveLength(4);
      writeFileSync(path.join(dir, 'p.patch'), patch);
      execFileSync('git', ['apply', 'p.patch'], { cwd: dir, stdio: 'pipe' });
      expect(execFileSync('cat', ['a.txt', 'new/b.txt'], { cwd: dir, encoding: 'utf8' })).toBe(`${after}hi\n`);
      expect(() => execFileSync('cat', ['gone.txt'], { cwd: dir, stdio: 'pipe' })).toThrow();
      expect(unifiedDiff('a.txt', before, before)).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
