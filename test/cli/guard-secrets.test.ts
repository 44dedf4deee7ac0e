// Secrets are decrypted only for the cluster they are for: `up` against a context other than the one tiers.yaml
// pins is refused (exit 4) before sops runs, and a sops that is not installed is said plainly.
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from './run.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'standup-guard-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const kubeconfig = path.join(dir, 'kubeconfig');
// Two contexts at a port nobody listens on: nothing here may reach a cluster.
writeFileSync(kubeconfig, [
  'apiVersion: v1', 'kind: Config',
  'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]',
  'users: [{name: u, user: {token: t}}]',
  'contexts: [{name: standup-testbed, context: {cluster: c, user: u}}, {name: other, context: {cluster: c, user: u}}]',
  'current-context: standup-testbed', '',
].join('\n'));
const marker = path.join(dir, 'sops-ran');
const bin = path.join(dir, 'bin');
const up = (...args: string[]) => cli('up', '--repo', 'examples/homelab', '--cluster', 'dev', '--kubeconfig', kubeconfig, ...args);

describe('bootstrap secrets and the context guard', () => {
  const savedPath = process.env.PATH;
  beforeEach(() => {
    rmSync(marker, { force: true });
    rmSync(bin, { recursive: true, force: true });
  });
  afterEach(() => void (process.env.PATH = savedPath));
  const fakeSops = () => {
    writeFileSync(path.join(dir, 'sops'), `#!/bin/sh\ntouch ${marker}\necho "no key" >&2\nexit 3\n`);
    chmodSync(path.join(dir, 'sops'), 0o755);
    process.env.PATH = `${dir}:${savedPath}`;
  };

  it('refuses another context with exit 4 before sops is run', async () => {
    fakeSops();
    const r = await up('--context', 'other');
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('refusing to act: the current kube context is "other"');
    expect(existsSync(marker)).toBe(false);
  });

  it('runs sops for the pinned context (and says its error)', async () => {
    fakeSops();
    const r = await up();
    expect(existsSync(marker)).toBe(true);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('sops -d bootstrap/cluster-secrets.sops.yaml failed (exit 3): no key');
  });

  it('says that sops is not installed, naming the secret', async () => {
    // A PATH with what rendering needs and no sops.
    mkdirSync(bin);
    for (const tool of ['kubectl', 'kustomize', 'git']) {
      const found = (savedPath ?? '').split(path.delimiter).map((d) => path.join(d, tool)).find((f) => existsSync(f));
      if (found) symlinkSync(found, path.join(bin, tool));
    }
    process.env.PATH = bin;
    const r = await up();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('secret flux-system/cluster-secrets is SOPS-encrypted (bootstrap/cluster-secrets.sops.yaml), and sops is not on PATH');
  });

  it('a graph that cannot converge is refused (exit 2, the cycle named) before sops runs or the cluster is asked', async () => {
    fakeSops();
    const repo = path.join(dir, 'cyclic');
    cpSync(path.resolve(import.meta.dirname, '../../examples/homelab'), repo, { recursive: true });
    appendFileSync(path.join(repo, 'clusters/base/crds.yaml'), '  dependsOn:\n    - name: platform\n');
    const r = await cli('up', '--repo', repo, '--cluster', 'dev', '--kubeconfig', kubeconfig);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/error cycle/);
    expect(r.stderr).not.toMatch(/sops|cannot reach/);
    expect(existsSync(marker)).toBe(false);
  });
});
