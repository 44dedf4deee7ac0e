import { defineConfig } from 'vitest/config';
import { reporters } from './vitest.reporters.js';

// Unit tests: fast, no cluster. Integration tests (test/integration) have their own config: one testbed per shard (scripts/test-integration.mjs).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    exclude: ['test/integration/**', 'test/corpus/**', 'node_modules/**'],
    testTimeout: 30_000,
    ...reporters('unit'),
  },
});
