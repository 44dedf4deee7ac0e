/** Any Kubernetes object as the API server returns it (plain JSON, no typed model). */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: K8sMeta;
  [field: string]: unknown;
}

export interface K8sMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  deletionTimestamp?: string;
  [field: string]: unknown;
}

/**
 * A parsed YAML or JSON object whose shape is not checked yet: what the repository readers walk before they build
 * typed values. `any` on purpose, so a read of a nested field needs no cast; what leaves a reader is typed.
 */
export type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
