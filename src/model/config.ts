// zod/v4 as a namespace, not zod's `z` export: the bundler then keeps only what this schema uses (140 KB of zod
// instead of 590 KB with every locale), which every command that reads tiers.yaml compiles at start.
import * as z from 'zod/v4';
import { PROBLEM_CODES } from './problem.js';
import { PLATFORMS } from './platforms.js';

// The schema of tiers.yaml. Strict objects everywhere: an unknown key is almost always a typo that would otherwise
// silently disable a safety setting (a misspelled `resettable` or `context`).

const duration = z
  .string()
  .regex(/^(\d+(\.\d+)?(ms|s|m|h))+$/, 'a Go duration such as 90s, 10m or 1h30m');

const objectKey = z.string().regex(/^[a-z0-9.-]+\/[a-z0-9.-]+$/, 'namespace/name, e.g. flux-system/apps');

const secretEntry = z.strictObject({
  name: z.string().min(1).describe('The Secret\'s name.'),
  namespace: z.string().min(1).default('flux-system').describe('The Secret\'s namespace.'),
  file: z.string().optional().describe('A Secret manifest file, applied as is (it must not be SOPS-encrypted).'),
  sops: z.string().optional()
    .describe('A SOPS-encrypted Secret manifest, decrypted by `sops -d` in a subprocess and never written to disk.'),
});

const bootstrap = z.strictObject({
  install: z
    .union([
      z.literal('already-running'),
      z.strictObject({ path: z.string().min(1) }),
      z.strictObject({
        operator: z.string().min(1).describe('flux-operator\'s install manifests (a file or a directory of YAML): its CRDs, RBAC and Deployment, rendered (a Helm chart, HelmRelease or helmfile is refused: commit `helm template` output or the release\'s install.yaml).'),
        instance: z.string().min(1).describe('The file holding the FluxInstance (flux-system/flux) the operator installs Flux from, with its spec.sync; or a HelmRelease of the flux-instance chart (values inline or from ConfigMaps in the same file), or that chart\'s values file, rendered as the chart renders its FluxInstance.'),
      }),
    ])
    .optional()
    .describe('`already-running` when the Flux controllers run outside the cluster\'s own Deployments (the testbed); {path: …} holding the Flux install manifests (gotk-components.yaml); or {operator: …, instance: …}: flux-operator\'s install manifests and the FluxInstance it installs Flux and the root sync from.'),
  sync: z.string().min(1).optional()
    .describe('The directory with the root sync objects (gotk-sync.yaml): the GitRepository and root Kustomization. Not used with install: {operator, instance}: the FluxInstance\'s spec.sync is the root sync.'),
  secrets: z.array(secretEntry).default([])
    .describe('Secrets applied before the root sync (SOPS keys, git credentials), from memory only.'),
});

const sourceRef = z.strictObject({
  kind: z.string().default('GitRepository').describe('The source kind.'),
  name: z.string().default('flux-system').describe('The source name.'),
  namespace: z.string().default('flux-system').describe('The source namespace.'),
});

export const clusterSchema = z.strictObject({
  path: z.string().min(1)
    .describe('The entry path: the directory the root Kustomization reconciles (e.g. clusters/prod).'),
  context: z.string().min(1).optional()
    .describe('The kube context that must be current before standup writes anything.'),
  server: z.string().url().optional().describe('Optional second pin: the API server URL the context must point at.'),
  resettable: z.boolean().default(false).describe('Only a resettable cluster may be torn down by `standup reset`.'),
  identicalTo: z.array(z.string()).default([])
    .describe('Other clusters whose Kustomization graph must be identical to this one (`check` reports cluster-drift).'),
  source: sourceRef.optional().describe('The root sync source (the GitRepository the root Kustomization reads).'),
  sourceRoot: z.string().optional()
    .describe('The folder of this repository that the root source\'s artifact holds, which spec.paths are relative to: for an OCI artifact pushed from a sub-folder (`flux push artifact --path=./kubernetes`: sourceRoot: kubernetes). Default: inferred (the repository root, or the folder the root sync says).'),
  bootstrap: bootstrap.optional().describe('How `standup up` installs Flux and the root sync on this cluster.'),
  crds: z.array(z.string()).default([]).describe('Per-cluster CRD fallback, applied in addition to the top-level one.'),
});

const runtimeCrd = z.strictObject({
  kind: z.string().min(1).describe('The CRD\'s kind, e.g. StorageProfile.'),
  group: z.string().min(1).describe('The CRD\'s group, e.g. cdi.kubevirt.io.'),
  createdBy: z.strictObject({ kind: z.string().min(1), group: z.string().min(1) }).optional()
    .describe('The kind whose resource makes the operator create this CRD, e.g. {kind: CDI, group: cdi.kubevirt.io}.'),
});

const ignoreEntry = z
  .strictObject({
    code: z.enum(PROBLEM_CODES).describe('The problem code to suppress, e.g. runtime-crd.'),
    object: z.string().min(1).optional()
      .describe('Only problems about this object: Kind/namespace/name (or Kind/name).'),
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
  version: z.literal(1).default(1).describe('The format of this file: 1.'),
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
  crds: z.array(z.string()).default([])
    .describe('Manifests (files or directories, relative to this file\'s directory) applied by `standup crds` to unstick a cluster.'),
  runtimeCrds: z.array(runtimeCrd).default([])
    .describe('Kinds whose CRDs a controller creates at runtime, declared explicitly.'),
  externalCrds: z.array(z.string()).default([])
    .describe('CRDs installed some other way (by hand, a HelmRelease chart, the distribution): `plural.group` or a whole `group`.'),
  timeouts: z
    .strictObject({
      default: duration.default('10m').describe('How long standup waits for a tier to be Ready (a Go duration).'),
      tiers: z.record(objectKey, duration).default({}).describe('Per-tier waits, by namespace/name.'),
    })
    .default({ default: '10m', tiers: {} })
    .describe('How long standup waits on each tier.'),
  exclude: z.array(objectKey).default([])
    .describe('Kustomizations standup neither orders nor waits on (`namespace/name`).'),
  localSources: z
    .record(z.string().min(1), z.string().min(1))
    .default({})
    .describe('Sources read from a directory here instead of being left out as external: `KIND/NAMESPACE/NAME` (one source) or a URL (every source with that url) to a directory, relative to this file\'s directory, holding that source\'s artifact (a clone of the other repository). As `--local-source`.'),
  resourceSetInputs: z
    .record(objectKey, z.array(z.record(z.string(), z.unknown())))
    .default({})
    .describe('The input sets a ResourceSetInputProvider (`namespace/name`) exports, for providers that read an API at run time (GitHub pull requests, OCI tags, ...): each a map of input keys; the provider\'s defaultValues fill the keys a set does not give.'),
});

export type StandupConfig = z.infer<typeof configSchema>;
export type ClusterConfig = z.infer<typeof clusterSchema>;
export type RuntimeCrd = z.infer<typeof runtimeCrd>;

/** The configuration a repository without tiers.yaml gets: nothing declared, clusters discovered. */
export const emptyConfig = (): StandupConfig => configSchema.parse({ clusters: {} });
