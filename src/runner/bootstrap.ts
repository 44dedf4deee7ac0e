import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import type { ClusterClient, K8sObject } from '../cluster/client.js';
import { ConfigError } from '../model/errors.js';
import type { ClusterConfig } from '../model/config.js';
import type { Emit } from './events.js';
import { parseText, readManifests } from './manifests.js';
import { summarizeActions, type StepOutcome } from './step.js';
import { waitFluxInstall } from './flux-install.js';

type Bootstrap = NonNullable<ClusterConfig['bootstrap']>;

/**
 * What `flux bootstrap` leaves in a cluster, from the repository: the Flux install (unless the controllers already
 * run elsewhere), the secrets tiers.yaml declares, and the root sync (GitRepository + Kustomization).
 */
export async function bootstrapFlux(o: {
  client: ClusterClient;
  root: string;
  cluster: string;
  bootstrap: Bootstrap | undefined;
  emit: Emit;
  id: string;
  dryRun?: boolean;
  /** --source-url: apply the root GitRepository with this URL instead of git's (a mirror, an air-gapped rebuild, the testbed). */
  sourceUrl?: string;
  sourceRef?: { kind: string; name: string; namespace: string };
  /** Ends the wait for the install's Deployments (Ctrl-C). */
  signal?: AbortSignal;
}): Promise<StepOutcome> {
  const b = o.bootstrap;
  if (!b?.sync) {
    throw new ConfigError('BOOTSTRAP_UNCONFIGURED', `cluster ${o.cluster} has no bootstrap.sync in tiers.yaml, so standup does not know what to apply`,
      `Add bootstrap: {sync: <the cluster's flux-system directory>} under clusters.${o.cluster} (and install: already-running or install: {path: ...}).`);
  }
  const objects: K8sObject[] = [];
  const install = b.install && b.install !== 'already-running' ? await readManifests(path.resolve(o.root, b.install.path), b.install.path) : [];
  objects.push(...install);
  for (const s of b.secrets) objects.push(await readSecret(o.root, s));
  const sync = await readManifests(path.resolve(o.root, b.sync), b.sync);
  objects.push(...(o.sourceUrl ? sync.map((obj) => withUrl(obj, o.sourceUrl!, o.sourceRef)) : sync));
  const results = await o.client.apply(objects, { fieldManager: 'standup', force: true, dryRun: o.dryRun });
  // Only ids and actions are reported: never a Secret's data.
  for (const r of results) o.emit({ type: 'change', id: o.id, object: r.id, action: r.action, dryRun: !!o.dryRun });
  const applied = summarizeActions(results.map((r) => r.action));
  if (install.length === 0 || o.dryRun || b.install === undefined || b.install === 'already-running') return { result: 'ok', message: applied };
  // The sync is applied with the install, so a run interrupted while the controllers roll out can be resumed.
  const ready = await waitFluxInstall({ client: o.client, objects: install, emit: o.emit, id: o.id, file: b.install.path, signal: o.signal });
  return { result: 'ok', message: `${applied}; ${ready}` };
}

/** A declared Secret: a plain manifest, or `sops -d` output held in memory only (never written to disk). */
async function readSecret(root: string, s: Bootstrap['secrets'][number]): Promise<K8sObject> {
  const file = s.sops ?? s.file;
  if (!file || (s.sops && s.file)) {
    throw new ConfigError('SECRET_SOURCE', `secret ${s.namespace}/${s.name} needs exactly one of file: or sops:`, 'Use sops: for an encrypted manifest, file: for a plain one.');
  }
  const full = path.resolve(root, file);
  let text: string;
  if (s.sops) {
    const r = await execa('sops', ['-d', full], { reject: false });
    if (r.failed) {
      throw new ConfigError('SOPS_FAILED', `sops -d ${file} failed${r.exitCode !== undefined ? ` (exit ${r.exitCode})` : ''}: ${String(r.stderr || r.message).split('\n')[0] ?? ''}`,
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

function withUrl(obj: K8sObject, url: string, ref: { kind: string; name: string; namespace: string } | undefined): K8sObject {
  const r = ref ?? { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' };
  if (obj.kind !== r.kind || obj.metadata?.name !== r.name || (obj.metadata.namespace ?? r.namespace) !== r.namespace) return obj;
  return { ...obj, spec: { ...(obj.spec as object), url } };
}
