// The physical limit of the up benchmark (scripts/bench/up/limit.ts): the longest path through the event graph.
import { describe, expect, it } from 'vitest';
import { physicalLimit, type LimitInput, type LimitKustomization } from '../../scripts/bench/up/limit.js';

const ks = (key: string, o: Partial<LimitKustomization> = {}): LimitKustomization => ({ key, applier: 'fs/root', dependsOn: [], waitsOn: [], applyMs: 100, tailMs: 10, ...o });
const base = (k: LimitKustomization[], extra: Partial<LimitInput> = {}): LimitInput => ({
  kustomizations: [ks('fs/root', { applier: null, applyMs: 200, tailMs: 20 }), ...k],
  releases: [],
  sources: [{ key: 'GitRepository/fs/root', owner: null, fetchMs: 300 }],
  rootSource: 'GitRepository/fs/root',
  ...extra,
});

describe('physicalLimit', () => {
  it('a chain adds up: fetch, the root applies the tiers, each starts when the one before is Ready', () => {
    const l = physicalLimit(base([ks('fs/a'), ks('fs/b', { dependsOn: ['fs/a'] }), ks('fs/c', { dependsOn: ['fs/b'] })]));
    // 300 fetch + 200 root apply, then a: 110, b: 110, c: 110.
    expect(l.ms).toBe(300 + 200 + 3 * 110);
    expect(l.ready.get('fs/a')).toBe(610);
    expect(l.path).toEqual([
      'GitRepository/fs/root fetched (+300 ms)',
      'fs/root applied (+200 ms)',
      'fs/a applied (+100 ms)',
      'fs/a Ready (+10 ms)',
      'fs/b applied (+100 ms)',
      'fs/b Ready (+10 ms)',
      'fs/c applied (+100 ms)',
      'fs/c Ready (+10 ms)',
    ]);
  });

  it('independent tiers run side by side: the slowest decides', () => {
    const l = physicalLimit(base([ks('fs/a', { applyMs: 1000 }), ks('fs/b', { applyMs: 50 })]));
    expect(l.ms).toBe(500 + 1010);
    expect(l.path.at(-1)).toBe('fs/a Ready (+10 ms)');
  });

  it('a parent with wait: true is Ready only after the children it applied, and they start once it applied them', () => {
    const l = physicalLimit(base([ks('fs/parent', { waitsOn: ['fs/child'], applyMs: 100, tailMs: 5 }), ks('fs/child', { applier: 'fs/parent', applyMs: 400, tailMs: 10 })]));
    // child: 500 (root applied) + 100 (parent applied) + 410; parent: max(600, 1010) + 5.
    expect(l.ready.get('fs/child')).toBe(1010);
    expect(l.ready.get('fs/parent')).toBe(1015);
    expect(l.ms).toBe(1015);
  });

  it('a HelmRelease starts when its tier applied it and its dependsOn are Ready; a waiting tier waits for it', () => {
    const l = physicalLimit(
      base([ks('fs/db', { waitsOn: ['HelmRelease/db/pg'] }), ks('fs/app')], {
        releases: [
          { key: 'HelmRelease/db/pg', owner: 'fs/db', dependsOn: [], ownMs: 3000 },
          { key: 'HelmRelease/app/web', owner: 'fs/app', dependsOn: ['HelmRelease/db/pg'], ownMs: 2000 },
        ],
      }),
    );
    // pg: 600 + 3000; db Ready 3610; web: max(600, 3600) + 2000 = 5600 (its tier, fs/app, is Ready at 610).
    expect(l.ready.get('fs/db')).toBe(3610);
    expect(l.ready.get('HelmRelease/app/web')).toBe(5600);
    expect(l.ms).toBe(5600);
    expect(l.kustomizationsMs).toBe(3610);
  });

  it('a tier reading another source waits for the tier that applies that source, and its fetch', () => {
    const l = physicalLimit(
      base([ks('fs/sources'), ks('fs/ext', { source: 'GitRepository/fs/other', applier: 'fs/root' })], { sources: [{ key: 'GitRepository/fs/root', owner: null, fetchMs: 300 }, { key: 'GitRepository/fs/other', owner: 'fs/sources', fetchMs: 700 }] }),
    );
    expect(l.ready.get('fs/ext')).toBe(500 + 100 + 700 + 110);
  });

  it('refuses a graph with a dependency it has no measurement for, naming it', () => {
    expect(() => physicalLimit(base([ks('fs/a', { dependsOn: ['fs/gone'], waitsOn: ['HelmRelease/x/y'] })]))).toThrow('no measurement for HelmRelease/x/y, fs/gone');
  });

  it('refuses a cycle instead of looping', () => {
    expect(() => physicalLimit(base([ks('fs/a', { dependsOn: ['fs/b'] }), ks('fs/b', { dependsOn: ['fs/a'] })]))).toThrow(/cycle through/);
  });
});
