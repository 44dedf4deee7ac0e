import { defineConfig } from 'vitest/config';
import { reporters } from './vitest.reporters.js';

// Integration tests against a real kube-apiserver + Flux (test/testbed).
// One testbed per vitest process (global setup); its files run one at a time
// because they share that cluster and its controllers. `npm run
// test:integration` (scripts/test-integration.mjs) starts several such
// processes (shards), each with its own testbed, and hands each its files in
// STANDUP_INTEGRATION_FILES; its JSON report is then integration-s<n>.json.
const shardFiles = process.env.STANDUP_INTEGRATION_FILES ? (JSON.parse(process.env.STANDUP_INTEGRATION_FILES) as string[]) : undefined;
const shard = process.env.STANDUP_INTEGRATION_SHARD;

export default defineConfig({
  test: {
    ...reporters(shard ? `integration-s${shard}` : 'integration'),
    include: shardFiles ?? ['test/integration/**/*.test.ts'],
    globalSetup: ['test/integration/global-setup.ts'],
    fileParallelism: false,
    // Flux reconciles on a timer; generous limits keep a slow CI machine green
    // without hiding real hangs forever.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    teardownTimeout: 60_000,
  },
});
