// Flux status shapes as the API returns them (plain JSON), and condition lookup. Pure.

/** A metav1.Condition. `observedGeneration` is the generation the controller saw when it set the condition. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

export interface LiveMeta {
  name: string;
  namespace?: string;
  generation?: number;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
}

/** A live kustomize.toolkit.fluxcd.io/v1 Kustomization, as far as readiness needs it. */
export interface LiveKustomization {
  metadata: LiveMeta;
  spec?: {
    suspend?: boolean;
    sourceRef?: { kind?: string; name?: string; namespace?: string };
    dependsOn?: { name: string; namespace?: string; readyExpr?: string }[];
    [k: string]: unknown;
  };
  status?: {
    observedGeneration?: number;
    conditions?: Condition[];
    lastAppliedRevision?: string;
    lastAttemptedRevision?: string;
    lastHandledReconcileAt?: string;
    /** What it applied: `{id: "<ns>_<name>_<group>_<Kind>", v: "<version>"}` per object. */
    inventory?: { entries?: { id: string; v?: string }[] };
    [k: string]: unknown;
  };
}

/** A live source.toolkit.fluxcd.io/v1 GitRepository (or OCIRepository/Bucket: same status shape). */
export interface LiveSource {
  kind?: string;
  metadata: LiveMeta;
  spec?: { suspend?: boolean; [k: string]: unknown };
  status?: {
    observedGeneration?: number;
    conditions?: Condition[];
    artifact?: { revision?: string; digest?: string; lastUpdateTime?: string };
    [k: string]: unknown;
  };
}

export const findCondition = (conds: readonly Condition[] | undefined, type: string): Condition | undefined =>
  conds?.find((c) => c.type === type);

/** The `reconcile.fluxcd.io/requestedAt` annotation that asks a Flux controller to reconcile now. */
export const REQUESTED_AT = 'reconcile.fluxcd.io/requestedAt';
