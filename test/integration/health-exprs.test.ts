// healthCheckExprs on the real testbed: a tier whose health check waits on a custom resource judged by CEL. Its
// Widget says `phase: Pending`, so kustomize-controller's health check never passes; standup's end-of-run diagnosis
// and `status` say what each expression gives on it. A second tier's Widget says `phase: Ready`: kustomize-controller
// finds it Current by the same expressions, so standup's reading and the controller's agree both ways.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type TestbedClient } from '../testbed/harness.js';
import { standup } from './cli.js';
import { namespacedFixtures } from './namespaced.js';

let tb: TestbedClient;
const fixtures = namespacedFixtures(() => tb);
const ns = 'r-hexpr';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.hexpr.example.com
spec:
  group: hexpr.example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
`;

// kustomize-controller does not apply a manifest's status (measured: the live Widget had none, and KC's own health
// check said "no such attribute(s): status.phase"), so the expressions read a spec field.
const widget = (name: string, phase: string) => `apiVersion: hexpr.example.com/v1
kind: Widget
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  phase: ${phase}
`;

const tier = (name: string) => `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  interval: 10m0s
  retryInterval: 10m0s
  path: ./${name}
  prune: true
  wait: true
  timeout: 20s
  sourceRef:
    kind: GitRepository
    name: src
  dependsOn:
    - name: crd
  healthCheckExprs:
    - apiVersion: hexpr.example.com/v1
      kind: Widget
      failed: "spec.phase == 'Broken'"
      current: "spec.phase == 'Ready'"
`;

beforeAll(() => {
  tb = connect(inject('testbed'));
});

afterAll(() => fixtures.cleanup(), 600_000);

describe.sequential('healthCheckExprs explain a stuck tier', () => {
  it('up: the Ready Widget\'s tier converges, the Pending one fails with what its expressions give; status says the same', async () => {
    const f = await fixtures.fixture(ns, {
      ns,
      tiers: {
        crd: { wait: true, files: { 'crd.yaml': CRD } },
        good: { raw: tier('good'), files: { 'widget.yaml': widget('ready-one', 'Ready') } },
        stuck: { raw: tier('stuck'), files: { 'widget.yaml': widget('pending-one', 'Pending') } },
      },
    });
    const up = await standup(f.t('up', '-o', 'json'));
    const end = (id: string) => up.events.find((e) => e.type === 'step-end' && e.id === id) as { result?: string; message?: string } | undefined;
    expect(end(`tier:${ns}/good`)?.result, up.stdout).toBe('ok');
    expect(end(`tier:${ns}/stuck`)?.result, up.stdout).toMatch(/failed|timeout/);
    expect(up.code).not.toBe(0);
    const line = `Widget/${ns}/pending-one: InProgress by healthCheckExprs[0] (Widget.hexpr.example.com): failed \`spec.phase == 'Broken'\` is false, current \`spec.phase == 'Ready'\` is false; none is true, so InProgress`;
    // kustomize-controller's own verdict on the object is the same: InProgress, until its timeout.
    expect(end(`tier:${ns}/stuck`)?.message).toContain(`Widget/${ns}/pending-one (InProgress)`);
    expect(end(`tier:${ns}/stuck`)?.message).toContain(line);
    // While KC's health check ran, the live line said it too.
    const live = up.events.filter((e) => e.type === 'step-status' && e.id === `tier:${ns}/stuck`).map((e) => String(e.message));
    expect(live).toContain(`health check waiting on ${line}`);

    const st = await standup([...f.t('status', 'stuck', '-o', 'json')]);
    expect(st.code).toBe(1);
    const [row] = JSON.parse(st.stdout).kustomizations;
    expect(row.state).toBe('failed');
    expect(row.healthCheckExprs).toEqual([line]);
    const text = await standup([...f.t('status', '-o', 'wide')]);
    expect(text.stdout).toContain(line);
    // The Ready tier: not held by its health check, so nothing is evaluated for it.
    const good = await standup([...f.t('status', 'good', '-o', 'json')]);
    expect(JSON.parse(good.stdout).kustomizations[0]).not.toHaveProperty('healthCheckExprs');
  });
});

// A dependsOn readyExpr on the real testbed: kustomize-controller (AdditiveCELDependencyCheck off, its default) turns
// the dependent away on the expression alone; standup evaluates the same expression and says what it gives. Which
// way the gate is set is read from the cluster's kustomize-controller Deployment: here a stand-in with no replicas
// (the testbed runs the controllers as processes) that sets it off, as the real one runs.
describe.sequential('a dependsOn readyExpr, and the gate read from the cluster', () => {
  const gns = 'r-cel-gate';
  const cns = 'r-cel';
  const expr = "dep.metadata.name == 'never'";
  const gated = `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: gated
  namespace: ${cns}
spec:
  interval: 10m0s
  path: ./gated
  prune: true
  sourceRef:
    kind: GitRepository
    name: src
  dependsOn:
    - name: base
      readyExpr: "${expr}"
`;
  const standIn = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'kustomize-controller', namespace: gns, labels: { 'app.kubernetes.io/part-of': 'flux' } },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: 'kustomize-controller' } },
      template: { metadata: { labels: { app: 'kustomize-controller' } }, spec: { containers: [{ name: 'manager', image: 'standup.invalid/kustomize-controller:never', args: ['--watch-all-namespaces=true', '--feature-gates=AdditiveCELDependencyCheck=false'] }] } },
    },
  };

  afterAll(async () => {
    const { CoreV1Api } = await import('@kubernetes/client-node');
    await tb.kubeConfig().makeApiClient(CoreV1Api).deleteNamespace({ name: gns }).catch(() => undefined);
  });

  it('up: the dependent waits on the expression, false, as kustomize-controller says; the gate is named with the Deployment it was read from; status says the same', async () => {
    const { AppsV1Api, CoreV1Api } = await import('@kubernetes/client-node');
    await tb.kubeConfig().makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: gns } } });
    await tb.kubeConfig().makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace: gns, body: standIn });
    const f = await fixtures.fixture(cns, { ns: cns, tiers: { base: {}, gated: { dependsOn: ['base'], raw: gated } } });
    const up = await standup(f.t('up', '-o', 'json', '--timeout', '40s'));
    expect(up.code, up.stderr).toBe(3);
    const logs = up.events.filter((e) => e.type === 'log').map((e) => String(e.message));
    expect(logs).toContain(`readyExpr: kustomize-controller's AdditiveCELDependencyCheck is off (--feature-gates in the cluster's Deployment ${gns}/kustomize-controller); helm-controller's AdditiveCELDependencyCheck is taken to be off, its default: neither the cluster's helm-controller Deployment nor the repository sets it`);
    const live = up.events.filter((e) => e.type === 'step-status' && e.id === `tier:${cns}/gated`).map((e) => String(e.message));
    expect(live, up.stdout).toContain(`waiting for ${cns}/base: readyExpr \`${expr}\` is false`);
    // kustomize-controller's own words: it judged the expression alone (the gate off), and it was false.
    const st = await standup(f.t('status', 'gated', '-o', 'json'));
    expect(st.code).toBe(1);
    const [row] = JSON.parse(st.stdout).kustomizations;
    expect(row).toMatchObject({ state: 'waiting', reason: 'DependencyNotReady' });
    expect(row.message).toBe(`dependency '${cns}/base' is not ready according to readyExpr eval: readyExpr \`${expr}\` is false`);
  }, 180_000);
});
