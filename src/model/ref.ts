/** `namespace/name`: how Flux itself names a Kustomization in dependsOn messages. */
export const keyOf = (namespace: string, name: string): string => `${namespace}/${name}`;

export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** `Kind/namespace/name`, or `Kind/name` when cluster-scoped: the form Flux prints in dry-run errors. */
export const objectId = (kind: string, namespace: string | null | undefined, name: string): string =>
  namespace ? `${kind}/${namespace}/${name}` : `${kind}/${name}`;

/** The API group of an apiVersion (`cdi.kubevirt.io/v1beta1` -> `cdi.kubevirt.io`, `v1` -> ``). */
export const groupOf = (apiVersion: string): string => {
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
};
