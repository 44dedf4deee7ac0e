import type { ProblemCode } from '../model/problem.js';

/** An example of the fix for each problem code: `standup explain CODE` and SARIF's rule help (Markdown). */
export const CODE_FIXES: Record<ProblemCode, string> = {
  cycle: `# apps depends on db, and db on apps: drop the entry that is not a real need
spec:
  dependsOn:
    - name: db        # kept
#   - name: apps      # removed from db's dependsOn`,
  'missing-dependency': `# the dependency lives in another namespace: say so
spec:
  dependsOn:
    - name: cert-manager
      namespace: cert-manager`,
  duplicate: `# two files define flux-system/apps: delete one of them, or rename it (metadata.name)`,
  'runtime-crd': `# a new tier after the one whose operator creates the CRD at runtime
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: platform-config-cdi, namespace: flux-system}
spec:
  dependsOn: [{name: platform-config}]
  path: ./platform-config-cdi      # the custom resources move here
# or, for CRDs installed outside Flux, in tiers.yaml: externalCrds: [cdi.kubevirt.io]`,
  'unresolved-substitution': `spec:
  postBuild:
    substitute:
      CLUSTER_DOMAIN: example.com     # define it, or write \${CLUSTER_DOMAIN:=example.com}`,
  'wait-dependency': `# a tier others depend on waits for what it applies to be healthy
spec:
  wait: true`,
  'cluster-drift': `# tiers.yaml: the overlays differ on purpose? then drop identicalTo
clusters:
  dev: {path: clusters/dev}          # identicalTo: [prod] removed`,
  'legacy-order': `# replace the hand-kept list with the derived one
eval "$(standup plan --cluster prod | grep '^TIER_ORDER=')"`,
  'yaml-invalid': `# fix the YAML at the line shown, e.g. an indentation or an unquoted colon
message: "value: with a colon"`,
  'path-missing': `spec:
  path: ./apps/production     # a folder that exists in the source at this revision`,
  'build-failed': `# run the same build to see kustomize's error, then fix the file it names
kubectl kustomize apps/production`,
  'external-source': `# tiers.yaml: name the root sync's source when the repository does not
clusters:
  prod: {path: clusters/prod, source: GitRepository/flux-system/flux-system}`,
  'config-invalid': `# tiers.yaml: the key named at file:line, spelled as the README lists it
clusters:
  dev: {path: clusters/dev, resettable: true}`,
  'helmrelease-order': `# the Kustomization of the dependent release also depends on the one that applies its dependency
spec:
  dependsOn:
    - name: databases          # the tier applying HelmRelease/databases/postgres`,
  'health-check-target': `spec:
  healthChecks:
    - {apiVersion: apps/v1, kind: Deployment, name: web, namespace: apps}   # the namespace it is created in`,
  'bootstrap-unreadable': `# fix the helmfile or manifest at the line shown, so what it installs before Flux is known`,
  'ignore-unmatched': `# tiers.yaml: remove the entry (or the standup.io/ignore annotation) the message names`,
  'ignore-invalid': `metadata:
  annotations:
    standup.io/ignore: "runtime-crd: installed by the NAS operator"   # CODE[,CODE]: reason`,
  'source-ref': `# nothing to fix when the other branch or tag is meant; to check what Flux applies, fetch that ref
git fetch origin release:release`,
  discovery: `# tiers.yaml: check the root discovery left out anyway
clusters:
  old: {path: clusters/old}`,
  'removed-api': `# the apiVersion Flux still serves (standup fix --code removed-api, or flux migrate)
apiVersion: kustomize.toolkit.fluxcd.io/v1      # was kustomize.toolkit.fluxcd.io/v1beta2`,
  'input-provider': `# tiers.yaml: the inputs a provider returns at run time, so the ResourceSet can be expanded
resourceSetInputs:
  flux-system/preview-prs:
    - {id: "42", branch: feat/x}`,
};
