import { describe, expect, it } from 'vitest';
import type { Problem } from '../../src/model/problem.js';
import { renderProblemsText } from '../../src/ui/problems-text.js';

const crdWarning = (group: string, i: number): Problem => ({
  code: 'runtime-crd', severity: 'warning', message: `no CRD for ${group}`, file: `apps/${i}.yaml`, line: 1, object: `X/${i}`, cluster: 'dev', externalCrd: group,
});

describe('check text: the externalCrds hint', () => {
  it('offers one tiers.yaml line for the groups of many runtime-crd findings, most frequent first', () => {
    const text = renderProblemsText([crdWarning('b.io', 1), crdWarning('a.io', 2), crdWarning('b.io', 3)], 1);
    expect(text).toContain('3 runtime-crd finding(s) concern CRDs of 2 group(s)');
    expect(text).toContain('externalCrds: [b.io, a.io]');
  });

  it('stays quiet for one or two findings, and for problems without a group', () => {
    expect(renderProblemsText([crdWarning('a.io', 1), crdWarning('a.io', 2)], 1)).not.toContain('externalCrds');
    const other: Problem = { code: 'wait-dependency', severity: 'warning', message: 'm', file: 'f', line: 1, object: null, cluster: 'dev' };
    expect(renderProblemsText([other, other, other], 1)).not.toContain('externalCrds');
  });
});
