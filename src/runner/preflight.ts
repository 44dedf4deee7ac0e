import type { ClusterClient } from '../cluster/client.js';
import { ClusterError } from '../cluster/errors.js';
import { assertContext } from '../cluster/guard.js';
import { CliError, ConfigError, ExitCode } from '../model/errors.js';
import type { Emit } from './events.js';
import type { RunTarget } from './inputs.js';

const FLUX_CRDS = ['kustomizations.kustomize.toolkit.fluxcd.io', 'gitrepositories.source.toolkit.fluxcd.io'] as const;

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/** Which of Flux's CRDs the cluster has. Also proves the API server answers (and that we may read CRDs). */
export async function fluxCrdsPresent(client: ClusterClient): Promise<{ present: string[]; missing: string[] }> {
  const found = await Promise.all(FLUX_CRDS.map((name) => client.find({ ...CRD, name })));
  return {
    present: FLUX_CRDS.filter((_, i) => found[i] !== undefined),
    missing: FLUX_CRDS.filter((_, i) => found[i] === undefined),
  };
}

/** The context guard: standup writes only to the cluster tiers.yaml pins (or that --context names). Pure. */
export function guard(t: Pick<RunTarget, 'name' | 'guard'>): void {
  const g = t.guard;
  if (!g.pinned) {
    throw new ConfigError('CONTEXT_UNPINNED', `cluster ${t.name} has no kube context pinned in tiers.yaml, so standup will not write to it`,
      `Add \`context: ${g.actualContext}\` under clusters.${t.name} in tiers.yaml (or pass --context ${g.actualContext} to confirm it for this run).`);
  }
  assertContext(g);
}

/** An unreachable API server, said promptly and plainly (the lead's case: a status that hung for a minute). */
export function unreachable(t: { guard: { actualContext: string; actualServer: string } }, e: ClusterError): CliError {
  return new CliError('API_UNREACHABLE', `cannot reach the API server of context ${t.guard.actualContext} (${t.guard.actualServer}): ${e.message}`, ExitCode.failure,
    'Check that the cluster is up and that your kubeconfig points at it (kubectl get --raw /readyz).');
}

/**
 * The context guard passes, the API answers, and Flux is there (or `up` installs it from the repository). Reads only.
 */
export async function preflight(t: RunTarget, mode: 'up' | 'resume' | 'crds' | 'reset', emit: Emit): Promise<string> {
  guard(t);
  let crds;
  try {
    crds = await fluxCrdsPresent(t.client);
  } catch (e) {
    if (e instanceof ClusterError) throw unreachable(t, e);
    throw e;
  }
  const ctx = `context ${t.guard.actualContext} (${t.guard.actualServer}) matches cluster ${t.name}`;
  const installs = mode === 'up' && t.bootstrap?.install != null;
  if (installs && crds.present.length > 0) {
    emit({ type: 'log', level: 'info', message: `Flux is already installed on ${t.guard.actualContext}; the install manifests are applied again (unchanged objects are not written)` });
  }
  if (!installs && crds.missing.length > 0) {
    throw new CliError('FLUX_MISSING', `Flux is not installed on ${t.guard.actualContext}: missing ${crds.missing.join(', ')}`, ExitCode.config,
      mode === 'up' ? 'Install Flux first, or set bootstrap.install: {path: <gotk-components.yaml>} in tiers.yaml so that `standup up` installs it.' : t.installsFlux ? 'The install did not finish: run `standup up`.' : 'Run `standup up` for a cold start.');
  }
  return `${ctx}; Flux CRDs ${crds.missing.length ? 'absent' : 'present'}`;
}
