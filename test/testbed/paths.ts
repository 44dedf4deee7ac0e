import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

/** What a testbed with a node needs on top of BINARIES. */
export const NODE_BINARIES = ['kubelet', 'kube-scheduler', 'kube-proxy', 'helm-controller', 'testbed-pause', 'testbed-app', 'cdi-operator', 'coredns'] as const;
export type NodeBinaryName = (typeof NODE_BINARIES)[number];

// Same modules, order and format as in scripts/build-testbed.sh: the two must agree byte for byte, or the harness
// looks in a directory the script never fills.
export const MODULES = ['etcd', 'k8s', 'flux-source', 'flux-kustomize', 'flux-helm', 'apps', 'coredns', 'sops'] as const;

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** go.mod, go.sum and *.go files of a module, as `<module>/<path>`, sorted bytewise (the script's `LC_ALL=C sort`). */
function moduleFiles(mod: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(goModulesDir, rel), { withFileTypes: true })) {
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(r);
      else if (e.isFile() && (e.name === 'go.mod' || e.name === 'go.sum' || e.name.endsWith('.go'))) out.push(r);
    }
  };
  walk(mod);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

let goVersion: string | undefined;
function goVersionLine(): string {
  if (goVersion !== undefined) return goVersion;
  // GOTOOLCHAIN=local as in the build script, so `go version` never switches toolchains.
  try {
    goVersion = execFileSync('go', ['version'], { cwd: repoRoot, env: { ...process.env, GOTOOLCHAIN: 'local' }, encoding: 'utf8' });
  } catch (e) {
    throw new TestbedError(`cannot run \`go version\` (needed to find the testbed binaries): ${(e as Error).message}`);
  }
  if (!goVersion.endsWith('\n')) goVersion += '\n';
  return goVersion;
}

const moduleKeys = new Map<string, string>();

/** The cache key of one Go module: its binaries are rebuilt only when this changes. */
export function moduleKey(mod: (typeof MODULES)[number]): string {
  let k = moduleKeys.get(mod);
  if (!k) {
    let text = goVersionLine();
    for (const f of moduleFiles(mod)) text += `${f} ${sha256(readFileSync(path.join(goModulesDir, f)))}\n`;
    k = sha256(text).slice(0, 16);
    moduleKeys.set(mod, k);
  }
  return k;
}

let cachedKey: string | undefined;

/** Hash of the module keys; names the directory whose bin/ links every binary of this checkout. */
export function testbedKey(): string {
  cachedKey ??= sha256(MODULES.map((m) => `${m} ${moduleKey(m)}\n`).join('')).slice(0, 16);
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
export function requireBinaries(binDir = testbedBinDir(), extra: readonly string[] = []): Record<BinaryName, string> & Record<string, string> {
  const missing: string[] = [...BINARIES, ...extra].filter((b) => !existsSync(path.join(binDir, b)));
  if (!existsSync(path.join(path.dirname(binDir), 'crds'))) missing.push('crds');
  if (missing.length) throw new TestbedBinariesMissingError(binDir, missing);
  return Object.fromEntries([...BINARIES, ...extra].map((b) => [b, path.join(binDir, b)])) as Record<BinaryName, string> & Record<string, string>;
}
