import { FLUX_KUSTOMIZATION, type ApplyResult, type ClusterClient, type K8sObject } from '../cluster/client.js';
import { NoKindError } from '../cluster/errors.js';
import { ConfigError } from '../model/errors.js';
import type { RootSync } from '../plan/plan.js';
import { systemClock } from './clock.js';
import { retryTransient, type Writer } from './writer.js';
import { refKey, type NamespacedRef } from '../model/ref.js';

/** Set on the root Kustomization by `standup reset` when it suspends it, so `resume` knows whose suspension it is. */
export const SUSPENDED_BY = 'standup.io/suspended-by';

const MIRROR_KINDS = new Set(['GitRepository', 'OCIRepository']);

const isSource = (o: K8sObject, root: RootSync) =>
  o.kind === root.source.kind && o.metadata.name === root.source.name && (o.metadata.namespace ?? root.source.namespace) === root.source.namespace;
const isRootKs = (o: K8sObject, ks: NamespacedRef) =>
  o.kind === 'Kustomization' && o.apiVersion.startsWith('kustomize.toolkit.fluxcd.io/') && (o.metadata.namespace ?? 'flux-system') === ks.namespace && o.metadata.name === ks.name;

/**
 * The root Kustomization when the entry's build does not hold it (the plan has no root key: a sync folder beside the
 * entry, as `bootstrap/sync` with the entry elsewhere): the one Kustomization of the sync that reads the root source.
 */
function syncRoot(sync: readonly K8sObject[], root: RootSync): K8sObject | undefined {
  const readers = sync.filter((o) => {
    if (o.kind !== 'Kustomization' || !o.apiVersion.startsWith('kustomize.toolkit.fluxcd.io/')) return false;
    const ref = (o.spec as { sourceRef?: { kind?: string; name?: string; namespace?: string } } | undefined)?.sourceRef;
    return ref?.kind === root.source.kind && ref.name === root.source.name && (ref.namespace ?? o.metadata.namespace ?? 'flux-system') === root.source.namespace;
  });
  return readers.length === 1 ? readers[0] : undefined;
}

/** Whether the sync objects hold the root sync's source (else standup would wait on a source nothing creates). */
export const holdsSource = (sync: readonly K8sObject[], root: RootSync): boolean => sync.some((o) => isSource(o, root));

/**
 * The root sync objects with the source pointed at a mirror, in a way that holds: the root Kustomization re-applies
 * the source from git on every reconcile, so setting the URL alone is undone within seconds. The root Kustomization
 * therefore also carries a patch that sets the URL in its own build output. Both are applied under field manager
 * `standup`, which kustomize-controller does not strip, and a later `up` without --source-url removes the patch again.
 */
export function mirrorSync(sync: readonly K8sObject[], root: RootSync, url: string, syncDir: string): K8sObject[] {
  const source = root.source;
  if (!MIRROR_KINDS.has(source.kind)) {
    throw new ConfigError('MIRROR_UNSUPPORTED', `--source-url needs the root sync's source to be a GitRepository or OCIRepository; ${source.kind}/${source.namespace}/${source.name} is not`, 'Drop --source-url, or change the source in git.');
  }
  if (!sync.some((o) => isSource(o, root))) {
    throw new ConfigError('MIRROR_NO_SOURCE', `--source-url: ${syncDir} holds no ${source.kind}/${source.namespace}/${source.name} to point at the mirror`, 'Point bootstrap.sync in tiers.yaml at the directory with gotk-sync.yaml.');
  }
  const rootKs = root.ks ? sync.find((o) => isRootKs(o, root.ks!)) : syncRoot(sync, root);
  if (!rootKs) {
    throw new ConfigError('MIRROR_NO_ROOT', `--source-url: ${syncDir} holds no root Kustomization${root.key ? ` ${root.key}` : ''}, so the mirror could not hold (the root would re-apply the source from git)`, 'Point bootstrap.sync in tiers.yaml at the directory with gotk-sync.yaml.');
  }
  if (Array.isArray((rootKs.spec as { patches?: unknown } | undefined)?.patches)) {
    throw new ConfigError('MIRROR_WOULD_NOT_HOLD', `--source-url: the root Kustomization ${root.key} declares spec.patches in git, which kustomize-controller re-applies whole, dropping the mirror's patch`,
      `Add the patch to the root Kustomization in git instead (a JSON patch replacing /spec/url of ${source.kind} ${source.name}), and drop --source-url.`);
  }
  const patch = {
    target: { kind: source.kind, name: source.name, namespace: source.namespace },
    patch: JSON.stringify([{ op: 'replace', path: '/spec/url', value: url }]),
  };
  return sync.map((o) => {
    if (isSource(o, root)) return { ...o, spec: { ...(o.spec as object), url } };
    if (o === rootKs) return { ...o, spec: { ...(o.spec as object), patches: [patch] } };
    return o;
  });
}

/** The root Kustomization's ref, or null when the plan has none (the entry's build does not hold it). */
const rootRef = (root: RootSync) => (root.ks ? { ...root.ks, ...FLUX_KUSTOMIZATION } : null);

export interface Suspension {
  suspended: boolean;
  /** Who suspended it, from the annotation standup leaves (`reset`), or null (by hand, or not at all). */
  by: string | null;
}

export async function rootSuspension(client: ClusterClient, root: RootSync, applied: readonly ApplyResult[] = []): Promise<Suspension> {
  const ref = rootRef(root);
  // Just applied: the apply's answer is the live object (other managers' fields included), so no GET is needed.
  const answered = ref ? applied.find((r) => r.object && r.ref.kind === ref.kind && r.ref.apiVersion.split('/')[0] === ref.apiVersion.split('/')[0] && r.ref.namespace === ref.namespace && r.ref.name === ref.name)?.object : undefined;
  const live = answered ?? (ref ? await client.find(ref) : undefined);
  return { suspended: !!(live?.spec as { suspend?: boolean } | undefined)?.suspend, by: live?.metadata.annotations?.[SUSPENDED_BY] ?? null };
}

/** Whether the root Kustomization exists on the cluster (false too when Flux's Kustomization kind does not). */
export async function rootPresent(client: ClusterClient, root: RootSync): Promise<boolean> {
  const ref = rootRef(root);
  if (!ref) return false;
  try {
    return !!(await client.find(ref));
  } catch (e) {
    if (e instanceof NoKindError) return false;
    throw e;
  }
}

/**
 * Suspends (`reset`, recording itself in the annotation) or resumes the root sync; null removes the field and the
 * annotation, so the spec from git (which has no suspend) owns it again.
 */
export async function setRootSuspended(o: Writer, root: RootSync, suspend: boolean, by = 'standup reset'): Promise<void> {
  const ref = rootRef(root);
  if (!ref) return;
  o.emit({ type: 'change', id: o.id, object: refKey(ref), change: { kind: suspend ? 'suspend' : 'resume' }, dryRun: !!o.dryRun });
  if (o.dryRun) return;
  const patch = suspend
    ? { metadata: { annotations: { [SUSPENDED_BY]: `${by} at ${new Date((o.clock ?? systemClock).now()).toISOString()}` } }, spec: { suspend: true } }
    : { metadata: { annotations: { [SUSPENDED_BY]: null } }, spec: { suspend: null } };
  await retryTransient(() => o.client.patchMerge(ref, patch), o.signal, o.clock);
}
