// Flux's postBuild for one Kustomization (FLUX.md §6): its variables from `substitute` and the `substituteFrom`
// ConfigMaps and Secrets found in the repository, and the strict substitution of every object's YAML text, as
// kustomize-controller runs envsubst over each resource. SOPS-encrypted Secrets are never decrypted: their variables
// are unknown (a warning), not undefined (an error).
import type { ParseMemo } from './parse-memo.js';
import type { FluxKustomization, Origin } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import { objectId } from '../model/ref.js';
import { scanHeader, type BuiltObject } from './kustomize-output.js';
import { addVar, optedOut, substituteText, type Vars } from './substitute.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Finds an object this cluster applies (or the build at hand holds) by kind, name and namespace. */
export type Lookup = (kind: string, name: string, namespace: string) => Obj | null;

export interface PostBuildVars {
  vars: Vars;
  /** Sources whose variables cannot be known here, for the warning's message. */
  unknownFrom: string[];
}

/** True when a substituteFrom source is not (yet) among the known objects. */
export function missingSources(ks: FluxKustomization, find: Lookup): boolean {
  return ks.postBuild!.substituteFrom.some((ref) => !find(ref.kind, ref.name, ks.namespace));
}

/** The variables of a Kustomization's postBuild, or null when Flux would skip substitution altogether. */
export function postBuildVars(ks: FluxKustomization, find: Lookup): PostBuildVars | null {
  const pb = ks.postBuild!;
  const known = new Map<string, string>();
  const unknownFrom: string[] = [];
  for (const ref of pb.substituteFrom) {
    const o = find(ref.kind, ref.name, ks.namespace);
    if (!o) {
      if (!ref.optional) unknownFrom.push(`${ref.kind}/${ks.namespace}/${ref.name} (not in the repository)`);
      continue;
    }
    if (ref.kind === 'Secret') {
      if (o.sops !== undefined) {
        unknownFrom.push(`Secret/${ks.namespace}/${ref.name} (SOPS-encrypted)`);
        continue;
      }
      for (const [k, v] of Object.entries((o.data ?? {}) as Obj)) addVar(known, k, Buffer.from(String(v), 'base64').toString('utf8'));
      for (const [k, v] of Object.entries((o.stringData ?? {}) as Obj)) addVar(known, k, v);
    } else {
      for (const [k, v] of Object.entries((o.data ?? {}) as Obj)) addVar(known, k, v);
    }
  }
  for (const [k, v] of Object.entries(pb.substitute)) addVar(known, k, v);
  const always = (ks.raw.spec as Obj | undefined)?.postBuild?.substituteStrategy === 'Always';
  if (known.size === 0 && unknownFrom.length === 0 && !always) return null;
  return { vars: { known, hasUnknown: unknownFrom.length > 0 }, unknownFrom };
}

/**
 * Substitutes each object's YAML text. An undefined variable is an error on the object (Flux's strict mode fails the
 * tier); variables that may come from unknown sources are one warning on the Kustomization.
 */
export function substituteObjects(
  items: BuiltObject[],
  { vars, unknownFrom }: PostBuildVars,
  ks: FluxKustomization,
  originOf: (b: BuiltObject) => Origin,
  memo?: ParseMemo,
): { items: BuiltObject[]; problems: Omit<Problem, 'cluster'>[] } {
  const problems: Omit<Problem, 'cluster'>[] = [];
  const unknownVars = new Set<string>();
  const out = items.map((b) => {
    if (optedOut(b.header) || !b.text.includes('${')) return b;
    const r = substituteText(b.text, vars);
    const header = r.text === b.text ? b.header : scanHeader(r.text, memo);
    const id = objectId(header.kind, header.namespace, header.name);
    for (const i of r.issues) {
      if (i.kind === 'unknown') {
        unknownVars.add(i.variable);
        continue;
      }
      const origin = originOf(b);
      problems.push({
        code: 'unresolved-substitution',
        severity: 'error',
        message:
          i.kind === 'undefined'
            ? `\${${i.variable}} is not defined for ${id}: Flux's strict postBuild substitution in ${ks.key} fails (variable not set (strict mode): "${i.variable}")`
            : `${id}: ${i.message} (postBuild of ${ks.key})`,
        file: origin.file,
        line: origin.line,
        object: id,
      });
    }
    return { ...b, text: r.text, header };
  });
  if (unknownVars.size) {
    const names = [...unknownVars].sort();
    problems.push({
      code: 'unresolved-substitution',
      severity: 'warning',
      message: `${names.length} variable(s) used under ${ks.key} are not defined in the repository and may come from ${unknownFrom.join(', ')}: ${names.slice(0, 8).join(', ')}${names.length > 8 ? ', …' : ''}`,
      file: ks.origin.file,
      line: ks.origin.line,
      object: objectId('Kustomization', ks.namespace, ks.name),
    });
  }
  return { items: out, problems };
}
