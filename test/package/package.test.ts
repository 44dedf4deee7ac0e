import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installOffline, pack, PROJECT, type Packed } from './pack.js';

// The package as a user gets it: packed as `npm publish` would, installed from the tarball into an empty directory
// with production dependencies only and without the network, then run. No TypeScript loader may be involved.
let packed: Packed;
let installed: Awaited<ReturnType<typeof installOffline>>;
const lock = JSON.parse(readFileSync(path.join(PROJECT, 'package-lock.json'), 'utf8')) as Packed['shrinkwrap'];
const project = JSON.parse(readFileSync(path.join(PROJECT, 'package.json'), 'utf8')) as Record<string, unknown> & Packed['manifest'];

beforeAll(async () => {
  packed = await pack();
  installed = await installOffline(packed);
}, 240_000);

afterAll(() => {
  if (packed) rmSync(packed.dir, { recursive: true, force: true });
});

const run = (args: string[], env: Record<string, string> = {}) =>
  execa(installed.bin, args, { cwd: installed.dir, reject: false, env: { NO_COLOR: '1', CI: 'true', ...env }, extendEnv: true });

/** semver as npm itself resolves engines (npm bundles it; the project does not depend on it). */
function npmSemver(): { subset(a: string, b: string): boolean } {
  const root = process.env.npm_execpath ? path.resolve(process.env.npm_execpath, '../..') : path.join(execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim(), 'npm');
  return createRequire(path.join(root, 'package.json'))('semver') as { subset(a: string, b: string): boolean };
}

describe('the tarball', () => {
  it('holds exactly what runs: bin, the compiled dist/, the schema, README, LICENSE, package.json, the shrinkwrap', () => {
    const allowed = /^(bin\/standup\.js|dist\/[\w/-]+\.js|schema\/[\w.-]+\.json|package\.json|README\.md|LICENSE|npm-shrinkwrap\.json)$/;
    expect(packed.files.filter((f) => !allowed.test(f))).toEqual([]);
    expect(packed.files).toEqual(expect.arrayContaining(['bin/standup.js', 'dist/cli/main.js', 'LICENSE', 'README.md', 'npm-shrinkwrap.json']));
    expect(packed.files.some((f) => f.startsWith('test/') || f.startsWith('src/') || f.endsWith('.map'))).toBe(false);
  });

  it('is a public scoped package, not private, with the Apache-2.0 licence text beside the licence field', () => {
    expect(packed.manifest.name).toMatch(/^@[a-z0-9-]+\/standup$/);
    expect(project.private).toBeUndefined();
    expect(project.publishConfig).toMatchObject({ access: 'public' });
    expect(packed.manifest.license).toBe('Apache-2.0');
    const license = readFileSync(path.join(PROJECT, 'LICENSE'), 'utf8');
    expect(license).toContain('Apache License\n                           Version 2.0, January 2004');
    expect(license).toContain('END OF TERMS AND CONDITIONS');
  });

  it('runs nothing through a TypeScript loader: tsx is a dev dependency and the bin only imports dist/', () => {
    expect(Object.keys(packed.manifest.dependencies)).not.toContain('tsx');
    expect(Object.keys(project.devDependencies as object)).toContain('tsx');
    const bin = readFileSync(path.join(PROJECT, 'bin/standup.js'), 'utf8');
    expect(bin).not.toMatch(/tsx|register\(/);
  });

  it('ships the lockfile\'s production tree as its shrinkwrap, and no dev package', () => {
    const prod = Object.entries(lock.packages).filter(([k, v]) => k !== '' && !v.dev).map(([k, v]) => [k, v.version]);
    const shipped = Object.entries(packed.shrinkwrap.packages).filter(([k]) => k !== '').map(([k, v]) => [k, v.version]);
    expect(shipped).toEqual(prod);
    for (const dev of ['tsx', 'typescript', 'vitest', 'esbuild']) expect(packed.shrinkwrap.packages[`node_modules/${dev}`]).toBeUndefined();
  });

  it('keeps engines truthful: every production dependency runs on the oldest Node the package claims', () => {
    const semver = npmSemver();
    const floor = packed.manifest.engines.node;
    const stricter = Object.entries(packed.shrinkwrap.packages)
      .filter(([, v]) => v.engines?.node && !semver.subset(floor, v.engines.node))
      .map(([k, v]) => `${k} wants node ${v.engines!.node}`);
    expect(stricter).toEqual([]);
  });

  it('leaves the working tree as it was (the shrinkwrap exists only while packing)', () => {
    expect(existsSync(path.join(PROJECT, 'npm-shrinkwrap.json'))).toBe(false);
  });
});

describe('installed from the tarball, production dependencies only', () => {
  it('has no dev dependency in its tree', () => {
    for (const dev of ['tsx', 'typescript', 'vitest', 'esbuild']) {
      expect(existsSync(path.join(installed.packageDir, 'node_modules', dev))).toBe(false);
      expect(existsSync(path.join(installed.dir, 'node_modules', dev))).toBe(false);
    }
  });

  it('standup --version prints the version in package.json', async () => {
    const r = await run(['--version']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe(project.version);
    expect(r.stderr).toBe('');
  });

  it('standup plan on a fixture repository prints its TIER_ORDER', async () => {
    const repo = path.join(PROJECT, 'test/fixtures/lint/clean');
    const text = await run(['plan', '--repo', repo, '--cluster', 'dev']);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain('TIER_ORDER=(crds config apps)');
    const json = await run(['plan', '--repo', repo, '-o', 'json']);
    const plan = JSON.parse(json.stdout) as { clusters: { name: string; tiers: string[] }[] };
    expect(plan.clusters.map((c) => [c.name, c.tiers])).toEqual([
      ['dev', ['flux-system/crds', 'flux-system/config', 'flux-system/apps']],
      ['prod', ['flux-system/crds', 'flux-system/config', 'flux-system/apps']],
    ]);
  });

  it('a bad flag is exit 2 with the message on stderr, as from the source', async () => {
    const r = await run(['plan', '-o', 'svg', '--repo', path.join(PROJECT, 'test/fixtures/lint/clean')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('unknown output format "svg"');
  });
});
