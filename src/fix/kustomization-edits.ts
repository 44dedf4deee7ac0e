// Edits of a Flux Kustomization where the repository defines it: its document in its file, found by the line the
// loader recorded and checked to be that Kustomization as written (a name made by a patch, a prefix or a ${VAR}
// does not match, and the file is left alone).
import type { FluxKustomization } from '../model/flux.js';
import { parseKsKey } from '../model/ref.js';
import type { RepoFiles } from './files.js';
import { appendItem, setScalar, UnsafeEdit } from './yaml-splice.js';

type Spec = { dependsOn?: { name?: string; namespace?: string }[]; wait?: boolean; healthChecks?: unknown[] };

/** The Kustomization's document and its value, or UnsafeEdit saying why it cannot be edited where it is written. */
export function kustomizationDoc(files: RepoFiles, ks: FluxKustomization) {
  const found = files.docAt(ks.origin.file, ks.origin.line, (x) => x.kind === 'Kustomization' && (x.metadata as { name?: string } | undefined)?.name === ks.name);
  const v = found.value as { kind?: string; apiVersion?: string; metadata?: { name?: string; namespace?: string }; spec?: Spec };
  if (v.kind !== 'Kustomization' || !String(v.apiVersion ?? '').startsWith('kustomize.toolkit.fluxcd.io/')) {
    throw new UnsafeEdit(`${ks.origin.file}:${found.slice.firstLine} is not where Kustomization ${ks.key} is written (a generator or a ResourceSet template makes it)`);
  }
  if (v.metadata?.name !== ks.name) {
    throw new UnsafeEdit(`Kustomization ${ks.key} is written as "${v.metadata?.name}" in ${ks.origin.file} (a prefix, a patch or a \${VAR} makes its name)`);
  }
  return { ...found, spec: v.spec ?? {}, namespace: v.metadata?.namespace ?? null };
}

/** Adds `target` (`namespace/name`) to the Kustomization's dependsOn unless it is there; false when it was. */
export function addDependsOn(files: RepoFiles, ks: FluxKustomization, target: string): boolean {
  const { slice, spec } = kustomizationDoc(files, ks);
  const t = parseKsKey(target);
  if ((spec.dependsOn ?? []).some((d) => d?.name === t.name && (d.namespace || ks.namespace) === t.namespace)) return false;
  const item = t.namespace === ks.namespace ? `name: ${t.name}` : `name: ${t.name}\nnamespace: ${t.namespace}`;
  const js = t.namespace === ks.namespace ? { name: t.name } : { name: t.name, namespace: t.namespace };
  files.replaceDoc(ks.origin.file, slice, appendItem(slice.text, ['spec', 'dependsOn'], item, js));
  return true;
}

/** Sets spec.wait: true unless it is set, or healthChecks choose what to wait for; false when nothing changed. */
export function setWait(files: RepoFiles, ks: FluxKustomization): boolean {
  const { slice, spec } = kustomizationDoc(files, ks);
  if (spec.wait === true) return false;
  if (Array.isArray(spec.healthChecks) && spec.healthChecks.length > 0) {
    throw new UnsafeEdit(`${ks.key} waits on its healthChecks only; add the resource that makes the CRD exist to them, or set wait: true`);
  }
  files.replaceDoc(ks.origin.file, slice, setScalar(slice.text, ['spec', 'wait'], 'true', true));
  return true;
}
