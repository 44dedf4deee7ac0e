// Flux's postBuild for one Kustomization (FLUX.md §6): its variables from `substitute` and the `substituteFrom`
// ConfigMaps and Secrets found in the repository, and the strict substitution of every object's YAML text, as
// kustomize-controller runs envsubst over each resource. SOPS-encrypted Secrets are never decrypted: their variables
// are unknown (a warning), not undefined (an error); a Secret an ExternalSecret of the repository makes is unknown here
// but defined on the cluster (an info).
import type { FluxKustomization, Origin } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import { ASSUMED_SUBSTITUTION, type SubstitutionSemantics } from '../model/substitution.js';
import { refKey } from '../model/ref.js';
import type { BuiltObject } from '../repo/kustomize-output.js';
import type { TextMemo } from '../repo/lazy-yaml.js';
import { scanHeader } from '../repo/object-header.js';
import { addVar, optedOut, substituteText, type Vars } from './envsubst.js';
import type { Obj } from '../model/k8s.js';


/** Finds an object this cluster applies (or the build at hand holds) by kind, name and namespace. */
export type Lookup = (kind: string, name: string, namespace: string) => Obj | null;

export interface PostBuildVars {
  vars: Vars;
  /** Sources whose variables cannot be known here, for the warning's message. */
  unknownFrom: string[];
  /**
   * True when every such source is made at run time by an object of the repository (an ExternalSecret whose target
   * is the Secret): the variables are then defined on the cluster, only unknown here (an info, not a warning).
   */
  madeInCluster?: boolean;
}

/** True when a substituteFrom source is not (yet) among the known objects. */
export function missingSources(ks: FluxKustomization, find: Lookup): boolean {
  return ks.postBuild!.substituteFrom.some((ref) => !find(ref.kind, ref.name, ks.namespace));
}

/** The variables of a Kustomization's postBuild, or null when Flux would skip substitution altogether. */
export function postBuildVars(ks: FluxKustomization, find: Lookup, semantics: SubstitutionSemantics = ASSUMED_SUBSTITUTION): PostBuildVars | null {
  const pb = ks.postBuild!;
  const known = new Map<string, string>();
  const unknownFrom: string[] = [];
  let made = 0;
  for (const ref of pb.substituteFrom) {
    const o = find(ref.kind, ref.name, ks.namespace);
    if (!o) {
      if (ref.optional) continue;
      const maker = ref.kind === 'Secret' ? externalSecretFor(ref.name, ks.namespace, find) : null;
      const id = refKey({ kind: ref.kind, namespace: ks.namespace, name: ref.name });
      if (maker) made++;
      unknownFrom.push(maker ? `${id} (made at run time by ${maker})` : `${id} (not in the repository)`);
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
  return { vars: { known, hasUnknown: unknownFrom.length > 0, strict: semantics.strict }, unknownFrom, madeInCluster: unknownFrom.length > 0 && made === unknownFrom.length };
}

/**
 * The ExternalSecret of the repository whose target is Secret `name` in `namespace` (external-secrets names the
 * target after the ExternalSecret unless spec.target.name says otherwise), as `ExternalSecret/ns/name`; else null.
 */
function externalSecretFor(name: string, namespace: string, find: Lookup): string | null {
  const es = find('ExternalSecret', name, namespace);
  if (!es || !String(es.apiVersion ?? 'external-secrets.io/').startsWith('external-secrets.io/')) return null;
  const target = es.spec?.target?.name;
  return typeof target === 'string' && target !== '' && target !== name ? null : refKey({ kind: 'ExternalSecret', namespace, name });
}

/**
 * Substitutes each object's YAML text. Under strict substitution (`semantics`) an undefined variable is an error on
 * the object (the tier fails); without it, the variables left empty are one info on the Kustomization. Variables that
 * may come from unknown sources are one warning on the Kustomization.
 */
export function substituteObjects(
  items: BuiltObject[],
  { vars, unknownFrom, madeInCluster }: PostBuildVars,
  ks: FluxKustomization,
  originOf: (b: BuiltObject) => Origin,
  memo?: TextMemo,
  semantics: SubstitutionSemantics = ASSUMED_SUBSTITUTION,
): { items: BuiltObject[]; problems: Omit<Problem, 'cluster'>[] } {
  const problems: Omit<Problem, 'cluster'>[] = [];
  const unknownVars = new Set<string>();
  const emptied = new Set<string>();
  const out = items.map((b) => {
    if (optedOut(b.header) || !b.text.includes('${')) return b;
    const r = substituteText(b.text, vars);
    const header = r.text === b.text ? b.header : scanHeader(r.text, memo);
    const id = refKey(header);
    for (const i of r.issues) {
      if (i.kind === 'unknown') {
        unknownVars.add(i.variable);
        continue;
      }
      if (i.kind === 'undefined' && !semantics.strict) {
        emptied.add(i.variable);
        continue;
      }
      const origin = originOf(b);
      problems.push({
        code: 'unresolved-substitution',
        severity: 'error',
        message:
          i.kind === 'undefined'
            ? `\${${i.variable}} is not defined for ${id}: Flux's strict postBuild substitution in ${ks.key} fails (variable not set (strict mode): "${i.variable}"; ${semantics.why})`
            : `${id}: ${i.message} (postBuild of ${ks.key})`,
        file: origin.file,
        line: origin.line,
        object: id,
        ...(i.kind === 'undefined' ? { target: i.variable } : {}),
      });
    }
    return { ...b, text: r.text, header };
  });
  if (unknownVars.size) {
    const names = [...unknownVars].sort();
    problems.push({
      code: 'unresolved-substitution',
      severity: madeInCluster ? 'info' : 'warning',
      message: madeInCluster
        ? `${names.length} variable(s) used under ${ks.key} come from ${unknownFrom.join(', ')}, so their values are known only on the cluster and were not checked here: ${names.slice(0, 8).join(', ')}${names.length > 8 ? ', …' : ''}`
        : `${names.length} variable(s) used under ${ks.key} are not defined in the repository and may come from ${unknownFrom.join(', ')}: ${names.slice(0, 8).join(', ')}${names.length > 8 ? ', …' : ''}`,
      file: ks.origin.file,
      line: ks.origin.line,
      object: refKey({ kind: 'Kustomization', namespace: ks.namespace, name: ks.name }),
    });
  }
  if (emptied.size) {
    const names = [...emptied].sort();
    problems.push({
      code: 'unresolved-substitution',
      severity: 'info',
      message: `${names.length} variable(s) used under ${ks.key} are not defined and become empty strings: ${semantics.why} does not substitute strictly: ${names.slice(0, 8).join(', ')}${names.length > 8 ? ', …' : ''}`,
      file: ks.origin.file,
      line: ks.origin.line,
      object: refKey({ kind: 'Kustomization', namespace: ks.namespace, name: ks.name }),
    });
  }
  return { items: out, problems };
}
