import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { K8sObject } from '../cluster/client.js';
import type { ClusterConfig } from '../model/config.js';
import { ConfigError } from '../model/errors.js';
import { parseText } from '../repo/manifests.js';
import { runProcess } from '../repo/run-process.js';

type SecretEntry = NonNullable<ClusterConfig['bootstrap']>['secrets'][number];

/**
 * A declared Secret: a plain manifest, or `sops -d` output held in memory only (never written to disk, never
 * printed: errors name the file and the Secret, not its data).
 */
export async function readSecret(root: string, s: SecretEntry): Promise<K8sObject> {
  const file = s.sops ?? s.file;
  if (!file || (s.sops && s.file)) {
    throw new ConfigError('SECRET_SOURCE', `secret ${s.namespace}/${s.name} needs exactly one of file: or sops:`, 'Use sops: for an encrypted manifest, file: for a plain one.');
  }
  const full = path.resolve(root, file);
  let text: string;
  if (s.sops) {
    const r = await runProcess('sops', ['-d', full]);
    if (r.errorCode === 'ENOENT') {
      throw new ConfigError('SOPS_MISSING', `secret ${s.namespace}/${s.name} is SOPS-encrypted (${file}), and sops is not on PATH`,
        'Install sops (https://github.com/getsops/sops/releases) and make sure your age/PGP key can decrypt it (SOPS_AGE_KEY_FILE).');
    }
    if (r.exitCode !== 0) {
      throw new ConfigError('SOPS_FAILED', `sops -d ${file} failed${r.exitCode !== null ? ` (exit ${r.exitCode})` : r.signal ? ` (${r.signal})` : ''}: ${String(r.stderr || r.error || '').split('\n')[0] ?? ''}`,
        'Check that sops is installed and that your age/PGP key can decrypt it (SOPS_AGE_KEY_FILE).');
    }
    text = r.stdout;
  } else {
    try {
      text = readFileSync(full, 'utf8');
    } catch {
      throw new ConfigError('SECRET_MISSING', `${file} (secret ${s.namespace}/${s.name}) cannot be read`, 'Fix file: in tiers.yaml (relative to the repository root).');
    }
  }
  const docs = parseText(text, file).filter((d) => d.kind === 'Secret');
  const secret = docs.find((d) => d.metadata?.name === s.name) ?? (docs.length === 1 ? docs[0] : undefined);
  if (!secret) throw new ConfigError('SECRET_MISSING', `${file} holds no Secret named ${s.name}`, 'Fix name: or the file in tiers.yaml.');
  if ('sops' in secret) {
    throw new ConfigError('SECRET_ENCRYPTED', `${file} is SOPS-encrypted`, `Declare it as sops: ${file} so standup decrypts it in memory.`);
  }
  return { ...secret, metadata: { ...secret.metadata!, name: s.name, namespace: s.namespace } };
}
