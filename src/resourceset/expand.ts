// One ResourceSet expanded offline as flux-operator's reconciler would (internal/controller resourceset_controller.go
// getInputs + apply's metadata): its inputs (inline, and from its ResourceSetInputProviders: Static ones from their
// defaultValues, others from what tiers.yaml says they export), the build, then owner labels and commonMetadata on
// every object. Pure: the caller finds the providers. A provider whose inputs cannot be known offline leaves the
// ResourceSet unexpanded, with the provider named, never half-built.
import { buildResourceSet, BuildError, type BuiltStep } from './build.js';
import { asInputValue, combineInputs, inputId, InputsError, type InputSet, type InputSource } from './inputs.js';
import type { K8sObj } from './read-objects.js';
import { readResourceSetSpec, selects, type ResourceSetSpec } from './spec.js';

export interface ProviderLookup {
  /** Every ResourceSetInputProvider this cluster applies in `namespace`. */
  inNamespace(namespace: string): K8sObj[];
}

/** A provider the expansion needed and could not read offline. */
export interface OfflineProvider {
  namespace: string;
  name: string;
  type: string;
}

export type Expanded =
  | {
      ok: true;
      spec: ResourceSetSpec;
      steps: BuiltStep[];
      inputSets: number;
      /** Static providers whose `id` is standup's stand-in, adler32 of the name (the cluster's is adler32 of the UID). */
      standInIds: { provider: string; id: string }[];
      /** Providers whose inputs came from tiers.yaml. */
      configured: string[];
    }
  | { ok: false; reason: 'build-failed'; spec: ResourceSetSpec | null; message: string; unsupportedFunction: string | null }
  | { ok: false; reason: 'inputs-unknown'; spec: ResourceSetSpec; providers: OfflineProvider[] };

const isObj = (v: unknown): v is K8sObj => typeof v === 'object' && v !== null && !Array.isArray(v);
const meta = (o: K8sObj): K8sObj => (isObj(o.metadata) ? o.metadata : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const labelsOf = (o: K8sObj): Record<string, string> => (isObj(meta(o).labels) ? (meta(o).labels as Record<string, string>) : {});

/**
 * Expands `rset` (the object as applied). `configured` is tiers.yaml's resourceSetInputs: exported inputs by
 * provider `namespace/name`.
 */
export function expandResourceSet(rset: K8sObj, providers: ProviderLookup, configured: ReadonlyMap<string, InputSet[]> = new Map()): Expanded {
  const name = str(meta(rset).name);
  const namespace = str(meta(rset).namespace);
  const { spec, errors } = readResourceSetSpec(rset);
  if (!spec) return { ok: false, reason: 'build-failed', spec: null, message: `build failed: ${errors.join('; ')}`, unsupportedFunction: null };

  // The providers, always in the ResourceSet's own namespace: by name (missing is an error) or by label selector.
  const found = new Map<string, K8sObj>();
  const all = providers.inNamespace(namespace);
  for (const ref of spec.inputsFrom) {
    if (ref.name !== null) {
      const p = all.find((x) => str(meta(x).name) === ref.name);
      if (!p) {
        return {
          ok: false,
          reason: 'build-failed',
          spec,
          message: `failed to compute inputs: failed to get provider ${namespace}/${ref.name}: ResourceSetInputProvider.fluxcd.controlplane.io "${ref.name}" not found`,
          unsupportedFunction: null,
        };
      }
      found.set(ref.name, p);
    } else if (ref.selector !== null) {
      for (const p of all) if (selects(ref.selector, labelsOf(p))) found.set(str(meta(p).name), p);
    } else {
      return { ok: false, reason: 'build-failed', spec, message: 'failed to compute inputs: input provider reference must have either name or selector set', unsupportedFunction: null };
    }
  }

  const sources: InputSource[] = [];
  const offline: OfflineProvider[] = [];
  const standInIds: { provider: string; id: string }[] = [];
  const used: string[] = [];
  for (const [pname, p] of found) {
    const pspec = isObj(p.spec) ? p.spec : {};
    const type = str(pspec.type);
    const defaults = isObj(pspec.defaultValues) ? pspec.defaultValues : {};
    const key = `${namespace}/${pname}`;
    let inputs: InputSet[];
    if (configured.has(key)) {
      // What the provider would export: each input set, with defaultValues filling the keys it does not set.
      inputs = configured.get(key)!.map((set) => ({ ...structuredClone(defaults), ...structuredClone(set) }));
      used.push(key);
    } else if (type === 'Static') {
      const id = inputId(pname);
      inputs = [{ ...structuredClone(defaults), id }];
      standInIds.push({ provider: key, id });
    } else {
      offline.push({ namespace, name: pname, type: type || '(no spec.type)' });
      continue;
    }
    sources.push({ kind: 'ResourceSetInputProvider', name: pname, namespace, inputs });
  }
  if (offline.length > 0) return { ok: false, reason: 'inputs-unknown', spec, providers: offline };

  let sets: InputSet[];
  try {
    sets = combineInputs({ kind: 'ResourceSet', name, namespace, inputs: spec.inputs }, sources, spec.strategy, spec.includeEmptyProviders).map((set) => asInputValue(set) as InputSet);
  } catch (e) {
    if (e instanceof InputsError) return { ok: false, reason: 'build-failed', spec, message: `failed to compute inputs: ${e.message}`, unsupportedFunction: null };
    throw e;
  }
  // Providers that exported nothing: the operator applies an empty set (and prunes what the ResourceSet made before).
  if (spec.inputsFrom.length > 0 && sets.length === 0) return { ok: true, spec, steps: spec.steps.map((s) => ({ name: s.name, objects: [] })), inputSets: 0, standInIds, configured: used };

  let steps: BuiltStep[];
  try {
    steps = buildResourceSet(spec, sets);
  } catch (e) {
    if (e instanceof BuildError) return { ok: false, reason: 'build-failed', spec, message: `build failed: ${e.message}`, unsupportedFunction: e.unsupportedFunction };
    throw e;
  }
  for (const st of steps) for (const o of st.objects) applyMetadata(o, name, namespace, spec);
  return { ok: true, spec, steps, inputSets: sets.length, standInIds, configured: used };
}

/** The owner labels, then commonMetadata (overriding same keys), as the operator sets them before applying. */
function applyMetadata(o: K8sObj, name: string, namespace: string, spec: ResourceSetSpec): void {
  const m = isObj(o.metadata) ? o.metadata : (o.metadata = {});
  const labels = isObj(m.labels) ? m.labels : (m.labels = {});
  Object.assign(labels, { 'resourceset.fluxcd.controlplane.io/name': name, 'resourceset.fluxcd.controlplane.io/namespace': namespace }, spec.commonMetadata.labels);
  if (Object.keys(spec.commonMetadata.annotations).length > 0) {
    const ann = isObj(m.annotations) ? m.annotations : (m.annotations = {});
    Object.assign(ann, spec.commonMetadata.annotations);
  }
}
