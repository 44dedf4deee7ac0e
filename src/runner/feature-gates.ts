// The AdditiveCELDependencyCheck gate of kustomize-controller and helm-controller (both default off: a dependsOn
// readyExpr then replaces the Ready check; on, the Ready check runs after a true readyExpr too). What runs decides:
// the cluster's controller Deployment's `--feature-gates`; else what the repository sets (RunTarget.fluxGates);
// else the default, which standup says it assumed.
import type { ClusterClient } from '../cluster/client.js';
import { describeGate, gateInArgs, resolveGate, type GateSetting } from '../model/feature-gates.js';
import type { K8sObject } from '../model/k8s.js';

export const ADDITIVE_CEL = 'AdditiveCELDependencyCheck';

export interface AdditiveCel {
  kustomize: GateSetting;
  helm: GateSetting;
}

/** Whether any Kustomization or HelmRelease among these objects has a dependsOn readyExpr (the gate matters then). */
export const anyReadyExpr = (objects: readonly { kind: string; raw: unknown }[]): boolean =>
  objects.some((o) => (o.kind === 'Kustomization' || o.kind === 'HelmRelease') && ((o.raw as { spec?: { dependsOn?: { readyExpr?: unknown }[] } }).spec?.dependsOn ?? []).some((d) => typeof d?.readyExpr === 'string' && d.readyExpr !== ''));

/** The gate as the cluster's Flux Deployments set it (one LIST of Deployments labelled part-of=flux); null each where not read. */
export async function liveGates(client: ClusterClient, gate: string): Promise<Record<'kustomize-controller' | 'helm-controller', GateSetting | null>> {
  const out: Record<'kustomize-controller' | 'helm-controller', GateSetting | null> = { 'kustomize-controller': null, 'helm-controller': null };
  let items: K8sObject[] = [];
  try {
    items = (await client.list({ apiVersion: 'apps/v1', kind: 'Deployment' }, { labelSelector: 'app.kubernetes.io/part-of=flux' })).items;
  } catch {
    return out; // not readable (RBAC, the API away): the repository's word or the default, said as such
  }
  for (const d of items) {
    const name = d.metadata?.name;
    if (name !== 'kustomize-controller' && name !== 'helm-controller') continue;
    const containers = ((d as { spec?: { template?: { spec?: { containers?: { args?: unknown[] }[] } } } }).spec?.template?.spec?.containers ?? []);
    let on: boolean | null = null;
    for (const c of containers) on = gateInArgs(c.args ?? [], gate) ?? on;
    // A Deployment that sets nothing runs the default: that is read, not assumed.
    out[name] = { on: on ?? false, from: `the cluster's Deployment ${d.metadata?.namespace}/${name}${on === null ? ', which does not set it (default off)' : ''}` };
  }
  return out;
}

/** Both controllers' gate: the cluster's, else the repository's, else off (assumed). */
export async function additiveCel(client: ClusterClient, repo: { kustomize: GateSetting | null; helm: GateSetting | null } | undefined): Promise<AdditiveCel> {
  const live = await liveGates(client, ADDITIVE_CEL);
  return {
    kustomize: resolveGate(live['kustomize-controller'], repo?.kustomize ?? null, false),
    helm: resolveGate(live['helm-controller'], repo?.helm ?? null, false),
  };
}

/** One line for the run's log: what standup takes each gate to be, and from where. */
export const describeAdditiveCel = (g: AdditiveCel): string =>
  `readyExpr: ${describeGate(ADDITIVE_CEL, 'kustomize-controller', g.kustomize)}; ${describeGate(ADDITIVE_CEL, 'helm-controller', g.helm)}`;
