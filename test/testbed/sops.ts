// A copy of the example repository (examples/homelab, with its own tiers.yaml) whose SOPS-encrypted bootstrap secret
// is encrypted for an age key made here, so a test or the demo can run `standup up` on it. The plaintext is made in
// memory and reaches sops through a FIFO: it is on no disk path, and the caller can check that nothing else writes it.
import { execFile, execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { repoRoot } from './paths.js';

const execFileP = promisify(execFile);

export const SECRET_FILE = 'bootstrap/cluster-secrets.sops.yaml';

export interface SopsRepo {
  /** --repo for standup (and the directory to serve): the example repository with its tiers.yaml. */
  repo: string;
  /** Environment for the standup process: SOPS_AGE_KEY_FILE, and PATH with the testbed's sops first. */
  env: Record<string, string>;
  /** The secret's values (only ever in memory here). */
  values: Record<string, string>;
  cleanup(): void;
}

export async function sopsRepo(binDir: string, o: { name?: string; namespace?: string } = {}): Promise<SopsRepo> {
  const dir = mkdtempSync(path.join(tmpdir(), 'standup-sops-'));
  const repo = path.join(dir, 'homelab');
  cpSync(path.join(repoRoot, 'examples/homelab'), repo, { recursive: true });
  const keyFile = path.join(dir, 'age', 'key.txt');
  mkdirSync(path.dirname(keyFile), { mode: 0o700 });
  execFileSync(path.join(binDir, 'age-keygen'), ['-o', keyFile], { stdio: 'ignore' });
  const recipient = /age1[0-9a-z]+/.exec(readFileSync(keyFile, 'utf8'))?.[0];
  if (!recipient) throw new Error(`age-keygen wrote no public key to ${keyFile}`);
  const values = { OAUTH2_PROXY_COOKIE_SECRET: randomBytes(16).toString('hex'), OAUTH2_PROXY_CLIENT_SECRET: randomBytes(16).toString('hex') };
  const plain = stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: o.name ?? 'cluster-secrets', namespace: o.namespace ?? 'flux-system' }, type: 'Opaque', stringData: values });
  // A FIFO, not a file: sops reads the plaintext from it and nothing is stored (Node's stdin pipes are sockets, which
  // sops cannot open as /dev/stdin).
  const fifo = path.join(dir, 'age', 'plaintext.yaml');
  execFileSync('mkfifo', ['-m', '600', fifo]);
  const [{ stdout: encrypted }] = await Promise.all([
    execFileP(path.join(binDir, 'sops'), ['--encrypt', '--age', recipient, '--encrypted-regex', '^(data|stringData)$', '--input-type', 'yaml', '--output-type', 'yaml', fifo], { encoding: 'utf8' }),
    writeFile(fifo, plain),
  ]);
  rmSync(fifo);
  writeFileSync(path.join(repo, SECRET_FILE), encrypted);
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(path.join(binDir, 'sops'), path.join(bin, 'sops'));
  return {
    repo,
    env: { SOPS_AGE_KEY_FILE: keyFile, PATH: `${bin}:${process.env.PATH ?? ''}` },
    values,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
