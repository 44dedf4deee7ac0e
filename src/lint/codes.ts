import type { ProblemCode } from '../model/problem.js';

/** What each problem code means and what to do about it: `check --help`, SARIF rule help, the README. */
export const CODE_HELP: Record<ProblemCode, { summary: string; help: string }> = {
  cycle: { summary: 'Kustomizations depend on each other in a cycle', help: 'Flux never starts any Kustomization on a dependsOn cycle. Remove one dependsOn entry of the path shown.' },
  'missing-dependency': { summary: 'A dependsOn names a Kustomization the cluster does not have', help: 'Flux waits forever on a dependsOn target that does not exist. Fix the name or namespace, or add the Kustomization.' },
  duplicate: { summary: 'The same Kustomization is defined twice', help: 'Two builds apply the same namespace/name; the last apply wins and prune fights. Delete one definition.' },
  'runtime-crd': { summary: "A custom resource's CRD may not exist at its tier's dry-run", help: "Flux dry-runs every object of a tier before applying any. A deadlock (error) never converges: the installer runs in the same tier or after it. A race (warning) converges only after retries: add the dependsOn named. Declare CRDs installed outside git in tiers.yaml (externalCrds, platform), or read from the bootstrap." },
  'unresolved-substitution': { summary: 'A ${VAR} that postBuild substitution cannot resolve', help: "Flux's strict substitution fails the build on an undefined variable. Define it in postBuild.substitute or substituteFrom, or give it a default (${VAR:=x})." },
  'wait-dependency': { summary: 'A tier others depend on does not wait for health', help: 'Without wait: true or healthChecks a tier is Ready as soon as it has applied, so dependents may start before its workloads run. Add spec.wait: true.' },
  'cluster-drift': { summary: 'Clusters declared identical have different graphs', help: 'tiers.yaml identicalTo says these clusters share one graph; the differences are listed. Align the overlays or drop identicalTo.' },
  'legacy-order': { summary: 'A hand-kept TIER_ORDER disagrees with the graph', help: 'The script lists tiers in an order the dependsOn graph does not allow, or misses tiers. Use `standup plan` instead of the list.' },
  'yaml-invalid': { summary: 'A YAML file does not parse', help: 'Fix the YAML at the position shown; kustomize and Flux reject the file.' },
  'path-missing': { summary: 'A Kustomization spec.path does not exist', help: 'Flux fails the Kustomization when its path is missing from the source. Fix spec.path.' },
  'build-failed': { summary: 'kustomize build of a tier failed', help: 'Flux would fail the same build. The message is kustomize\'s; fix the file it names.' },
  'external-source': { summary: 'A tier reads a source that is not this repository', help: 'standup cannot expand it, so nothing inside it is checked. Pass --source or declare the source in tiers.yaml.' },
  'config-invalid': { summary: 'tiers.yaml is invalid', help: 'Fix the key named at file:line; every key is described in the README.' },
  'helmrelease-order': { summary: 'A HelmRelease dependsOn crosses Kustomizations without a Kustomization dependsOn', help: "helm-controller waits for the HelmRelease it depends on, but the tier that applies it may run first or never: a hidden order (warning) the tier graph does not show, or a deadlock (error) when the target's tier depends on this one. Add the Kustomization dependsOn named." },
  'health-check-target': { summary: 'A healthChecks entry names an object no tier creates', help: 'Flux waits for that object until the timeout on every reconcile. Fix the name or namespace; a near match is named.' },
  'bootstrap-unreadable': { summary: 'A bootstrap file could not be read', help: 'A helmfile or manifest applied before Flux does not parse; what it installs is unknown, so CRD findings may be wrong.' },
  'ignore-unmatched': { summary: 'A suppression matches no problem', help: 'Remove the tiers.yaml ignore entry or the standup.io/ignore annotation, or fix what it names.' },
  'ignore-invalid': { summary: 'A standup.io/ignore annotation is malformed', help: 'Write it as "CODE[,CODE]: reason" with known codes and a reason.' },
};
