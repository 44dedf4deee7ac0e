import { z } from 'zod';
import { PROBLEM_CODES } from './problem.js';
import { PLATFORMS } from './platforms.js';

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

const ignoreEntry = z
  .strictObject({
    code: z.enum(PROBLEM_CODES).describe('The problem code to suppress, e.g. runtime-crd.'),
    object: z.string().min(1).optional().describe('Only problems about this object: Kind/namespace/name (or Kind/name).'),
    tier: z.string().min(1).optional().describe('Only problems in this tier (Kustomization namespace/name).'),
    group: z.string().min(1).optional().describe('Only runtime-crd problems about this CRD API group.'),
    cluster: z.string().min(1).optional().describe('Only problems of this cluster.'),
    reason: z
      .string({ error: 'a reason is required: say why this finding does not apply (it is shown in the summary)' })
      .trim()
      .min(1, 'a reason is required: say why this finding does not apply (it is shown in the summary)')
      .describe('Why the finding does not apply; required, and kept with the suppression.'),
  })
  .describe('One suppressed finding (or class of findings), with its reason. One that matches nothing is itself a warning.');

export const configSchema = z.strictObject({
  version: z.literal(1).default(1),
  /** Clusters by name. Optional: without it, clusters are discovered from gotk-sync.yaml or a FluxInstance. */
  clusters: z
    .record(z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and -'), clusterSchema)
    .default({})
    .describe('Clusters by name; without it they are discovered (flux-system/gotk-sync.yaml, a FluxInstance).'),
  /** The Kubernetes distribution(s) the clusters run on: each serves CRD groups of its own (talos: talos.dev). */
  platform: z
    .union([z.enum(PLATFORMS), z.array(z.enum(PLATFORMS))])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .optional()
    .describe(`The distribution the clusters run on (${PLATFORMS.join(', ')}): its own CRD groups count as installed before Flux.`),
  /** Findings `check` should not report, each with its reason (`standup.io/ignore` does the same on an object). */
  ignore: z.array(ignoreEntry).default([]).describe('Suppressed findings, each with a required reason.'),
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
