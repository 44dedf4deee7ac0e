import { defineConfig } from 'vitest/config';
import { reporters } from './vitest.reporters.js';

// Unit tests: fast, no cluster. Integration tests (test/integration) have their own config and share one testbed.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    exclude: ['test/integration/**', 'test/corpus/**', 'node_modules/**'],
    testTimeout: 30_000,
    ...reporters('unit'),
  },
});
