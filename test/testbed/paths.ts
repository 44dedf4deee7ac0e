import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestbedBinariesMissingError, TestbedError } from './errors.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const goModulesDir = path.join(repoRoot, 'test/testbed/go');

export const BINARIES = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'source-controller',
  'kustomize-controller',
] as const;
export type BinaryName = (typeof BINARIES)[number];

// Same order and format as key_files in scripts/build-testbed.sh: the two
// must agree byte for byte, or the harness looks in the wrong directory.
const KEY_FILES = [
  'etcd/go.mod',
  'etcd/go.sum',
  'flux-kustomize/go.mod',
  'flux-kustomize/go.sum',
  'flux-source/go.mod',
  'flux-source/go.sum',
  'k8s/go.mod',
  'k8s/go.sum',
];

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

let cachedKey: string | undefined;

/** Hash of the Go modules and `go version`; names the cache directory. */
export function testbedKey(): string {
  if (cachedKey) return cachedKey;
  // GOTOOLCHAIN=local as in the build script, so `go version` never switches toolchains.
  let goVersion: string;
  try {
    goVersion = execFileSync('go', ['version'], {
      cwd: repoRoot,
      env: { ...process.env, GOTOOLCHAIN: 'local' },
      encoding: 'utf8',
    });
  } catch (e) {
    throw new TestbedError(`cannot run \`go version\` (needed to find the testbed binaries): ${(e as Error).message}`);
  }
  let text = goVersion.endsWith('\n') ? goVersion : `${goVersion}\n`;
  for (const f of KEY_FILES) text += `${f} ${sha256(readFileSync(path.join(goModulesDir, f)))}\n`;
  cachedKey = sha256(text).slice(0, 16);
  return cachedKey;
}

export function testbedCacheRoot(): string {
  return process.env.STANDUP_TESTBED_CACHE || path.join(homedir(), '.cache/standup-testbed');
}

export const testbedCacheDir = (): string => path.join(testbedCacheRoot(), testbedKey());
export const testbedBinDir = (): string => path.join(testbedCacheDir(), 'bin');
/** Flux CRD YAMLs copied from the controller modules at build time. */
export const testbedCrdDir = (): string => path.join(testbedCacheDir(), 'crds');

/** Paths of all binaries; throws TestbedBinariesMissingError naming what is not built. */
export function requireBinaries(binDir = testbedBinDir()): Record<BinaryName, string> {
  const missing = BINARIES.filter((b) => !existsSync(path.join(binDir, b)));
  if (!existsSync(path.join(path.dirname(binDir), 'crds'))) missing.push('crds' as BinaryName);
  if (missing.length) throw new TestbedBinariesMissingError(binDir, missing);
  return Object.fromEntries(BINARIES.map((b) => [b, path.join(binDir, b)])) as Record<BinaryName, string>;
}
