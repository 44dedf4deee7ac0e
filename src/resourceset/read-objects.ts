// What flux-operator reads back from a rendered template (fluxcd/pkg/ssa/utils ReadObject and ReadObjects, through
// Kubernetes' YAML decoder, which is YAML 1.1: `yes` and `on` are booleans, `0777` is octal). ReadObjects keeps the
// documents that have an apiVersion, a kind and a name (silently dropping the others and kustomize's own
// Kustomizations) and flattens Lists; ReadObject decodes the first document, which must have a kind.
import { yaml } from '../repo/lazy-yaml.js';

export type K8sObj = Record<string, unknown>;

function documents(text: string): unknown[] {
  const docs = yaml().parseAllDocuments(text, { version: '1.1', uniqueKeys: false });
  const out: unknown[] = [];
  for (const d of Array.isArray(docs) ? docs : [docs]) {
    const err = d.errors[0];
    if (err) {
      const line = err.linePos?.[0]?.line;
      throw new Error(`error converting YAML to JSON: yaml: ${line ? `line ${line}: ` : ''}${err.message.split('\n')[0]}`);
    }
    out.push(d.toJS({ maxAliasCount: -1 }));
  }
  return out;
}

const isObj = (v: unknown): v is K8sObj => typeof v === 'object' && v !== null && !Array.isArray(v);
const meta = (o: K8sObj) => (isObj(o.metadata) ? o.metadata : {});
const nonEmpty = (v: unknown) => typeof v === 'string' && v !== '';

/** ReadObjects: every Kubernetes object of a multi-document text. */
export function readObjects(text: string): K8sObj[] {
  const out: K8sObj[] = [];
  for (const d of documents(text)) {
    if (d === null || d === undefined) continue;
    if (!isObj(d)) throw new Error(`json: cannot unmarshal ${Array.isArray(d) ? 'array' : typeof d === 'string' ? 'string' : typeof d} into Go value of type map[string]interface {}`);
    if (typeof d.kind === 'string' && d.kind.endsWith('List') && Array.isArray(d.items)) {
      for (const item of d.items) if (isObj(item)) out.push(item);
      continue;
    }
    const isKustomization = d.kind === 'Kustomization' && typeof d.apiVersion === 'string' && d.apiVersion.startsWith('kustomize.config.k8s.io/');
    if (nonEmpty(d.apiVersion) && nonEmpty(d.kind) && nonEmpty(meta(d).name) && !isKustomization) out.push(d);
  }
  return out;
}

/** Go's io.EOF text, what the operator reports for an empty document (a message, not one of standup's error codes). */
const GO_EOF = 'EOF';

/** ReadObject: the first document, as one object. */
export function readObject(text: string): K8sObj {
  const d = documents(text).find((x) => x !== null && x !== undefined);
  if (d === undefined) throw new Error(GO_EOF);
  if (!isObj(d)) throw new Error(`json: cannot unmarshal ${Array.isArray(d) ? 'array' : typeof d} into Go value of type map[string]interface {}`);
  if (!nonEmpty(d.kind)) throw new Error(`Object 'Kind' is missing in '${JSON.stringify(d)}'`);
  return d;
}
