// How standup names things in a cluster. An object has one reference type, `ObjRef`, and one string form, `refKey`
// (Flux's `Kind/namespace/name`), parsed back only by `parseRef`, for text that comes from outside (a flag, a Flux
// message, a problem's `object`). A Kustomization in the dependency graph is keyed differently, `namespace/name`
// (`ksKey`), the form Flux itself uses in dependsOn and its DependencyNotReady messages.

/**
 * One object in a cluster. `namespace` is null for a cluster-scoped object. `apiVersion` is present where an API call
 * needs it (it picks the endpoint, see ApiRef) and may be left out where the kind alone says what is meant (a Flux
 * source, a HelmRelease named in a message).
 */
export interface ObjRef {
  kind: string;
  namespace: string | null;
  name: string;
  apiVersion?: string;
}

/** An ObjRef of a namespaced object, whose namespace is always known (a Flux source, a HelmRelease). */
export type NamespacedRef = ObjRef & { namespace: string };

/** An ObjRef the API server can be asked about: its apiVersion names the endpoint. */
export type ApiRef = ObjRef & { apiVersion: string };

/** `Kind/namespace/name`, or `Kind/name` when cluster-scoped: the form Flux prints in dry-run and health-check messages. */
export const refKey = (r: Pick<ObjRef, 'kind' | 'namespace' | 'name'>): string =>
  r.namespace ? `${r.kind}/${r.namespace}/${r.name}` : `${r.kind}/${r.name}`;

/**
 * The inverse of refKey: `Kind/namespace/name`, or `Kind/name` for a cluster-scoped object (namespace null). Each part
 * is trimmed and must not be empty; anything else (one part, four or more, an empty part) is null.
 */
export function parseRef(text: string): ObjRef | null {
  const parts = text.split('/').map((p) => p.trim());
  if (parts.length < 2 || parts.length > 3 || parts.some((p) => p === '')) return null;
  const [kind, a, b] = parts as [string, string, string | undefined];
  return b === undefined ? { kind, namespace: null, name: a } : { kind, namespace: a, name: b };
}

/**
 * A Kustomization's key in the dependency graph, `namespace/name`: how Flux names one in dependsOn and in its
 * DependencyNotReady messages. Not an object reference (it has no kind); see refKey for those.
 */
export const ksKey = (namespace: string, name: string): string => `${namespace}/${name}`;

/** The inverse of ksKey; a key without `/` is a name in no namespace (a name given alone on the command line). */
export function parseKsKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** The API group of an apiVersion (`cdi.kubevirt.io/v1beta1` -> `cdi.kubevirt.io`, `v1` -> ``). */
export const groupOf = (apiVersion: string): string => {
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
};
