import { defineConfig } from 'vitest/config';
import { reporters } from './vitest.reporters.js';

// The corpus suite: real public GitOps repositories read in place from ../shared/corpus (never copied here).
// CI runs it separately from the README's unit suite, which must pass without ../shared.
export default defineConfig({
  test: {
    ...reporters('corpus'),
    include: ['test/corpus/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Each file loads big repositories with kustomize; running them one at a time keeps the 2-core machine usable.
    fileParallelism: false,
  },
});
