import { describe, expect, it } from 'vitest';
import { sourceRootFor } from '../../src/render/root-sources.js';

describe('sourceRootFor: where a cluster\'s Flux paths resolve', () => {
  it.each([
    ['a repository whose root is the Flux source', 'clusters/dev', './clusters/dev', ''],
    ['a Flux repository in a subdirectory (the bundled example)', 'examples/homelab/clusters/dev', './clusters/dev', 'examples/homelab'],
    ['a trailing slash and no ./', 'examples/homelab/clusters/dev', 'clusters/dev/', 'examples/homelab'],
    ['a path that is not the entry\'s end', 'clusters/dev', './clusters/prod', null],
    ['a partial name match is not a suffix', 'x/myclusters/dev', './clusters/dev', null],
    ['the repository root itself', '', './', ''],
  ])('%s', (_n, entry, specPath, expected) => {
    expect(sourceRootFor(entry, specPath)).toBe(expected);
  });
});
