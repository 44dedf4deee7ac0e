import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/graph.js';
import { computeLevels } from '../../src/graph/levels.js';
import { findCycles } from '../../src/graph/cycles.js';
import { cluster, ks } from '../helpers/model.js';

const levelsOf = (...k: ReturnType<typeof ks>[]) => computeLevels(buildGraph(cluster('dev', k)));

describe('levels', () => {
  it.each([
    ['a single tier is level 0', [ks('a')], [['flux-system/a']], []],
    ['a chain gives one tier per level', [ks('c', { dependsOn: ['b'] }), ks('b', { dependsOn: ['a'] }), ks('a')],
      [['flux-system/a'], ['flux-system/b'], ['flux-system/c']], []],
    ['independent tiers share a level, sorted', [ks('z'), ks('a'), ks('m', { dependsOn: ['a', 'z'] })],
      [['flux-system/a', 'flux-system/z'], ['flux-system/m']], []],
    ['a diamond puts the join after the longest branch', [ks('a'), ks('b', { dependsOn: ['a'] }), ks('c', { dependsOn: ['b'] }), ks('d', { dependsOn: ['a', 'c'] })],
      [['flux-system/a'], ['flux-system/b'], ['flux-system/c'], ['flux-system/d']], []],
    ['a cycle and its dependents are blocked, the rest still levelled', [ks('a', { dependsOn: ['b'] }), ks('b', { dependsOn: ['a'] }), ks('c', { dependsOn: ['a'] }), ks('d')],
      [['flux-system/d']], ['flux-system/a', 'flux-system/b', 'flux-system/c']],
    ['a missing dependency does not block the dependent', [ks('a', { dependsOn: ['ghost'] })], [['flux-system/a']], []],
  ])('%s', (_name, nodes, levels, blocked) => {
    const l = levelsOf(...nodes);
    expect(l.levels).toEqual(levels);
    expect(l.blocked).toEqual(blocked);
  });

  it('keys by namespace: the same name in two namespaces is two nodes', () => {
    const g = buildGraph(cluster('hub', [ks('apps', { namespace: 'spoke1', dependsOn: ['infra'] }), ks('infra', { namespace: 'spoke1' }),
      ks('apps', { namespace: 'spoke2', dependsOn: ['infra'] }), ks('infra', { namespace: 'spoke2' })]));
    expect(g.deps.get('spoke1/apps')).toEqual(['spoke1/infra']);
    expect(g.deps.get('spoke2/apps')).toEqual(['spoke2/infra']);
  });

  it('records missing dependencies with the dependsOn line', () => {
    const g = buildGraph(cluster('dev', [ks('a', { dependsOn: ['other/ghost'] })]));
    expect(g.missing).toEqual([{ from: 'flux-system/a', to: 'other/ghost', line: 5 }]);
  });

  it('treats an excluded dependency as satisfied', () => {
    const g = buildGraph(cluster('dev', [ks('a', { dependsOn: ['b'] }), ks('b')]), new Set(['flux-system/b']));
    expect(g.missing).toEqual([]);
    expect([...g.nodes.keys()]).toEqual(['flux-system/a']);
  });
});

describe('cycles', () => {
  it.each([
    ['a two-node cycle, from its smallest key', [ks('b', { dependsOn: ['a'] }), ks('a', { dependsOn: ['b'] })],
      [['flux-system/a', 'flux-system/b', 'flux-system/a']]],
    ['a self-dependency', [ks('a', { dependsOn: ['a'] })], [['flux-system/a', 'flux-system/a']]],
    ['two separate cycles', [ks('a', { dependsOn: ['b'] }), ks('b', { dependsOn: ['a'] }), ks('x', { dependsOn: ['y'] }), ks('y', { dependsOn: ['z'] }), ks('z', { dependsOn: ['x'] })],
      [['flux-system/a', 'flux-system/b', 'flux-system/a'], ['flux-system/x', 'flux-system/y', 'flux-system/z', 'flux-system/x']]],
    ['no cycle in a diamond', [ks('a'), ks('b', { dependsOn: ['a'] }), ks('c', { dependsOn: ['a'] }), ks('d', { dependsOn: ['b', 'c'] })], []],
  ])('%s', (_n, nodes, cycles) => {
    expect(findCycles(buildGraph(cluster('dev', nodes)))).toEqual(cycles);
  });
});
