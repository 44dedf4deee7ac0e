// healthCheckExprs judged as kustomize-controller's StatusEvaluator judges them (fluxcd/pkg runtime/cel), with the
// SealedSecret example of Flux's Kustomization documentation.
import { describe, expect, it } from 'vitest';
import { loadCel } from '../../src/status/cel.js';
import { describeHealthExpr, evaluateHealthExpr, healthCheckExprsOf, healthExprLines, healthExprTargets, matchHealthCheckExpr, type HealthCheckExpr } from '../../src/status/health-exprs.js';

const SEALED: HealthCheckExpr = {
  apiVersion: 'bitnami.com/v1alpha1',
  kind: 'SealedSecret',
  failed: "status.conditions.filter(e, e.type == 'Synced').all(e, e.status == 'False')",
  current: "status.conditions.filter(e, e.type == 'Synced').all(e, e.status == 'True')",
};
const sealed = (status: string, gen = 1, observed = 1) => ({
  apiVersion: 'bitnami.com/v1alpha1', kind: 'SealedSecret', metadata: { name: 's', namespace: 'default', generation: gen },
  spec: {}, status: { observedGeneration: observed, conditions: [{ type: 'Synced', status }] },
});

describe('matchHealthCheckExpr', () => {
  const groupWide: HealthCheckExpr = { apiVersion: 'bitnami.com/v1', current: 'true' };
  it('an entry for the group and kind wins over one for the whole group, whatever the order and the version', () => {
    expect(matchHealthCheckExpr([groupWide, SEALED], 'bitnami.com', 'SealedSecret')?.index).toBe(1);
    expect(matchHealthCheckExpr([groupWide, SEALED], 'bitnami.com', 'Other')?.index).toBe(0);
  });
  it('another group, or a kind with no group-wide entry: none (kstatus decides)', () => {
    expect(matchHealthCheckExpr([SEALED], 'apps', 'Deployment')).toBeNull();
    expect(matchHealthCheckExpr([SEALED], 'bitnami.com', 'Other')).toBeNull();
  });
  it('the core group is the empty one', () => {
    expect(matchHealthCheckExpr([{ apiVersion: 'v1', kind: 'Service', current: 'true' }], '', 'Service')?.index).toBe(0);
  });
  it('two entries for one GroupKind: the first', () => {
    expect(matchHealthCheckExpr([SEALED, { ...SEALED, current: 'false' }], 'bitnami.com', 'SealedSecret')?.index).toBe(0);
  });
});

describe('evaluateHealthExpr', async () => {
  const cel = await loadCel();
  const m = { entry: SEALED, index: 0 };
  it('Current when current is true (failed evaluated first and false)', () => {
    const v = evaluateHealthExpr(cel, m, sealed('True'));
    expect(v.status).toBe('Current');
    expect(v.steps.map((s) => [s.name, s.result])).toEqual([['failed', false], ['current', true]]);
  });
  it('Failed when failed is true: it is looked at before current', () => {
    expect(evaluateHealthExpr(cel, { entry: { ...SEALED, current: 'true' }, index: 0 }, sealed('False')).status).toBe('Failed');
  });
  it('inProgress comes first of all', () => {
    const v = evaluateHealthExpr(cel, { entry: { ...SEALED, inProgress: "status.conditions.exists(e, e.type == 'Synced')" }, index: 0 }, sealed('True'));
    expect([v.status, v.by]).toEqual(['InProgress', 'inProgress']);
  });
  it('none true: InProgress', () => {
    const v = evaluateHealthExpr(cel, m, sealed('Unknown'));
    expect([v.status, v.by]).toEqual(['InProgress', 'none']);
    expect(describeHealthExpr(v)).toBe(
      "InProgress by healthCheckExprs[0] (SealedSecret.bitnami.com): failed `status.conditions.filter(e, e.type == 'Synced').all(e, e.status == 'False')` is false, " +
      "current `status.conditions.filter(e, e.type == 'Synced').all(e, e.status == 'True')` is false; none is true, so InProgress");
  });
  it('a generation not observed yet is InProgress before any expression', () => {
    const v = evaluateHealthExpr(cel, m, sealed('True', 3, 2));
    expect([v.status, v.by, v.steps.length]).toEqual(['InProgress', 'generation', 0]);
    expect(describeHealthExpr(v)).toContain('generation 3 not observed yet (status.observedGeneration 2)');
  });
  it('an expression that fails on the object (no status yet) is Unknown with the error', () => {
    const v = evaluateHealthExpr(cel, m, { apiVersion: 'bitnami.com/v1alpha1', kind: 'SealedSecret', metadata: { name: 's' } });
    expect([v.status, v.by]).toEqual(['Unknown', 'error']);
    expect(v.steps[0]!.result).toBeNull();
    expect(describeHealthExpr(v)).toMatch(/^Unknown by healthCheckExprs\[0\].*: failed `.*` failed: /);
  });
  it('integers are CEL ints, as in cel-go: type(status.ready) is int', () => {
    const entry: HealthCheckExpr = { apiVersion: 'example.com/v1', kind: 'Pool', current: 'type(status.ready) == int && status.ready == spec.size - 1' };
    const v = evaluateHealthExpr(cel, { entry, index: 0 }, { metadata: {}, spec: { size: 3 }, status: { ready: 2 } });
    expect(v.status).toBe('Current');
  });
});

describe('healthCheckExprsOf', () => {
  it('keeps the entries with an apiVersion and a current expression', () => {
    expect(healthCheckExprsOf({ spec: { healthCheckExprs: [SEALED, { apiVersion: 'x/v1' }, { current: 'true' }] } })).toEqual([SEALED]);
    expect(healthCheckExprsOf({ spec: {} })).toEqual([]);
  });
});

describe('healthExprTargets and healthExprLines', async () => {
  const cel = await loadCel();
  const ks = (spec: Record<string, unknown>) => ({
    metadata: { namespace: 'flux-system' },
    spec: { healthCheckExprs: [SEALED], ...spec },
    status: { inventory: { entries: [
      { id: 'default_s_bitnami.com_SealedSecret', v: 'v1alpha1' },
      { id: 'default_web_apps_Deployment', v: 'v1' },
    ] } },
  });
  it('with wait: the inventory objects an entry judges, read at the inventory version', () => {
    const t = healthExprTargets(ks({ wait: true }));
    expect(t.map((x) => [x.object, x.ref.apiVersion, x.match.index])).toEqual([['SealedSecret/default/s', 'bitnami.com/v1alpha1', 0]]);
  });
  it('without wait: spec.healthChecks only', () => {
    expect(healthExprTargets(ks({ healthChecks: [{ apiVersion: 'bitnami.com/v1alpha1', kind: 'SealedSecret', name: 'other', namespace: 'x' }] })).map((x) => x.object)).toEqual(['SealedSecret/x/other']);
    expect(healthExprTargets(ks({}))).toEqual([]);
  });
  it('objects a failed health check named: the group from the inventory, else from an entry of that kind', () => {
    const t = healthExprTargets(ks({ wait: true }), [{ kind: 'SealedSecret', namespace: 'default', name: 's' }, { kind: 'SealedSecret', namespace: 'default', name: 'new' }, { kind: 'Deployment', namespace: 'default', name: 'web' }]);
    expect(t.map((x) => [x.object, x.ref.apiVersion])).toEqual([['SealedSecret/default/s', 'bitnami.com/v1alpha1'], ['SealedSecret/default/new', 'bitnami.com/v1alpha1']]);
  });
  it('lines: the verdict, an object not there yet, CEL not loaded', () => {
    const [t] = healthExprTargets(ks({ wait: true }));
    expect(healthExprLines(cel, [t!], () => sealed('Unknown'))[0]).toMatch(/^SealedSecret\/default\/s: InProgress by healthCheckExprs\[0\] \(SealedSecret\.bitnami\.com\): failed .* is false, current .* is false; none is true, so InProgress$/);
    expect(healthExprLines(cel, [t!], () => undefined)[0]).toBe('SealedSecret/default/s: not found (healthCheckExprs[0] judges it once it exists)');
    expect(healthExprLines(null, [t!], () => sealed('True'))[0]).toContain('not evaluated here (CEL not loaded)');
  });
});
