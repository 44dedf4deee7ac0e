import { z } from 'zod';

// The schema of tiers.yaml. Strict objects everywhere: an unknown key is almost always a typo that would otherwise
// silently disable a safety setting (a misspelled `resettable` or `context`).

const duration = z
  .string()
  .regex(/^(\d+(\.\d+)?(ms|s|m|h))+$/, 'a Go duration such as 90s, 10m or 1h30m');

const objectKey = z.string().regex(/^[a-z0-9.-]+\/[a-z0-9.-]+$/, 'namespace/name, e.g. flux-system/apps');

const secretEntry = z.strictObject({
  name: z.string().min(1),
  namespace: z.string().min(1).default('flux-system'),
  /** A Secret manifest file, applied as is (it must not be SOPS-encrypted). */
  file: z.string().optional(),
  /** A SOPS-encrypted Secret manifest, decrypted by `sops -d` in a subprocess and never written to disk. */
  sops: z.string().optional(),
});

const bootstrap = z.strictObject({
  /**
   * `already-running` when the Flux controllers run outside the cluster's own Deployments (the testbed);
   * otherwise a path holding the Flux install manifests (gotk-components.yaml).
   */
  install: z.union([z.literal('already-running'), z.strictObject({ path: z.string().min(1) })]).optional(),
  /** The directory with the root sync objects (gotk-sync.yaml): the GitRepository and root Kustomization. */
  sync: z.string().min(1).optional(),
  secrets: z.array(secretEntry).default([]),
});

const sourceRef = z.strictObject({
  kind: z.string().default('GitRepository'),
  name: z.string().default('flux-system'),
  namespace: z.string().default('flux-system'),
});

export const clusterSchema = z.strictObject({
  /** The entry path: the directory the root Kustomization reconciles (e.g. clusters/prod). */
  path: z.string().min(1),
  /** The kube context that must be current before standup writes anything. */
  context: z.string().min(1).optional(),
  /** Optional second pin: the API server URL the context must point at. */
  server: z.string().url().optional(),
  /** Only a resettable cluster may be torn down by `standup reset`. */
  resettable: z.boolean().default(false),
  /** Other clusters whose Kustomization graph must be identical to this one (`check` reports cluster-drift). */
  identicalTo: z.array(z.string()).default([]),
  /** The root sync source (the GitRepository the root Kustomization reads). */
  source: sourceRef.optional(),
  bootstrap: bootstrap.optional(),
  /** Per-cluster CRD fallback, applied in addition to the top-level one. */
  crds: z.array(z.string()).default([]),
});

const runtimeCrd = z.strictObject({
  /** The CRD's kind, e.g. StorageProfile. */
  kind: z.string().min(1),
  /** The CRD's group, e.g. cdi.kubevirt.io. */
  group: z.string().min(1),
  /** The kind whose resource makes the operator create this CRD, e.g. {kind: CDI, group: cdi.kubevirt.io}. */
  createdBy: z.strictObject({ kind: z.string().min(1), group: z.string().min(1) }).optional(),
});

export const configSchema = z.strictObject({
  version: z.literal(1).default(1),
  clusters: z.record(z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and -'), clusterSchema),
  /** Manifests (files or directories, relative to this file's directory) applied by `standup crds` to unstick a cluster. */
  crds: z.array(z.string()).default([]),
  /** Kinds whose CRDs a controller creates at runtime, declared explicitly. */
  runtimeCrds: z.array(runtimeCrd).default([]),
  /** CRDs installed some other way (by hand, a HelmRelease chart, the distribution): `plural.group` or a whole `group`. */
  externalCrds: z.array(z.string()).default([]),
  timeouts: z
    .strictObject({
      default: duration.default('10m'),
      tiers: z.record(objectKey, duration).default({}),
    })
    .default({ default: '10m', tiers: {} }),
  /** Kustomizations standup neither orders nor waits on (`namespace/name`). */
  exclude: z.array(objectKey).default([]),
});

export type StandupConfig = z.infer<typeof configSchema>;
export type ClusterConfig = z.infer<typeof clusterSchema>;
export type RuntimeCrd = z.infer<typeof runtimeCrd>;

/** The configuration a repository without tiers.yaml gets: nothing declared, clusters discovered. */
export const emptyConfig = (): StandupConfig => configSchema.parse({ clusters: {} });
