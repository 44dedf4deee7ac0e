import { describe, expect, it } from 'vitest';
import { optedOut, substituteString, type Vars } from '../../src/render/envsubst.js';

const vars = (known: Record<string, string>, hasUnknown = false): Vars => ({ known: new Map(Object.entries(known)), hasUnknown });

describe('postBuild substitution (FLUX.md §6, strict mode)', () => {
  const v = vars({ CLUSTER: 'dev', EMPTY: '', NAME: 'Widget' });
  it.each([
    ['a bare variable is replaced', 'x-${CLUSTER}-y', 'x-dev-y', []],
    ['`:=` default when unset', '${MISSING:=fallback}', 'fallback', []],
    ['`:-` default when unset', '${MISSING:-fallback}', 'fallback', []],
    ['`=` default when unset', '${MISSING=fallback}', 'fallback', []],
    ['a default yields to a set value', '${CLUSTER:=fallback}', 'dev', []],
    ['a default also applies to an empty value', '${EMPTY:=fallback}', 'fallback', []],
    ['`$${v}` escapes to a literal ${v}', '$${CLUSTER}', '${CLUSTER}', []],
    ['`$v` without braces is not substituted', '$CLUSTER', '$CLUSTER', []],
    ['an undefined variable is an error in strict mode', '${NOPE}', '${NOPE}', ['undefined:NOPE']],
    ['a transformed undefined variable is an error too', '${NOPE^^}', '${NOPE^^}', ['undefined:NOPE']],
    ['case functions apply', '${NAME,,}-${NAME^^}', 'widget-WIDGET', []],
    ['`${v-d}` does not parse in Flux', '${CLUSTER-d}', '${CLUSTER-d}', ['syntax:CLUSTER']],
    ['`${v+d}` does not parse in Flux', '${CLUSTER+d}', '${CLUSTER+d}', ['syntax:CLUSTER']],
    ['text without a dollar is untouched', 'plain', 'plain', []],
    ['a default may hold another variable', '${MISSING:=${CLUSTER}-x}', 'dev-x', []],
  ])('%s', (_name, input, want, wantIssues) => {
    const r = substituteString(input, v);
    expect(r.text).toBe(want);
    expect(r.issues.map((i) => `${i.kind}:${i.variable}`)).toEqual(wantIssues);
  });

  it('reports a variable as unknown, not undefined, when some source cannot be read (SOPS)', () => {
    const r = substituteString('${SECRET_DOMAIN}', vars({}, true));
    expect(r.issues.map((i) => i.kind)).toEqual(['unknown']);
  });

  it('honours the opt-out label or annotation, exactly and case-sensitively', () => {
    const key = 'kustomize.toolkit.fluxcd.io/substitute';
    expect(optedOut({ metadata: { labels: { [key]: 'disabled' } } })).toBe(true);
    expect(optedOut({ metadata: { annotations: { [key]: 'disabled' } } })).toBe(true);
    expect(optedOut({ metadata: { annotations: { [key]: 'Disabled' } } })).toBe(false);
    expect(optedOut({ metadata: {} })).toBe(false);
  });
});
