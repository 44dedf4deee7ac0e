// The build script computes the cache keys and the harness asks it for them, so they agree by construction; these
// check that the answer is read right, and that the keys change only where a module changed.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleKeys, repoRoot, testbedBinDir, testbedCacheDir, testbedKey } from './paths.js';

const script = (root: string, flag: string) =>
  execFileSync('bash', [path.join(root, 'scripts/build-testbed.sh'), flag], { encoding: 'utf8' }).trim();
const keysOf = (root: string) => Object.fromEntries(script(root, '--print-keys').split('\n').map((l) => l.split(' ')));

describe('testbed cache keys', () => {
  it('are scripts/build-testbed.sh\'s, per module and combined', () => {
    expect(script(repoRoot, '--print-bin-dir')).toBe(testbedBinDir());
    expect(testbedBinDir()).toBe(path.join(testbedCacheDir(), 'bin'));
    expect(testbedKey()).toMatch(/^[0-9a-f]{16}$/);
    expect(Object.keys(moduleKeys())).toEqual(['etcd', 'k8s', 'flux-source', 'flux-kustomize', 'flux-helm', 'apps', 'coredns', 'sops', 'flux-operator']);
    expect(moduleKeys()).toEqual(keysOf(repoRoot));
    for (const k of Object.values(moduleKeys())) expect(k).toMatch(/^[0-9a-f]{16}$/);
  });

  it('change for the edited module only, so one module edit rebuilds only its binaries', () => {
    // A copy of the script and the modules, so the edit never touches the checkout.
    const copy = mkdtempSync(path.join(tmpdir(), 'standup-key-'));
    try {
      mkdirSync(path.join(copy, 'scripts'));
      cpSync(path.join(repoRoot, 'scripts/build-testbed.sh'), path.join(copy, 'scripts/build-testbed.sh'));
      cpSync(path.join(repoRoot, 'test/testbed/go'), path.join(copy, 'test/testbed/go'), { recursive: true });
      const before = keysOf(copy);
      writeFileSync(path.join(copy, 'test/testbed/go/apps/testbed-app/extra.go'), 'package main\n');
      const after = keysOf(copy);
      expect(after.apps).not.toBe(before.apps);
      expect({ ...after, apps: '' }).toEqual({ ...before, apps: '' });
      expect(script(copy, '--print-bin-dir')).not.toBe(testbedBinDir());
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
