// The AdditiveCELDependencyCheck gate (and any other) as the repository and the cluster set it on one controller.
import { describe, expect, it } from 'vitest';
import { repoFeatureGate } from '../../src/bootstrap/feature-gates.js';
import { describeGate, gateInArgs, resolveGate } from '../../src/model/feature-gates.js';
import type { RenderedObject } from '../../src/model/flux.js';
import { additiveCel, anyReadyExpr, describeAdditiveCel } from '../../src/runner/feature-gates.js';
import { FakeCluster } from '../fakes/fake-cluster.js';

const GATE = 'AdditiveCELDependencyCheck';
const obj = (raw: Record<string, unknown>, file = 'flux/gotk.yaml', line = 3) =>
  ({ kind: raw.kind, name: (raw.metadata as { name: string }).name, namespace: 'flux-system', raw, origin: { file, line } }) as unknown as RenderedObject;
const deployment = (name: string, args: string[]) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'flux-system', labels: { 'app.kubernetes.io/part-of': 'flux' } }, spec: { template: { spec: { containers: [{ name: 'manager', args }] } } } });

describe('gateInArgs', () => {
  it('reads the gate among others; the last setting wins; absent is null', () => {
    expect(gateInArgs(['--log-level=info', '--feature-gates=ExternalArtifact=true,AdditiveCELDependencyCheck=true'], GATE)).toBe(true);
    expect(gateInArgs(['--feature-gates=AdditiveCELDependencyCheck=true', '--feature-gates=AdditiveCELDependencyCheck=false'], GATE)).toBe(false);
    expect(gateInArgs(['--feature-gates=ExternalArtifact=true'], GATE)).toBeNull();
  });
});

describe('repoFeatureGate', () => {
  it('the controller\'s own Deployment, not another\'s', () => {
    const objects = [obj(deployment('helm-controller', ['--feature-gates=AdditiveCELDependencyCheck=true']))];
    expect(repoFeatureGate(objects, GATE, 'helm-controller')).toEqual({ on: true, from: 'flux/gotk.yaml:3' });
    expect(repoFeatureGate(objects, GATE, 'kustomize-controller')).toBeNull();
  });
  it('a FluxInstance patch counts for the controllers its target names (a regular expression), or all when it names none', () => {
    const patch = '- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --feature-gates=AdditiveCELDependencyCheck=true\n';
    const instance = (target: Record<string, string>) => [obj({ apiVersion: 'fluxcd.controlplane.io/v1', kind: 'FluxInstance', metadata: { name: 'flux' }, spec: { kustomize: { patches: [{ target, patch }] } } }, 'clusters/x/flux.yaml', 1)];
    expect(repoFeatureGate(instance({ kind: 'Deployment', name: '(kustomize-controller|helm-controller)' }), GATE, 'helm-controller')?.on).toBe(true);
    expect(repoFeatureGate(instance({ kind: 'Deployment', name: 'kustomize-controller' }), GATE, 'helm-controller')).toBeNull();
    expect(repoFeatureGate(instance({ kind: 'Deployment' }), GATE, 'helm-controller')).toEqual({ on: true, from: 'clusters/x/flux.yaml:1' });
  });
});

describe('the gate a run takes', () => {
  it('the cluster first, then the repository, else off and said to be assumed', async () => {
    const repo = { kustomize: { on: true, from: 'flux/gotk.yaml:3' }, helm: null };
    const bare = new FakeCluster();
    const g = await additiveCel(bare, repo);
    expect(g.kustomize).toEqual({ on: true, from: 'flux/gotk.yaml:3' });
    expect(g.helm).toEqual({ on: false, from: null });
    expect(describeAdditiveCel(g)).toBe(
      "readyExpr: kustomize-controller's AdditiveCELDependencyCheck is on (--feature-gates in flux/gotk.yaml:3); helm-controller's AdditiveCELDependencyCheck is taken to be off, its default: neither the cluster's helm-controller Deployment nor the repository sets it");
    const cluster = new FakeCluster();
    cluster.put(deployment('kustomize-controller', ['--events-addr=x']) as never);
    cluster.put(deployment('helm-controller', ['--feature-gates=AdditiveCELDependencyCheck=true']) as never);
    const live = await additiveCel(cluster, repo);
    expect(live.kustomize).toEqual({ on: false, from: "the cluster's Deployment flux-system/kustomize-controller, which does not set it (default off)" });
    expect(live.helm).toEqual({ on: true, from: "the cluster's Deployment flux-system/helm-controller" });
  });
  it('is read only when something has a readyExpr', () => {
    expect(anyReadyExpr([{ kind: 'HelmRelease', raw: { spec: { dependsOn: [{ name: 'a', readyExpr: 'true' }] } } }])).toBe(true);
    expect(anyReadyExpr([{ kind: 'Kustomization', raw: { spec: { dependsOn: [{ name: 'a' }] } } }])).toBe(false);
  });
  it('resolveGate and describeGate', () => {
    expect(resolveGate(null, null, false)).toEqual({ on: false, from: null });
    expect(describeGate(GATE, 'helm-controller', { on: true, from: 'x.yaml:1' })).toBe("helm-controller's AdditiveCELDependencyCheck is on (--feature-gates in x.yaml:1)");
  });
});
