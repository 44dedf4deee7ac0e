import { describe, expect, it } from 'vitest';
import { explainFailure, type ExplainContext } from '../../src/runner/explain.js';
import { kustomizationReadiness } from '../../src/status/kustomization.js';

const failed = (message: string, reason = 'ReconciliationFailed') =>
  kustomizationReadiness({ metadata: { name: 'apps', namespace: 'flux-system', generation: 1 }, status: { conditions: [{ type: 'Ready', status: 'False', reason, message }] } });
const none: ExplainContext = { fallback: [], knowledge: { runtimeCrds: [], groupsInGit: new Set(), externalCrds: [] }, liveCrdGroups: new Set(), workloads: [] };
const noMatch = 'StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"';

describe('explainFailure: a missing kind', () => {
  it.each([
    ['the fallback provides it: the deadlock, and `standup crds`', { ...none, fallback: [{ group: 'cdi.kubevirt.io', kind: 'StorageProfile', name: 'storageprofiles.cdi.kubevirt.io', file: 'crds.yaml' }] }, 'deadlocked on a second-order CRD', '`standup crds` applies storageprofiles.cdi.kubevirt.io'],
    ['tiers.yaml declares the operator (runtimeCrds): the deadlock', { ...none, knowledge: { ...none.knowledge, runtimeCrds: [{ kind: 'StorageProfile', group: 'cdi.kubevirt.io', createdBy: { kind: 'CDI', group: 'cdi.kubevirt.io' } }] } }, 'until the operator reconciles a CDI', 'add its CRD manifest under `crds:`'],
    ['other CRDs of the group are in the cluster (an operator of it runs): the deadlock', { ...none, liveCrdGroups: new Set(['cdi.kubevirt.io']) }, 'deadlocked on a second-order CRD', 'move StorageProfile/longhorn'],
    ['nothing anywhere: no CRD and no operator known, and moving it cannot help', none, 'no CRD for it exists anywhere standup can see', 'Add the CRD for StorageProfile.cdi.kubevirt.io to git'],
    ['declared external but absent: install it', { ...none, knowledge: { ...none.knowledge, externalCrds: ['cdi.kubevirt.io'] } }, 'declares cdi.kubevirt.io installed outside Flux', 'Install the CRDs of cdi.kubevirt.io'],
  ])('%s', (_n, ctx, message, hint) => {
    const x = explainFailure('flux-system/apps', failed(noMatch), ctx);
    expect(x.message).toContain(message);
    expect(x.hint).toContain(hint);
  });
});

describe('explainFailure: a health check on a workload', () => {
  it('adds the Deployment\'s state and its pods\' reason to Flux\'s message, and what to check', () => {
    const r = failed("health check failed after 30.071264876s: timeout waiting for: [Deployment/apps/web status: 'InProgress']", 'HealthCheckFailed');
    const x = explainFailure('flux-system/apps', r, {
      ...none,
      workloads: [{ object: 'Deployment/apps/web', readiness: { state: 'in-progress', ready: '0/1', message: 'Available: 0/1' }, line: '0/1 ready; web-1: running, readiness probe failing', advice: 'the container runs but its readiness probe fails: kubectl describe pod -n apps web-1', terminal: false, problem: 'readiness' }],
    });
    expect(x.message).toBe('flux-system/apps failed its health check after 30s; still not healthy: Deployment/apps/web (InProgress)\n  Deployment/apps/web: 0/1 ready; web-1: running, readiness probe failing');
    expect(x.hint).toContain('kubectl describe pod -n apps web-1');
  });
});
