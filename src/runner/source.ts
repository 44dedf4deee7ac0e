import type { ClusterClient } from '../cluster/client.js';
import { sourceReadiness } from '../status/source.js';
import { shortRevision } from '../status/revision.js';
import { CliError, ExitCode } from '../model/errors.js';
import { InterruptedError, WaitTimeoutError } from './errors.js';
import type { Emit } from './events.js';
import type { LiveState } from './live-state.js';
import { requestReconcile } from './request-reconcile.js';

export interface SourceRefLike {
  kind: string;
  name: string;
  namespace: string;
}

const apiVersionOf = (_kind: string) => 'source.toolkit.fluxcd.io/v1';

/**
 * Requests a fetch of the root source (like `flux reconcile --with-source`) and waits until source-controller has
 * handled the request and holds an artifact: the revision every tier is then judged against.
 */
export async function refreshSource(o: {
  client: ClusterClient;
  live: LiveState;
  ref: SourceRefLike;
  emit: Emit;
  id: string;
  signal: AbortSignal;
  timeoutMs: number;
  dryRun?: boolean;
}): Promise<string | null> {
  const key = `${o.ref.kind}/${o.ref.namespace}/${o.ref.name}`;
  const ref = { apiVersion: apiVersionOf(o.ref.kind), kind: o.ref.kind, namespace: o.ref.namespace, name: o.ref.name };
  if (o.dryRun) {
    await requestReconcile(o, ref);
    return sourceReadiness(o.live.sources.get(key)).revision;
  }
  let value = '';
  const deadline = Date.now() + o.timeoutMs;
  let annotated = false;
  let last = '';
  for (;;) {
    if (o.signal.aborted) throw new InterruptedError();
    o.live.check();
    const src = o.live.sources.get(key);
    if (src && !annotated) {
      value = await requestReconcile(o, ref);
      annotated = true;
    }
    const r = sourceReadiness(src);
    const handled = (src?.status as { lastHandledReconcileAt?: string } | undefined)?.lastHandledReconcileAt === value;
    if (annotated && handled && r.state === 'ready') return r.revision;
    if (annotated && handled && r.state === 'failed') {
      throw new CliError('SOURCE_FAILED', `${key} failed to fetch: ${r.message}`, ExitCode.failure,
        r.hasArtifact ? `It still serves ${shortRevision(r.revision)}; fix the source (URL, credentials), then \`standup resume\`.` : 'Fix the source (URL, credentials, branch), then `standup resume`.');
    }
    if (annotated && handled && r.state === 'suspended') {
      throw new CliError('SOURCE_SUSPENDED', `${key} is suspended`, ExitCode.failure, `Run \`flux resume source ${o.ref.kind === 'GitRepository' ? 'git' : o.ref.kind.toLowerCase()} ${o.ref.name} -n ${o.ref.namespace}\`.`);
    }
    const line = src ? r.message || r.reason : 'not created yet';
    if (line !== last) {
      last = line;
      o.emit({ type: 'step-status', id: o.id, state: r.state, message: line });
    }
    if (Date.now() > deadline) throw new WaitTimeoutError(`${key} did not fetch a revision in time (${line})`, [key]);
    await o.live.changed(1000);
  }
}
