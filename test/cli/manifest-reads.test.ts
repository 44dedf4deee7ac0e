// The bootstrap files a run reads ahead, while the repository loads: read once, each caller with objects of its own,
// and an error raised only where the result is used.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManifestReads } from '../../src/cli/manifest-reads.js';
import { ParseMemo } from '../../src/cache/parse-memo.js';
import type { StandupConfig } from '../../src/model/config.js';
import { ConfigError } from '../../src/model/errors.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function repo(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'standup-manifest-reads-'));
  dirs.push(root);
  mkdirSync(path.join(root, 'clusters/dev/flux-system'), { recursive: true });
  writeFileSync(path.join(root, 'clusters/dev/flux-system/gotk-sync.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sync, namespace: flux-system}\n');
  writeFileSync(path.join(root, 'install.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata: {name: flux-system}\n');
  return root;
}

const config = (bootstrap: object, crds: string[] = []) => ({ clusters: { dev: { path: 'clusters/dev', crds: [], bootstrap } }, crds }) as unknown as StandupConfig;

describe('ManifestReads', () => {
  it('reads ahead what the entry names, and a later read is that read (a change on disk after it is not seen)', async () => {
    const root = repo();
    const reads = new ManifestReads(root, new ParseMemo(null));
    reads.readAhead(config({ install: { path: 'install.yaml' }, sync: 'clusters/dev/flux-system' }), 'dev', false);
    await new Promise((r) => setImmediate(r));
    writeFileSync(path.join(root, 'install.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata: {name: changed}\n');
    writeFileSync(path.join(root, 'clusters/dev/flux-system/gotk-sync.yaml'), 'not: [valid');
    expect((await reads.read('install.yaml')).map((o) => o.metadata.name)).toEqual(['flux-system']);
    expect((await reads.read('clusters/dev/flux-system')).map((o) => o.metadata.name)).toEqual(['sync']);
  });

  it('gives each caller objects of its own', async () => {
    const reads = new ManifestReads(repo(), new ParseMemo(null));
    const a = await reads.read('install.yaml');
    a[0]!.metadata.name = 'mutated';
    const b = await reads.read('install.yaml');
    expect(b[0]!.metadata.name).toBe('flux-system');
    expect(b).not.toBe(a);
  });

  it('raises a read\'s error where it is used, not where it was started; one never used is no unhandled rejection', async () => {
    const reads = new ManifestReads(repo(), new ParseMemo(null));
    reads.readAhead(config({ sync: 'clusters/dev/missing' }, ['crds/missing.yaml']), 'dev', true);
    await new Promise((r) => setTimeout(r, 20));
    const e = await reads.read('clusters/dev/missing').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).code).toBe('MANIFESTS_MISSING');
    expect((e as ConfigError).message).toBe('clusters/dev/missing does not exist');
  });

  it('does not read a chart ahead (helm renders it when the run needs it)', async () => {
    const root = repo();
    writeFileSync(path.join(root, 'operator.yaml'), 'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: flux-operator, namespace: flux-system}\nspec: {chart: {spec: {chart: flux-operator}}}\n');
    const reads = new ManifestReads(root, new ParseMemo(null));
    reads.readAhead(config({ install: { operator: 'operator.yaml', instance: 'install.yaml' } }), 'dev', false);
    expect(reads.chartForm('operator.yaml')?.kind).toBe('helmrelease');
    expect([...(reads as unknown as { reads: Map<string, unknown> }).reads.keys()]).toEqual(['install.yaml']);
  });
});
