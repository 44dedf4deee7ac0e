import type { ClusterClient } from '../cluster/client.js';
import { ClusterError } from '../cluster/errors.js';
import { CliError, ExitCode } from '../model/errors.js';
import type { Session } from './session.js';

export const FLUX_CRDS = ['kustomizations.kustomize.toolkit.fluxcd.io', 'gitrepositories.source.toolkit.fluxcd.io'] as const;

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/** Which of Flux's CRDs the cluster has. Also proves the API server answers (and that we may read CRDs). */
export async function fluxCrdsPresent(client: ClusterClient): Promise<{ present: string[]; missing: string[] }> {
  const found = await Promise.all(FLUX_CRDS.map((name) => client.find({ ...CRD, name })));
  return {
    present: FLUX_CRDS.filter((_, i) => found[i] !== undefined),
    missing: FLUX_CRDS.filter((_, i) => found[i] === undefined),
  };
}

/**
 * The API is reachable, the context guard passes, and Flux is installed (resume, crds) or, for `up` with an install
 * path, not yet installed. Reads only.
 */
export async function preflight(s: Session, mode: 'up' | 'resume' | 'crds' | 'reset'): Promise<string> {
  s.guard();
  let crds;
  try {
    crds = await fluxCrdsPresent(s.client);
  } catch (e) {
    if (e instanceof ClusterError) {
      throw new CliError('API_UNREACHABLE', `cannot reach the API server of context ${s.kube.context} (${s.kube.server}): ${e.message}`, ExitCode.failure,
        'Check that the cluster is up and that your kubeconfig points at it (kubectl get --raw /readyz).');
    }
    throw e;
  }
  const installPath = s.entry?.bootstrap?.install;
  const installs = mode === 'up' && installPath !== undefined && installPath !== 'already-running';
  if (installs && crds.present.length > 0) {
    throw new CliError('FLUX_PRESENT', `Flux is already installed on ${s.kube.context} (${crds.present.join(', ')})`, ExitCode.config,
      '`standup up` is for a cold start; to continue a cold start that stopped, run `standup resume`.');
  }
  if (!installs && mode !== 'up' && crds.missing.length > 0) {
    throw new CliError('FLUX_MISSING', `Flux is not installed on ${s.kube.context}: missing ${crds.missing.join(', ')}`, ExitCode.config,
      'Run `standup up` for a cold start.');
  }
  return `context ${s.kube.context} (${s.kube.server}) matches cluster ${s.name}; Flux CRDs ${crds.missing.length ? 'absent' : 'present'}`;
}
