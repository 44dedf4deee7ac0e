import type { ClusterClient } from '../cluster/client.js';
import { ClusterError, ClusterTimeoutError } from '../cluster/errors.js';
import { checkContext } from '../cluster/guard.js';
import { CliError, ConfigError } from '../model/errors.js';
import { CONNECT_TIMEOUT_MS, firstAnswer } from './first-answer.js';
import type { RunScope } from './lifecycle.js';
import type { RunTarget } from './run-target.js';

const FLUX_CRDS = ['kustomizations.kustomize.toolkit.fluxcd.io', 'gitrepositories.source.toolkit.fluxcd.io'] as const;

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

export interface FluxCrds {
  present: string[];
  missing: string[];
}

/** Which of Flux's CRDs the cluster has. Also proves the API server answers (and that we may read CRDs). */
export async function fluxCrdsPresent(client: ClusterClient): Promise<FluxCrds> {
  const found = await Promise.all(FLUX_CRDS.map((name) => client.find({ ...CRD, namespace: null, name })));
  return {
    present: FLUX_CRDS.filter((_, i) => found[i] !== undefined),
    missing: FLUX_CRDS.filter((_, i) => found[i] === undefined),
  };
}

/**
 * The context guard's verdict: standup writes only to the cluster tiers.yaml pins (or that --context names). The
 * refusal to throw, or null. Pure. The run enforces it in its preflight step, before any write; the CLI reads it only
 * to spare work the run would refuse (decrypting secrets, asking reset's question).
 */
export function contextRefusal(t: Pick<RunTarget, 'name' | 'guard'>): CliError | null {
  const g = t.guard;
  if (!g.pinned) {
    return new ConfigError('CONTEXT_UNPINNED', `cluster ${t.name} has no kube context pinned in tiers.yaml, so standup will not write to it`,
      `Add \`context: ${g.actualContext}\` under clusters.${t.name} in tiers.yaml (or pass --context ${g.actualContext} to confirm it for this run).`);
  }
  const c = checkContext(g);
  return c.ok ? null : c.error;
}

/** An unreachable API server, said promptly and plainly, not after a request's full timeout. */
export function unreachable(t: { guard: { actualContext: string; actualServer: string } }, e: ClusterError): CliError {
  // The client's own wording already names the server ("cannot reach the API server URL: ECONNREFUSED"): said once.
  const why = e.message.startsWith('cannot reach the API server ') ? e.message.replace(/^cannot reach the API server \S+: /, '') : e.message;
  return new CliError('API_UNREACHABLE', `cannot reach the API server of context ${t.guard.actualContext} (${t.guard.actualServer}): ${why}`, {
    hint: 'Check that the cluster is up and that your kubeconfig points at it (kubectl get --raw /readyz).',
  });
}

/**
 * The answer the CLI got while the repository loaded (RunTarget.fluxCrdsProbe), else a fresh one. A refused or failed
 * early question is asked again now (the server may be back), except a timeout: that one already waited its whole time.
 */
async function asked(t: RunTarget): Promise<FluxCrds> {
  try {
    const early = await t.fluxCrdsProbe;
    if (early) return early;
  } catch (e) {
    if (e instanceof ClusterTimeoutError) throw e;
  }
  return fluxCrdsPresent(t.client);
}

/**
 * The context guard passes, the API answers (within the connect timeout: see first-answer.ts), and Flux is there (or
 * `up` installs it from the repository). Reads only.
 */
export async function preflight(t: RunTarget, mode: 'up' | 'resume' | 'crds' | 'reset', s: Pick<RunScope, 'emit' | 'steps' | 'signal' | 'clock'>): Promise<string> {
  const refused = contextRefusal(t);
  if (refused) throw refused;
  let crds;
  try {
    crds = await firstAnswer(asked(t), {
      client: t.client,
      server: t.guard.actualServer,
      context: t.guard.actualContext,
      connectMs: t.timeouts.connectMs ?? CONNECT_TIMEOUT_MS,
      signal: s.signal,
      clock: s.clock,
      say: (line) => s.steps.status('preflight', 'waiting', line),
    });
  } catch (e) {
    if (e instanceof ClusterError) throw unreachable(t, e);
    throw e;
  }
  const ctx = `context ${t.guard.actualContext} (${t.guard.actualServer}) matches cluster ${t.name}`;
  const installs = mode === 'up' && t.bootstrap?.install != null;
  if (installs && crds.present.length > 0) {
    s.emit({ type: 'log', level: 'info', message: `Flux is already installed on ${t.guard.actualContext}; the install manifests are applied again (unchanged objects are not written)` });
  }
  // An up stopped in its install, before Flux's CRDs were all applied: resume applies the install manifests again.
  const finishesInstall = mode === 'resume' && t.installsFlux && t.bootstrap?.install != null && !t.bootstrap.instance;
  if (!installs && !finishesInstall && crds.missing.length > 0) {
    const charts = mode === 'up' ? (t.fluxChartInstalls ?? []) : [];
    throw new CliError('FLUX_MISSING', `Flux is not installed on ${t.guard.actualContext}: missing ${crds.missing.join(', ')}`, {
      hint: charts.length
        ? `This repository installs Flux through flux-operator's Helm charts (${charts.join('; ')}). Run that bootstrap first, then \`standup resume\`; or set bootstrap.install: {operator: FILE, instance: FILE} in tiers.yaml so that up installs them: operator may be that helmfile, a HelmRelease of the chart, the chart directory or .tgz (rendered with helm) or rendered manifests, instance the flux-instance release or its values file.`
        : mode === 'up' ? 'Install Flux first, or set bootstrap.install: {path: <gotk-components.yaml>} in tiers.yaml so that `standup up` installs it.' : t.installsFlux ? 'The install did not finish: run `standup up`.' : 'Run `standup up` for a cold start.',
    });
  }
  return `${ctx}; Flux CRDs ${crds.missing.length ? 'absent' : 'present'}`;
}
