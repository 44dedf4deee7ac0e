import type { Readiness } from '../status/kustomization.js';
import { shortRevision } from '../status/revision.js';

/** A CRD the fallback in tiers.yaml provides, found by reading the configured manifests. */
export interface FallbackCrd {
  group: string;
  kind: string;
  name: string;
  file: string;
}

/** The message and next step for a tier that failed, with the deadlock diagnosis where the message allows it. */
export function explainFailure(tier: string, r: Readiness, fallback: readonly FallbackCrd[]): { message: string; hint: string } {
  const d = r.diagnosis;
  if (d?.type === 'missing-crd') {
    const entry = fallback.find((f) => f.group === d.group && f.kind === d.kind);
    const message =
      `${tier} is deadlocked on a second-order CRD: ${d.object} needs kind ${d.kind} (${d.group}/${d.version}), whose CRD ` +
      `does not exist. Flux dry-runs every object of the tier before applying any, so if the resource that makes an ` +
      `operator create this CRD is in the same tier, it is never applied and the tier never converges.`;
    const hint = entry
      ? `Unblock it with the CRD fallback: \`standup crds\` applies ${entry.name} (${entry.file}), then \`standup resume\`. ` +
        `For good, move ${d.object} to a tier that dependsOn ${tier} (\`standup check\` reports it as runtime-crd).`
      : `No CRD fallback in tiers.yaml provides ${d.kind}.${d.group}: add its CRD manifest under \`crds:\` in tiers.yaml, run ` +
        `\`standup crds\`, then \`standup resume\`; for good, move ${d.object} to a tier that dependsOn ${tier}.`;
    return { message, hint };
  }
  if (d?.type === 'health-check') {
    const laggards = d.objects.map((o) => `${o.object} (${o.status}${o.error ? `: ${o.error}` : ''})`);
    return {
      message: `${tier} failed its health check${d.after ? ` after ${d.after}` : ''}; still not healthy: ${laggards.join(', ') || 'unknown'}`,
      hint: `Inspect those objects (kubectl describe), fix them, then \`standup resume\`.`,
    };
  }
  return {
    message: `${tier} failed (${r.reason}): ${r.message}`,
    hint: `Fix the cause in the repository or the cluster, then \`standup resume\`; \`flux events --for Kustomization/${tier.split('/')[1]} -n ${tier.split('/')[0]}\` has the details.`,
  };
}

/** One status line for a tier, in the words `flux get ks` would use. */
export function statusLine(r: Readiness): string {
  switch (r.state) {
    case 'ready':
      return `Ready at ${shortRevision(r.revision)}`;
    case 'waiting':
      return r.waitingFor ? `waiting for ${r.waitingFor}` : r.message;
    case 'not-found':
      return 'not applied yet';
    default:
      return r.message || r.reason;
  }
}
