// How flux-operator combines a ResourceSet's input sets (internal/inputs: combine.go, flattener.go, permuter.go,
// keys.go, id.go): the ResourceSet's own inputs first, then its providers sorted by name, each input set given a
// `provider` map; Flatten concatenates them, Permute takes their Cartesian product under each source's normalized
// name with an Adler-32 `id`. Pure; errors carry the operator's words.
import { adler32String } from '../gotemplate/sprig-strings.js';
import { GoInt } from '../gotemplate/values.js';

export type InputSet = Record<string, unknown>;

/** A source of input sets: the ResourceSet itself or one of its ResourceSetInputProviders, as exported. */
export interface InputSource {
  kind: 'ResourceSet' | 'ResourceSetInputProvider';
  name: string;
  namespace: string;
  inputs: InputSet[];
}

export class InputsError extends Error {}

const MAX_PERMUTATIONS = 10000;

/** flux-operator's id helper: the unsigned decimal Adler-32 of a string. */
export const inputId = (s: string): string => adler32String(s);

/**
 * An input value as the templates see it: flux-operator decodes inputs with k8s.io/apimachinery's json.Unmarshal,
 * which makes a whole number an int64 and any other a float64 (`eq inputs.replicas 3` holds, `printf "%d"` prints
 * it); to src/gotemplate a JavaScript number is a float64, so whole numbers become GoInt int64.
 */
export function asInputValue(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? new GoInt(v, 'int64') : v;
  if (Array.isArray(v)) return v.map(asInputValue);
  if (typeof v === 'object' && v !== null && !(v instanceof GoInt)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asInputValue(x)]));
  return v;
}

/** NormalizeKeyForTemplate: lower case, spaces and punctuation to '_', others dropped, '_' runs collapsed. */
export function normalizeKey(key: string): string {
  let out = '';
  for (const ch of key.toLowerCase()) {
    if (/[\s\p{P}]/u.test(ch)) out += '_';
    else if (/[a-z0-9]/.test(ch)) out += ch;
  }
  return out.split('_').filter((w) => w !== '').join('_');
}

/**
 * The combined input sets. `self` is the ResourceSet (its spec.inputs), `providers` its providers in any order
 * (duplicates by name count once).
 */
export function combineInputs(self: InputSource, providers: InputSource[], strategy: 'Flatten' | 'Permute', includeEmptyProviders: boolean): InputSet[] {
  const unique = new Map(providers.map((p) => [p.name, p]));
  const sorted = [...unique.values()].sort((a, b) => (a.namespace !== b.namespace ? cmp(a.namespace, b.namespace) : cmp(a.name, b.name)));
  const sources = [self, ...sorted].map((src) => ({
    src,
    sets: src.inputs.map((i) => ({ ...structuredClone(i), provider: { apiVersion: 'fluxcd.controlplane.io/v1', kind: src.kind, name: src.name, namespace: src.namespace } })),
  }));
  if (strategy === 'Flatten') return sources.flatMap((s) => s.sets);
  const scoped: { name: string; sets: InputSet[] }[] = [];
  let expected = 0;
  for (const { src, sets } of sources) {
    if (!includeEmptyProviders && sets.length === 0) continue;
    expected = scoped.length === 0 ? sets.length : expected * sets.length;
    if (expected > MAX_PERMUTATIONS) {
      throw new InputsError(
        `failed to get inputs from ${src.kind}/${src.name}: adding provider '${src.name}' with ${sets.length} inputs would exceed the maximum allowed permutations. max: ${MAX_PERMUTATIONS}, got: ${expected}`,
      );
    }
    const name = normalizeKey(src.name);
    if (name === '') throw new InputsError(`failed to get inputs from ${src.kind}/${src.name}: normalized provider name is empty: '${src.name}'`);
    scoped.push({ name, sets });
  }
  if (scoped.length === 0 || scoped.some((s) => s.sets.length === 0)) return [];
  const out: InputSet[] = [];
  const pick = (i: number, chosen: number[]) => {
    if (i === scoped.length) {
      const perm: InputSet = {};
      for (const [k, idx] of chosen.entries()) perm[scoped[k]!.name] = scoped[k]!.sets[idx];
      perm.id = inputId(chosen.map((idx, k) => `${scoped[k]!.name}=${idx}`).join('/'));
      out.push(perm);
      return;
    }
    for (let j = 0; j < scoped[i]!.sets.length; j++) pick(i + 1, [...chosen, j]);
  };
  pick(0, []);
  return out;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
