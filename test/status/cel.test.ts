// The CEL that standup evaluates for Flux (status/cel.ts): the CEL specification's own conformance cases for the
// parts of the language Flux's expressions use, and the readyExpr examples of Flux's documentation.
import { describe, expect, it } from 'vitest';
import { getConformanceSuite, type IncrementalTest, type IncrementalTestSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import { evaluateBoolean, loadCel } from '../../src/status/cel.js';
import { describeExpr, judgeDependency } from '../../src/status/ready-expr.js';

/**
 * The conformance files whose features a readyExpr or healthCheckExprs uses: literals and field access, comparison,
 * logic, the macros (`filter`, `all`, `exists`), strings and lists. Each case of them that needs no variables, type
 * declarations or container, and expects a bool or an evaluation error, which is what Flux's EvaluateBoolean sees.
 */
const SECTIONS = ['basic', 'comparisons', 'logic', 'macros', 'string', 'lists', 'fields'];

function cases(suite: IncrementalTestSuite, prefix: string): [string, IncrementalTest][] {
  return [
    ...suite.tests.map((t) => [`${prefix}/${t.name}`, t] as [string, IncrementalTest]),
    ...suite.suites.flatMap((s) => cases(s, `${prefix}/${s.name}`)),
  ];
}

const conformance = getConformanceSuite().suites
  .filter((s) => SECTIONS.includes(s.name))
  .flatMap((s) => cases(s, s.name))
  .filter(([, t]) => {
    const o = t.original;
    const plain = Object.keys(o.bindings).length === 0 && o.typeEnv.length === 0 && o.container === '' && !o.disableMacros && !o.checkOnly;
    const m = o.resultMatcher;
    return plain && ((m.case === 'value' && m.value.kind.case === 'boolValue') || m.case === 'evalError');
  });

/** Backquoted field names (`` {'a-b': 1}.`a-b` ``, cel-spec 0.24): the one feature of these files the library lacks. */
const QUOTED_FIELDS = ['field_access_slash', 'field_access_dash', 'field_access_dot', 'has_field_slash', 'has_field_dash', 'has_field_dot'].map((n) => `fields/quoted_map_fields/${n}`);

describe('CEL conformance (the parts Flux uses)', async () => {
  const cel = await loadCel();
  it('selects a substantial set of cases', () => {
    expect(conformance.length).toBeGreaterThan(300);
  });
  it.each(conformance)('%s', (name, t) => {
    const o = t.original;
    const r = evaluateBoolean(cel, o.expr, {});
    if (QUOTED_FIELDS.includes(name)) {
      // Not in @bufbuild/cel 0.6.1: such an expression does not parse, so it is reported as not evaluated, never guessed.
      expect(r).toMatchObject({ ok: false, stage: 'parse' });
      return;
    }
    if (o.resultMatcher.case === 'value') {
      expect(r).toEqual({ ok: true, value: (o.resultMatcher.value.kind as { value: boolean }).value });
    } else {
      expect(r.ok).toBe(false);
    }
  });
});

const ready = (status: 'True' | 'False', generation = 2, observed = 2) => ({
  metadata: { name: 'common', namespace: 'apps', generation, annotations: { 'app.kubernetes.io/version': '1.2.3' } },
  status: { observedGeneration: observed, conditions: [{ type: 'Ready', status }] },
});
const self = { metadata: { name: 'backend', namespace: 'apps', annotations: { 'app.kubernetes.io/version': '1.2.3' } } };

// kustomize-controller's and helm-controller's docs (spec.dependsOn[].readyExpr).
const DOCS_EXPR = `dep.metadata.generation == dep.status.observedGeneration &&
dep.status.conditions.filter(e, e.type == 'Ready').all(e, e.status == 'True') &&
self.metadata.annotations['app.kubernetes.io/version'] == dep.metadata.annotations['app.kubernetes.io/version']`;

describe('readyExpr as the controllers judge it', async () => {
  const cel = await loadCel();
  const builtin = (d: object) => (d as ReturnType<typeof ready>).status.conditions[0]!.status === 'True';

  it('the docs\' example: true for a Ready dependency at its generation with the same version', () => {
    expect(judgeDependency({ name: 'common', readyExpr: DOCS_EXPR }, self, ready('True'), builtin, { cel })).toMatchObject({ ready: true, state: 'ready', expr: { result: true } });
  });

  it('false when the versions differ, or the dependency has not observed its generation', () => {
    const other = { metadata: { ...self.metadata, annotations: { 'app.kubernetes.io/version': '2.0.0' } } };
    const v = judgeDependency({ name: 'common', readyExpr: DOCS_EXPR }, other, ready('True'), builtin, { cel });
    expect(v).toMatchObject({ ready: false, state: 'ready-expr-false' });
    expect(describeExpr(v.expr!)).toMatch(/^readyExpr `dep.metadata.generation == dep.status.observedGeneration && .*` is false$/);
    expect(judgeDependency({ name: 'common', readyExpr: DOCS_EXPR }, self, ready('True', 3, 2), builtin, { cel }).state).toBe('ready-expr-false');
  });

  it('replaces the built-in check, unless AdditiveCELDependencyCheck is on', () => {
    const expr = "dep.status.conditions.exists(c, c.type == 'Ready')";
    expect(judgeDependency({ name: 'common', readyExpr: expr }, self, ready('False'), builtin, { cel }).ready).toBe(true);
    expect(judgeDependency({ name: 'common', readyExpr: expr }, self, ready('False'), builtin, { cel, additive: true })).toMatchObject({ ready: false, state: 'not-ready' });
  });

  it('an expression standup cannot evaluate is unknown, never guessed; a missing dependency is not found', () => {
    expect(judgeDependency({ name: 'common', readyExpr: "dep.?status.orValue({}) == {}" }, self, ready('True'), builtin, { cel })).toMatchObject({ ready: false, state: 'unknown' });
    expect(judgeDependency({ name: 'common', readyExpr: 'dep.status.missing == 1' }, self, ready('True'), builtin, { cel })).toMatchObject({ state: 'unknown', expr: { result: null } });
    expect(judgeDependency({ name: 'common', readyExpr: "'x'" }, self, ready('True'), builtin, { cel })).toMatchObject({ state: 'unknown', expr: { error: 'the expression gives string, not a bool' } });
    expect(judgeDependency({ name: 'common', readyExpr: DOCS_EXPR }, self, ready('True'), builtin, { cel: null })).toMatchObject({ state: 'unknown' });
    expect(judgeDependency({ name: 'common' }, self, undefined, builtin, { cel })).toEqual({ ready: false, state: 'not-found' });
  });

  it('healthCheckExprs as the docs write them, with the object\'s fields bound at the top level', () => {
    const obj = { status: { conditions: [{ type: 'Ready', status: 'True' }] } };
    expect(evaluateBoolean(cel, "status.conditions.filter(e, e.type == 'Ready').all(e, e.status == 'True')", obj)).toEqual({ ok: true, value: true });
    expect(evaluateBoolean(cel, "status.conditions.filter(e, e.type == 'Ready').all(e, e.status == 'False')", obj)).toEqual({ ok: true, value: false });
  });
});
