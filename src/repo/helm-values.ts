// The values a flux-instance HelmRelease gives its chart, merged as helm-controller merges them: each valuesFrom
// ConfigMap or Secret in order (a YAML document under valuesKey, default values.yaml, or one value at targetPath),
// then spec.values on top. Discovery reads `instance.sync` from the result: where the FluxInstance syncs from.
import { yaml } from './lazy-yaml.js';
import type { Obj } from '../model/k8s.js';


const isMap = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** A HelmRelease of the flux-instance chart (by chart name, chartRef or release name). */
export function isFluxInstanceRelease(d: Obj): boolean {
  if (d.kind !== 'HelmRelease' || !String(d.apiVersion ?? '').startsWith('helm.toolkit.fluxcd.io/')) return false;
  const spec: Obj = isMap(d.spec) ? d.spec : {};
  const names = [spec.chart?.spec?.chart, spec.chartRef?.name, spec.releaseName, d.metadata?.name].filter((n): n is string => typeof n === 'string');
  return names.some((n) => n === 'flux-instance' || n.endsWith('/flux-instance')) || isMap(spec.values?.instance?.sync);
}

export interface ValuesRef {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  valuesKey: string;
  targetPath: string | null;
  optional: boolean;
}

export function valuesFrom(hr: Obj): ValuesRef[] {
  const list = hr.spec?.valuesFrom;
  if (!Array.isArray(list)) return [];
  return list
    .filter(isMap)
    .filter((r) => (r.kind === 'ConfigMap' || r.kind === 'Secret') && typeof r.name === 'string')
    .map((r) => ({
      kind: r.kind as 'ConfigMap' | 'Secret',
      name: String(r.name),
      valuesKey: typeof r.valuesKey === 'string' && r.valuesKey ? r.valuesKey : 'values.yaml',
      targetPath: typeof r.targetPath === 'string' && r.targetPath ? r.targetPath : null,
      optional: r.optional === true,
    }));
}

/** The string under `key` of a ConfigMap or Secret (decoded); null when absent or SOPS-encrypted. */
export function dataValue(o: Obj, key: string): string | null {
  if (o.kind === 'Secret') {
    if (o.sops !== undefined) return null;
    if (isMap(o.stringData) && key in o.stringData) return String(o.stringData[key]);
    if (isMap(o.data) && key in o.data) return Buffer.from(String(o.data[key]), 'base64').toString('utf8');
    return null;
  }
  if (isMap(o.data) && key in o.data) return String(o.data[key]);
  return null;
}

export interface MergedValues {
  values: Obj;
  /** valuesFrom sources (not optional) that were not found: `ConfigMap/name`. */
  missing: string[];
  /** valuesFrom sources whose content is unreadable here (not YAML, SOPS-encrypted). */
  unreadable: string[];
}

/** Merges a HelmRelease's values; `find` looks a ConfigMap or Secret up by kind and name, null when absent. */
export function mergeValues(hr: Obj, find: (kind: string, name: string) => Obj | null): MergedValues {
  let values: Obj = {};
  const missing: string[] = [];
  const unreadable: string[] = [];
  for (const ref of valuesFrom(hr)) {
    const id = `${ref.kind}/${ref.name}`;
    const o = find(ref.kind, ref.name);
    if (!o) {
      if (!ref.optional) missing.push(id);
      continue;
    }
    const text = dataValue(o, ref.valuesKey);
    if (text === null) {
      if (!ref.optional) unreadable.push(`${id} (key ${ref.valuesKey})`);
      continue;
    }
    if (ref.targetPath) {
      values = setPath(values, ref.targetPath, text);
      continue;
    }
    let doc: unknown;
    try {
      doc = yaml().parse(text, { uniqueKeys: false });
    } catch {
      unreadable.push(`${id} (key ${ref.valuesKey} is not YAML)`);
      continue;
    }
    if (isMap(doc)) values = mergeMaps(values, doc);
  }
  if (isMap(hr.spec?.values)) values = mergeMaps(values, hr.spec.values as Obj);
  return { values, missing, unreadable };
}

/** Helm's MergeMaps: maps merge key by key, anything else is replaced. */
export function mergeMaps(a: Obj, b: Obj): Obj {
  const out: Obj = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isMap(v) && isMap(out[k]) ? mergeMaps(out[k] as Obj, v) : v;
  return out;
}

/** Sets a dotted path (`instance.sync.path`, `\.` for a literal dot) to `value`, as targetPath does for maps. */
function setPath(values: Obj, dotted: string, value: string): Obj {
  const keys = dotted.split(/(?<!\\)\./).map((k) => k.replace(/\\\./g, '.'));
  const patch: Obj = {};
  let cur = patch;
  keys.forEach((k, i) => {
    if (i === keys.length - 1) cur[k] = value;
    else cur = cur[k] = {};
  });
  return mergeMaps(values, patch);
}
