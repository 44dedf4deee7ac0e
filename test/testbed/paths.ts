import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestbedBinariesMissingError, TestbedError } from './errors.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const BINARIES = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'source-controller',
  'kustomize-controller',
] as const;
export type BinaryName = (typeof BINARIES)[number];

/** What a testbed with a node needs on top of BINARIES. */
export const NODE_BINARIES = ['kubelet', 'kube-scheduler', 'kube-proxy', 'helm-controller', 'testbed-pause', 'testbed-app', 'cdi-operator', 'coredns'] as const;
export type NodeBinaryName = (typeof NODE_BINARIES)[number];

// The cache keys (per Go module, and the combined one that names the bin dir) are computed by
// scripts/build-testbed.sh alone, which builds into them; the harness asks it where they are, so the two cannot
// disagree. Asking builds nothing (~0.3 s: it hashes the modules' files).
const BUILD_SCRIPT = path.join(repoRoot, 'scripts/build-testbed.sh');

function askBuildScript(flag: '--print-bin-dir' | '--print-keys'): string {
  try {
    return execFileSync('bash', [BUILD_SCRIPT, flag], { cwd: repoRoot, encoding: 'utf8' }).trim();
  } catch (e) {
    throw new TestbedError(`cannot ask scripts/build-testbed.sh ${flag} where the testbed binaries are: ${(e as Error).message}`);
  }
}

/** Each Go module's cache key (`<module> <key>` lines of `build-testbed.sh --print-keys`), in the script's order. */
export const moduleKeys = (): Record<string, string> =>
  Object.fromEntries(askBuildScript('--print-keys').split('\n').map((l) => l.split(' ') as [string, string]));

let binDir: string | undefined;

/** Where the binaries of this checkout's Go modules are (or would be): `<cache>/<combined key>/bin`. */
export function testbedBinDir(): string {
  binDir ??= askBuildScript('--print-bin-dir');
  return binDir;
}

export const testbedCacheDir = (): string => path.dirname(testbedBinDir());
/** The combined key: the hash of the module keys that names testbedCacheDir. */
export const testbedKey = (): string => path.basename(testbedCacheDir());
/** Flux CRD YAMLs copied from the controller modules at build time. */
export const testbedCrdDir = (): string => path.join(testbedCacheDir(), 'crds');

/** Paths of all binaries; throws TestbedBinariesMissingError naming what is not built. */
export function requireBinaries(binDir = testbedBinDir(), extra: readonly string[] = []): Record<BinaryName, string> & Record<string, string> {
  const missing: string[] = [...BINARIES, ...extra].filter((b) => !existsSync(path.join(binDir, b)));
  if (!existsSync(path.join(path.dirname(binDir), 'crds'))) missing.push('crds');
  if (missing.length) throw new TestbedBinariesMissingError(binDir, missing);
  return Object.fromEntries([...BINARIES, ...extra].map((b) => [b, path.join(binDir, b)])) as Record<BinaryName, string> & Record<string, string>;
}
