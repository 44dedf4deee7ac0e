import { defineConfig } from 'vitest/config';
import { reporters } from './vitest.reporters.js';

// Integration tests against a real kube-apiserver + Flux (test/testbed).
// One testbed per run (global setup); files run one at a time because they
// share that cluster and its controllers.
export default defineConfig({
  test: {
    ...reporters('integration'),
    include: ['test/integration/**/*.test.ts'],
    globalSetup: ['test/integration/global-setup.ts'],
    fileParallelism: false,
    // Flux reconciles on a timer; generous limits keep a slow CI machine green
    // without hiding real hangs forever.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    teardownTimeout: 60_000,
  },
});
