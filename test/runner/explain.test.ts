import { describe, expect, it } from 'vitest';
import { explainFailure, type ExplainContext } from '../../src/runner/explain.js';
import { kustomizationReadiness } from '../../src/status/kustomization.js';

const failed = (message: string, reason = 'ReconciliationFailed') =>
  kustomizationReadiness({ metadata: { name: 'apps', namespace: 'flux-system', generation: 1 }, status: { conditions: [{ type: 'Ready', status: 'False', reason, message }] } });
const none: ExplainContext = { fallback: [], knowledge: { runtimeCrds: [], groupsInGit: new Set(), externalCrds: [] }, liveCrdGroups: new Set(), workloads: [] };
const apps = { key: 'flux-system/apps', namespace: 'flux-system', name: 'apps' };
const noMatch = 'StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"';

describe('explainFailure: a missing kind', () => {
  it.each([
    ['the fallback provides it: the deadlock, and `standup crds`', { ...none, fallback: [{ group: 'cdi.kubevirt.io', kind: 'StorageProfile', name: 'storageprofiles.cdi.kubevirt.io', file: 'crds.yaml' }] }, 'deadlocked on a second-order CRD', '`standup crds` applies storageprofiles.cdi.kubevirt.io'],
    ['tiers.yaml declares the operator (runtimeCrds): the deadlock', { ...none, knowledge: { ...none.knowledge, runtimeCrds: [{ kind: 'StorageProfile', group: 'cdi.kubevirt.io', createdBy: { kind: 'CDI', group: 'cdi.kubevirt.io' } }] } }, 'until the operator reconciles a CDI', 'add its CRD manifest under `crds:`'],
    ['other CRDs of the group are in the cluster (an operator of it runs): the deadlock', { ...none, liveCrdGroups: new Set(['cdi.kubevirt.io']) }, 'deadlocked on a second-order CRD', 'move StorageProfile/longhorn'],
    ['nothing anywhere: no CRD and no operator known, and moving it cannot help', none, 'no CRD for it exists anywhere standup can see', 'Add the CRD for StorageProfile.cdi.kubevirt.io to git'],
    ['declared external but absent: install it', { ...none, knowledge: { ...none.knowledge, externalCrds: ['cdi.kubevirt.io'] } }, 'declares cdi.kubevirt.io installed outside Flux', 'Install the CRDs of cdi.kubevirt.io'],
  ])('%s', (_n, ctx, message, hint) => {
    const x = explainFailure(apps, failed(noMatch), ctx);
    expect(x.message).toContain(message);
    expect(x.hint).toContain(hint);
  });
});

describe('explainFailure: a health check on a workload', () => {
  it('adds the Deployment\'s state and its pods\' reason to Flux\'s message, and what to check', () => {
    const r = failed("health check failed after 30.071264876s: timeout waiting for: [Deployment/apps/web status: 'InProgress']", 'HealthCheckFailed');
    const x = explainFailure(apps, r, {
      ...none,
      workloads: [{ object: 'Deployment/apps/web', readiness: { state: 'in-progress', ready: '0/1', message: 'Available: 0/1' }, line: '0/1 ready; web-1: running, readiness probe failing', advice: 'the container runs but its readiness probe fails: kubectl describe pod -n apps web-1', terminal: false, problem: 'readiness' }],
    });
    expect(x.message).toBe('flux-system/apps failed its health check after 30s; still not healthy: Deployment/apps/web (InProgress)\n  Deployment/apps/web: 0/1 ready; web-1: running, readiness probe failing');
    expect(x.hint).toContain('kubectl describe pod -n apps web-1');
  });
});

describe('explainFailure and the live line: a health check judged by healthCheckExprs', async () => {
  const { stuckInHealthCheck, healthExprsFromWatches } = await import('../../src/runner/health-explain.js');
  const { loadCel } = await import('../../src/status/cel.js');
  await loadCel();
  const ks = (conditions: object[]) => ({
    metadata: { name: 'apps', namespace: 'flux-system', generation: 1 },
    spec: { wait: true, healthCheckExprs: [{ apiVersion: 'example.com/v1', kind: 'Widget', current: "status.phase == 'Ready'", failed: "status.phase == 'Broken'" }] },
    status: { conditions, inventory: { entries: [{ id: 'apps_w_example.com_Widget', v: 'v1' }, { id: 'apps_web_apps_Deployment', v: 'v1' }] } },
  });
  const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'apps', generation: 1 }, status: { phase: 'Pending' } };
  const look = (seen: string[]) => (k: { apiVersion: string; kind: string; namespace?: string }) => {
    seen.push(`${k.apiVersion} ${k.kind} ${k.namespace}`);
    return new Map([['apps/w', widget]]);
  };

  it('a failed health check: the message says what each expression gives on the object Flux named', () => {
    const live = ks([{ type: 'Ready', status: 'False', reason: 'HealthCheckFailed', message: "health check failed after 30s: timeout waiting for: [Widget/apps/w status: 'InProgress']" }]);
    const r = kustomizationReadiness(live as never);
    const seen: string[] = [];
    const lines = healthExprsFromWatches(live as never, r, look(seen) as never)!;
    expect(seen).toEqual(['example.com/v1 Widget apps']);
    const x = explainFailure(apps, r, { ...none, healthExprs: lines });
    expect(x.message).toBe(
      'flux-system/apps failed its health check after 30s; still not healthy: Widget/apps/w (InProgress)\n' +
      "  Widget/apps/w: InProgress by healthCheckExprs[0] (Widget.example.com): failed `status.phase == 'Broken'` is false, current `status.phase == 'Ready'` is false; none is true, so InProgress");
    expect(x.hint).toContain("spec.healthCheckExprs");
  });

  it('while KC runs the health check: every object of the inventory an entry judges; the Deployment is left to kstatus', () => {
    const live = ks([{ type: 'Ready', status: 'Unknown', reason: 'Progressing', message: 'Running health checks for revision main@sha1:1 with a timeout of 30s' }, { type: 'Reconciling', status: 'True', reason: 'Progressing', message: 'Running health checks for revision main@sha1:1 with a timeout of 30s' }]);
    const r = kustomizationReadiness(live as never);
    expect(stuckInHealthCheck(r)).toBe('all');
    expect(healthExprsFromWatches(live as never, r, look([]) as never)).toEqual([expect.stringMatching(/^Widget\/apps\/w: InProgress by healthCheckExprs\[0\]/)]);
  });

  it('not held by its health check (waiting for a dependency): nothing is read', () => {
    const live = ks([{ type: 'Ready', status: 'False', reason: 'DependencyNotReady', message: "dependency 'flux-system/infra' is not ready" }]);
    const seen: string[] = [];
    expect(healthExprsFromWatches(live as never, kustomizationReadiness(live as never), look(seen) as never)).toEqual([]);
    expect(seen).toEqual([]);
  });
});
