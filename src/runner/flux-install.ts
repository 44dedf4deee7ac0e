// The waiting half of `bootstrap.install: {path}`: after the install manifests are applied, the controllers'
// Deployments must become Available (from their real pods) before the sync can do anything. On failure it names the
// Deployment and its pods' reason (ErrImageNeverPull, ImagePullBackOff, CrashLoopBackOff, a failing readiness
// probe), in kubelet's words.
import type { ClusterClient, K8sObject } from '../cluster/client.js';
import { ExitCode } from '../model/errors.js';
import { deploymentSummary, podReason, type LiveDeployment, type LivePod } from '../status/workload.js';
import { InterruptedError } from './errors.js';
import { CliError } from '../model/errors.js';
import type { Emit } from './events.js';

/** The install did not come up: exit 1, with the Deployments and pods that say why. */
export class FluxInstallError extends CliError {
  constructor(message: string, hint: string) {
    super('FLUX_INSTALL_FAILED', message, ExitCode.failure, hint);
    this.name = 'FluxInstallError';
  }
}

/** kubelet reasons that do not fix themselves: an image that is not there, a container that keeps crashing. */
const STUCK = /^(ErrImageNeverPull|ErrImagePull|ImagePullBackOff|InvalidImageName|CrashLoopBackOff|CreateContainerConfigError|CreateContainerError|RunContainerError)/;

const available = (d: LiveDeployment & { metadata: { generation?: number }; status?: { observedGeneration?: number } }) =>
  d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') === true &&
  (d.status?.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
  (d.status?.readyReplicas ?? 0) >= (d.spec?.replicas ?? 1);

export interface WaitInstallOptions {
  client: ClusterClient;
  /** The install manifests as applied; their Deployments are waited on. */
  objects: readonly K8sObject[];
  emit: Emit;
  id: string;
  file: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** A pod stuck for this long on a reason in STUCK fails the install without waiting out the timeout. */
  stuckMs?: number;
  pollMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const aborted = (signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

/** Resolves once every Deployment of the install is Available; the message names them. */
export async function waitFluxInstall(o: WaitInstallOptions): Promise<string> {
  const deployments = o.objects.filter((x) => x.kind === 'Deployment' && x.apiVersion.startsWith('apps/'));
  if (deployments.length === 0) return 'no Deployments in the install';
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const start = now();
  const timeoutMs = o.timeoutMs ?? 5 * 60_000;
  const stuckMs = o.stuckMs ?? 15_000;
  const stuckSince = new Map<string, number>();
  let last = '';
  for (;;) {
    if (o.signal?.aborted) throw new InterruptedError();
    const lines: string[] = [];
    const stuck: string[] = [];
    let ready = 0;
    for (const d of deployments) {
      const live = (await o.client.find({ apiVersion: d.apiVersion, kind: 'Deployment', name: d.metadata.name, namespace: d.metadata.namespace })) as unknown as LiveDeployment | undefined;
      if (!live) {
        lines.push(`Deployment/${d.metadata.namespace}/${d.metadata.name}: not found`);
        continue;
      }
      if (available(live as never)) {
        ready++;
        continue;
      }
      const selector = Object.entries(live.spec?.selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`).join(',');
      const pods = (selector ? (await o.client.list({ apiVersion: 'v1', kind: 'Pod', namespace: d.metadata.namespace }, { labelSelector: selector })).items : []) as unknown as LivePod[];
      const summary = deploymentSummary(live, pods);
      lines.push(summary);
      const key = `${d.metadata.namespace}/${d.metadata.name}`;
      if (pods.length > 0 && pods.every((p) => STUCK.test(podReason(p) ?? ''))) {
        const since = stuckSince.get(key) ?? now();
        stuckSince.set(key, since);
        if (now() - since >= stuckMs) stuck.push(summary);
      } else {
        stuckSince.delete(key);
      }
    }
    if (ready === deployments.length) return `${ready} controller Deployment(s) Available`;
    const status = `${ready}/${deployments.length} controller Deployments Available; ${lines.join('; ')}`;
    if (status !== last) {
      last = status;
      o.emit({ type: 'step-status', id: o.id, state: 'progressing', message: status });
    }
    const hint =
      `Check the controller images named in ${o.file}: every node must have them or be able to pull them ` +
      `(kubectl -n ${deployments[0]!.metadata.namespace} describe pod), then \`standup resume\`.`;
    if (stuck.length) throw new FluxInstallError(`Flux install from ${o.file} cannot start: ${stuck.join('; ')}`, hint);
    if (now() - start > timeoutMs) throw new FluxInstallError(`Flux install from ${o.file}: not Available after ${Math.round(timeoutMs / 1000)} s: ${lines.join('; ')}`, hint);
    await Promise.race([sleep(o.pollMs ?? 1000), aborted(o.signal)]);
  }
}
