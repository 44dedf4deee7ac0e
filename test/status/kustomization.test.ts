import { describe, expect, it } from 'vitest';
import type { Condition, LiveKustomization } from '../../src/status/conditions.js';
import { kustomizationReadiness } from '../../src/status/kustomization.js';

const REV = 'main@sha1:5c6a8ee0b7d6e1c2a3f4b5c6d7e8f9a0b1c2d3e4';
const OLD = 'main@sha1:0123456789abcdef0123456789abcdef01234567';

/** A Kustomization as kustomize-controller leaves it; `gen` is metadata.generation. */
function ks(o: { gen?: number; observed?: number; conds?: Condition[]; applied?: string; suspend?: boolean } = {}): LiveKustomization {
  return {
    metadata: { name: 'apps', namespace: 'flux-system', generation: o.gen ?? 2 },
    spec: { suspend: o.suspend, sourceRef: { kind: 'GitRepository', name: 'flux-system' } },
    status: { observedGeneration: o.observed ?? o.gen ?? 2, conditions: o.conds ?? [], lastAppliedRevision: o.applied },
  };
}
const ready = (status: string, reason: string, message: string, observedGeneration = 2): Condition => ({ type: 'Ready', status, reason, message, observedGeneration });

describe('kustomizationReadiness', () => {
  it.each([
    ['Ready=True at the current generation is ready', ks({ conds: [ready('True', 'ReconciliationSucceeded', `Applied revision: ${REV}`)], applied: REV }), {}, 'ready', 'ReconciliationSucceeded'],
    ['Ready=True at the source revision is ready', ks({ conds: [ready('True', 'ReconciliationSucceeded', `Applied revision: ${REV}`)], applied: REV }), { sourceRevision: REV }, 'ready', 'ReconciliationSucceeded'],
    ['Ready=True at an older revision than the source is stale', ks({ conds: [ready('True', 'ReconciliationSucceeded', `Applied revision: ${OLD}`)], applied: OLD }), { sourceRevision: REV }, 'stale', 'StaleRevision'],
    ['Ready=True for an older generation is progressing, not ready', ks({ gen: 3, observed: 2, conds: [ready('True', 'ReconciliationSucceeded', 'Applied revision: x')] }), {}, 'progressing', 'StaleGeneration'],
    ['a suspended Kustomization is suspended whatever its Ready says', ks({ suspend: true, conds: [ready('True', 'ReconciliationSucceeded', 'Applied revision: x')] }), {}, 'suspended', 'Suspended'],
    ['no Ready condition yet is progressing (flux get: waiting to be reconciled)', ks({ observed: -1, conds: [] }), {}, 'progressing', 'NotReconciled'],
    [
      'Ready=Unknown during a reconcile (the flicker of every interval) is progressing, not a failure',
      ks({ conds: [ready('Unknown', 'Progressing', 'Reconciliation in progress'), { type: 'Reconciling', status: 'True', reason: 'Progressing', message: `Running health checks for revision ${REV} with a timeout of 4m30s` }] }),
      {},
      'progressing',
      'Progressing',
    ],
    [
      'DependencyNotReady waits for the dependency named in the message',
      ks({ observed: -1, conds: [ready('False', 'DependencyNotReady', "dependency 'flux-system/infra-controllers' is not ready")] }),
      {},
      'waiting',
      'DependencyNotReady',
    ],
    [
      'a dependency behind on the shared source revision is waiting too',
      ks({ conds: [ready('False', 'DependencyNotReady', "dependency 'flux-system/platform' revision is not up to date")] }),
      {},
      'waiting',
      'DependencyNotReady',
    ],
    [
      'ArtifactFailed while the source has no artifact yet waits for the source',
      ks({ observed: -1, conds: [ready('False', 'ArtifactFailed', 'Source artifact not found, retrying in 30s')] }),
      {},
      'waiting',
      'ArtifactFailed',
    ],
    [
      'ArtifactFailed for a path missing from the repository fails',
      ks({ conds: [ready('False', 'ArtifactFailed', 'kustomization path not found: stat /tmp/kustomization-1/clusters/nope: no such file or directory')] }),
      {},
      'failed',
      'ArtifactFailed',
    ],
    [
      'the missing-CRD dry-run failure fails fast (the second-order CRD deadlock)',
      ks({ observed: -1, conds: [ready('False', 'ReconciliationFailed', 'StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"\n')] }),
      {},
      'failed',
      'ReconciliationFailed',
    ],
    [
      'a dry-run rejected as Invalid fails fast',
      ks({ conds: [ready('False', 'ReconciliationFailed', 'Deployment/apps/web dry-run failed (Invalid): Deployment.apps "web" is invalid: spec.template.spec.containers[0].image: Required value\n')] }),
      {},
      'failed',
      'ReconciliationFailed',
    ],
    [
      'a webhook without endpoints during a cold start is progressing (KC retries it)',
      ks({ observed: -1, conds: [ready('False', 'ReconciliationFailed', 'Certificate/infra/wildcard dry-run failed (InternalError): Internal error occurred: failed calling webhook "webhook.cert-manager.io": failed to call webhook: Post "https://cert-manager-webhook.cert-manager.svc:443/validate?timeout=30s": no endpoints available for service "cert-manager-webhook"\n')] }),
      {},
      'progressing',
      'ReconciliationFailed',
    ],
    [
      'BuildFailed (strict postBuild substitution) fails fast',
      ks({ conds: [ready('False', 'BuildFailed', `post build failed for 'apps_v1_Deployment/web': envsubst error: variable substitution failed: variable not set (strict mode): "cluster_domain"`)] }),
      {},
      'failed',
      'BuildFailed',
    ],
    [
      'HealthCheckFailed fails fast with the objects still in progress',
      ks({ conds: [ready('False', 'HealthCheckFailed', "health check failed after 4m30.02s: timeout waiting for: [Deployment/apps/web status: 'InProgress']")] }),
      {},
      'failed',
      'HealthCheckFailed',
    ],
    [
      'Stalled=True (InvalidCELExpression) is terminal',
      ks({
        conds: [
          ready('False', 'InvalidCELExpression', 'Reconciliation failed terminally due to configuration error: failed to evaluate dependency infra: …'),
          { type: 'Stalled', status: 'True', reason: 'InvalidCELExpression', message: 'Reconciliation failed terminally due to configuration error: failed to evaluate dependency infra: …' },
        ],
      }),
      {},
      'failed',
      'InvalidCELExpression',
    ],
    [
      'AccessDenied for a blocked cross-namespace sourceRef is terminal',
      ks({ conds: [ready('False', 'AccessDenied', "can't access 'GitRepository/other/repo', cross-namespace references have been blocked"), { type: 'Stalled', status: 'True', reason: 'AccessDenied' }] }),
      {},
      'failed',
      'AccessDenied',
    ],
    [
      'a failure recorded for an older generation is progressing (KC has not seen the new spec)',
      ks({ gen: 4, observed: 3, conds: [ready('False', 'BuildFailed', 'kustomize build failed: …', 3)] }),
      {},
      'progressing',
      'StaleGeneration',
    ],
    ['PruneFailed is retried by KC: progressing', ks({ conds: [ready('False', 'PruneFailed', 'ConfigMap/apps/old delete failed: …')] }), {}, 'progressing', 'PruneFailed'],
    ['a missing object is not-found', undefined, {}, 'not-found', 'NotFound'],
  ] as const)('%s', (_name, input, opts, state, reason) => {
    const r = kustomizationReadiness(input, opts);
    expect(r.state).toBe(state);
    expect(r.reason).toBe(reason);
  });

  it('keeps Flux message and reports lastAppliedRevision', () => {
    const r = kustomizationReadiness(ks({ conds: [ready('True', 'ReconciliationSucceeded', `Applied revision: ${REV}`)], applied: REV }));
    expect(r).toEqual({ state: 'ready', reason: 'ReconciliationSucceeded', message: `Applied revision: ${REV}`, revision: REV });
  });

  it('parses the dependency out of DependencyNotReady', () => {
    const r = kustomizationReadiness(ks({ conds: [ready('False', 'DependencyNotReady', "dependency 'flux-system/infra-controllers' is not ready")] }));
    expect(r.waitingFor).toBe('flux-system/infra-controllers');
  });

  it('falls back to the dependsOn keys when the message names no dependency', () => {
    const r = kustomizationReadiness(ks({ conds: [ready('False', 'DependencyNotReady', 'Dependencies do not meet ready condition, retrying in 30s')] }), {
      dependencyKeys: ['flux-system/infra'],
    });
    expect(r.waitingFor).toBe('flux-system/infra');
  });

  it('waits on the sourceRef for a missing artifact', () => {
    const r = kustomizationReadiness(ks({ conds: [ready('False', 'ArtifactFailed', 'Source artifact not found, retrying in 30s')] }));
    expect(r.waitingFor).toBe('GitRepository/flux-system/flux-system');
  });

  it('attaches the deadlock diagnosis to a missing-CRD failure, and trims the change-set newline', () => {
    const r = kustomizationReadiness(
      ks({ conds: [ready('False', 'ReconciliationFailed', 'StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"\n')] }),
    );
    expect(r.message).toBe('StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"');
    expect(r.diagnosis).toEqual({ type: 'missing-crd', kind: 'StorageProfile', group: 'cdi.kubevirt.io', version: 'v1beta1', object: 'StorageProfile/longhorn' });
  });
});

describe('a dependency not ready according to its readyExpr', async () => {
  const { loadCel } = await import('../../src/status/cel.js');
  const { statusLine } = await import('../../src/runner/explain.js');
  const cel = await loadCel();
  const expr = "dep.status.conditions.exists(c, c.type == 'Ready' && c.status == 'True') && dep.metadata.labels['tier'] == 'gold'";
  const waiting = (): LiveKustomization => ({
    ...ks({ observed: -1, conds: [ready('False', 'DependencyNotReady', "dependency 'flux-system/infra' is not ready according to readyExpr eval")] }),
    spec: { sourceRef: { kind: 'GitRepository', name: 'flux-system' }, dependsOn: [{ name: 'infra', readyExpr: expr }] },
  });
  const infra = (tier: string): LiveKustomization => ({
    metadata: { name: 'infra', namespace: 'flux-system', generation: 1, labels: { tier } } as LiveKustomization['metadata'],
    status: { observedGeneration: 1, conditions: [ready('True', 'ReconciliationSucceeded', 'Applied', 1)] },
  });

  it('names the expression and what it gives on the live dependency', () => {
    const r = kustomizationReadiness(waiting(), { readyExpr: { dependency: () => infra('silver'), cel } });
    expect(r).toMatchObject({ state: 'waiting', waitingFor: 'flux-system/infra', readyExpr: { text: expr, result: false } });
    expect(r.message).toBe(`dependency 'flux-system/infra' is not ready according to readyExpr eval: readyExpr \`${expr}\` is false`);
    expect(statusLine(r)).toBe(`waiting for flux-system/infra: readyExpr \`${expr}\` is false`);
    // Once the dependency satisfies it, KC's next look passes it: standup says the expression is now true.
    expect(kustomizationReadiness(waiting(), { readyExpr: { dependency: () => infra('gold'), cel } }).readyExpr?.result).toBe(true);
  });

  it('says when it was not evaluated (CEL not loaded, the dependency gone), never guesses', () => {
    expect(kustomizationReadiness(waiting(), { readyExpr: { dependency: () => infra('gold'), cel: null } }).readyExpr).toMatchObject({ result: null, error: 'CEL not loaded' });
    expect(kustomizationReadiness(waiting(), { readyExpr: { dependency: () => undefined, cel } }).readyExpr).toMatchObject({ result: null, error: 'flux-system/infra not found' });
    expect(statusLine(kustomizationReadiness(waiting(), {}))).toBe(`waiting for flux-system/infra: readyExpr \`${expr}\` not evaluated by standup (not evaluated here)`);
  });

  it('"is not ready" on an entry with a readyExpr: the expression passed and KC checked Ready too (AdditiveCELDependencyCheck)', () => {
    const plain = (): LiveKustomization => ({ ...waiting(), status: { ...waiting().status, conditions: [ready('False', 'DependencyNotReady', "dependency 'flux-system/infra' is not ready")] } });
    const on = kustomizationReadiness(plain(), { readyExpr: { dependency: () => infra('gold'), cel, additive: true } });
    expect(statusLine(on)).toBe(`waiting for flux-system/infra: readyExpr \`${expr}\` is true; with AdditiveCELDependencyCheck on, the dependency must also be Ready`);
    // Taken to be off, yet KC checked Ready: the cluster says the gate is on.
    const off = kustomizationReadiness(plain(), { readyExpr: { dependency: () => infra('gold'), cel } });
    expect(off.message).toContain("kustomize-controller checked its Ready condition too, so its AdditiveCELDependencyCheck gate is on");
  });
});
