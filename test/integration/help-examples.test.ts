import { execa } from 'execa';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type TestbedClient } from '../testbed/harness.js';
import { PROJECT, standup } from './cli.js';
import { kube, until } from './kube.js';
import { serveRepo } from './serve.js';

// Issue 11 item 14: every example in the help of the commands that talk to a cluster runs as written from the
// project root, with KUBECONFIG pointing at the testbed (whose context is the one tiers.yaml pins for dev).
// The one liberty: an example that would point the cluster's source somewhere this machine does not serve (git's own
// https://git.home.example/..., or the help's mirror on 127.0.0.1:8080) gets --dry-run, so no packet leaves the
// machine and the cluster the later examples read stays as it was; every other example runs exactly as printed.

let tb: TestbedClient;
let bin: string;

const examplesOf = async (cmd: string): Promise<string[]> => {
  const help = (await standup([cmd, '--help'])).stdout;
  return help.split('Examples:\n')[1]!.split('\n\n')[0]!.split('\n').filter((l) => l.startsWith('  standup ')).map((l) => l.trim().split(/\s{2,}/)[0]!);
};

/** Would it write the root sync with a URL the testbed does not serve (up, or reset --up, not as a dry run)? */
const fetchesGit = (ex: string) => /^standup (up|reset .*--up)\b/.test(ex) && !ex.includes('--dry-run');

function runExample(ex: string, timeoutMs = 120_000) {
  const line = fetchesGit(ex) ? `${ex} --dry-run` : ex;
  return execa('sh', ['-c', line], { cwd: PROJECT, reject: false, timeout: timeoutMs, env: { PATH: `${bin}:${process.env.PATH}`, KUBECONFIG: tb.kubeconfigPath, CI: 'true', NO_COLOR: '1' } });
}

/**
 * A `--watch` example runs until stopped. It is stopped (SIGTERM, to standup itself: exec) as soon as its stdout holds
 * the table's header, or after WATCH_CAP_MS without it. The cap is not the time the table is expected in (a second or
 * two on a quiet machine): it covers tsx compiling the CLI beside another shard's testbed and a loaded machine.
 */
const WATCH_CAP_MS = 90_000;
async function watchUntilTable(ex: string): Promise<{ drawn: boolean; exitCode: number | undefined; stderr: string }> {
  const child = runExample(`exec ${ex}`, WATCH_CAP_MS);
  let out = '';
  const drawn = await new Promise<boolean>((resolve) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('LEVEL')) resolve(true);
    });
    void child.then(() => resolve(out.includes('LEVEL')));
  });
  child.kill('SIGTERM');
  const r = await child;
  return { drawn, exitCode: r.exitCode, stderr: r.stderr };
}

beforeAll(async () => {
  tb = connect(inject('testbed'));
  bin = mkdtempSync(path.join(tmpdir(), 'standup-bin-'));
  // The TypeScript source, as `npm run standup` runs it: never a dist/ build older than the code under test.
  writeFileSync(path.join(bin, 'standup'), `#!/bin/sh\nexec ${process.execPath} --import tsx ${path.join(PROJECT, 'src/cli/main.ts')} "$@"\n`);
  chmodSync(path.join(bin, 'standup'), 0o755);
  const { url } = await serveRepo(tb.git, 'homelab-help', path.join(PROJECT, 'examples/homelab'));
  // The cluster the examples act on: the example stood up from its served copy.
  const r = await standup(['up', '--cluster', 'dev', '--kubeconfig', tb.kubeconfigPath, '--source-url', url]);
  expect(r.code, r.stderr).toBe(0);
});

afterAll(async () => {
  const k = kube(tb.kubeConfig());
  rmSync(bin, { recursive: true, force: true });
  await k.deleteKs('flux-system');
  await until('the root sync to be gone', async () => (await k.kustomizations()).length === 0, 120_000);
  await k.deleteGit('flux-system');
  const runtime = ['storageprofiles.cdi.kubevirt.io', 'datavolumes.cdi.kubevirt.io'];
  for (const c of runtime) await k.deleteCrd(c);
  // Leave the testbed as found for the next file: the pruned namespaces and the runtime CRDs gone, and a
  // kustomize-controller that no longer maps the deleted kinds (its RESTMapper would otherwise answer NotFound for
  // StorageProfile where a cold cluster says `no matches for kind`, and the runner's deadlock proof never sees it).
  await until('pruned namespaces to terminate', async () => (await Promise.all(['cdi', 'kubevirt', 'longhorn-system'].map((n) => k.namespace(n)))).every((n) => n === null), 120_000);
  await until('the runtime CRDs to be gone', async () => (await Promise.all(runtime.map((c) => k.crd(c)))).every((c) => c === null), 60_000);
  await tb.restart('kustomize-controller');
}, 300_000);

describe.sequential('help examples of the cluster commands', () => {
  it.each([['up'], ['resume'], ['crds'], ['status'], ['reset']])('%s: every example runs as written', async (cmd) => {
    const examples = await examplesOf(cmd);
    expect(examples.length).toBeGreaterThan(0);
    const failures: string[] = [];
    for (const ex of examples) {
      if (ex.includes('--watch')) {
        // Runs until stopped: it must draw the table; it is stopped once it has (or at WATCH_CAP_MS without one).
        const r = await watchUntilTable(ex);
        if (!r.drawn) failures.push(`${ex}: no table within ${WATCH_CAP_MS / 1000} s, when it was stopped (exit ${r.exitCode}; ${r.stderr.split('\n')[0]})`);
        continue;
      }
      const r = await runExample(ex);
      // Without a terminal, reset asks nothing and refuses (exit 2): that is what it documents.
      const expected = ex === 'standup reset' ? 2 : 0;
      if (r.exitCode !== expected) failures.push(`${ex} -> exit ${r.exitCode} (wanted ${expected}): ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
    }
    expect(failures).toEqual([]);
  }, 400_000);
});
