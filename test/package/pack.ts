import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';

export const PROJECT = path.resolve(import.meta.dirname, '../..');

export interface Packed {
  dir: string;
  tarball: string;
  files: string[];
  manifest: { name: string; version: string; bin: Record<string, string>; dependencies: Record<string, string>; engines: { node: string }; license: string };
  shrinkwrap: { packages: Record<string, { version?: string; dev?: boolean; engines?: { node?: string } }> };
}

/**
 * `npm pack` of the project, as `npm publish` would make it: prepack writes npm-shrinkwrap.json, prepare compiles
 * src/ to dist/ (so the tarball holds the current source), postpack removes the shrinkwrap again.
 */
export async function pack(): Promise<Packed> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'standup-pack-'));
  const r = await execa('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PROJECT, env: { npm_config_loglevel: 'error' } });
  // Lifecycle banners may precede the JSON on stdout.
  const [info] = JSON.parse(r.stdout.slice(r.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  const tarball = path.join(dir, info!.filename);
  const read = (file: string) => execFileSync('tar', ['-xzOf', tarball, `package/${file}`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { dir, tarball, files: info!.files.map((f) => f.path).sort(), manifest: JSON.parse(read('package.json')), shrinkwrap: JSON.parse(read('npm-shrinkwrap.json')) };
}

/**
 * Installs the tarball into an empty directory with production dependencies only, offline. npm honours the
 * shrinkwrap of a package it gets from the registry but not of a local tarball, so this writes the lockfile npm
 * derives from a published one: the package at node_modules/<name>, its shrinkwrapped tree nested under it. `npm ci
 * --offline` then takes every tarball from npm's cache, which `npm ci` in the project filled (npm_config_cache, if
 * set, is honoured); a dependency missing from that cache fails with ENOTCACHED instead of reaching the network.
 */
export async function installOffline(p: Packed): Promise<{ dir: string; bin: string; packageDir: string }> {
  const dir = path.join(p.dir, 'install');
  mkdirSync(dir, { recursive: true });
  const name = p.manifest.name;
  const at = `node_modules/${name}`;
  const resolved = `file:${path.relative(dir, p.tarball)}`;
  const integrity = `sha512-${createHash('sha512').update(readFileSync(p.tarball)).digest('base64')}`;
  const packages: Record<string, unknown> = {
    '': { name: 'standup-install-test', dependencies: { [name]: resolved } },
    [at]: { version: p.manifest.version, resolved, integrity, license: p.manifest.license, dependencies: p.manifest.dependencies, bin: p.manifest.bin, engines: p.manifest.engines },
  };
  for (const [location, entry] of Object.entries(p.shrinkwrap.packages)) if (location !== '') packages[`${at}/${location}`] = entry;
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'standup-install-test', private: true, dependencies: { [name]: resolved } }, null, 2));
  writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify({ name: 'standup-install-test', lockfileVersion: 3, requires: true, packages }, null, 2));
  await execa('npm', ['ci', '--omit=dev', '--offline', '--engine-strict', '--no-audit', '--no-fund'], { cwd: dir, env: { npm_config_loglevel: 'error' } });
  return { dir, bin: path.join(dir, 'node_modules/.bin/standup'), packageDir: path.join(dir, at) };
}
