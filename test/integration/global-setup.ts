// Starts ONE testbed for the whole integration run and hands its coordinates
// to the test files through vitest's provide/inject (tests run in workers, so
// they get plain data and use connect() from the harness).
import type { TestProject } from 'vitest/node';
import { start, type Testbed, type TestbedInfo } from '../testbed/harness.js';

declare module 'vitest' {
  export interface ProvidedContext {
    testbed: TestbedInfo;
  }
}

let testbed: Testbed | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // start() throws TestbedBinariesMissingError ("run `npm run testbed:build`")
  // when the binaries for the current go.mod/go.sum are not in the cache.
  testbed = await start({
    log: (l) => {
      if (process.env.STANDUP_TESTBED_VERBOSE) process.stderr.write(`[testbed] ${l}\n`);
    },
  });
  process.stderr.write(
    `[testbed] ready in ${testbed.timings.total} ms: ${testbed.server}, git ${testbed.gitBaseUrl}, logs ${testbed.logs}\n`,
  );
  project.provide('testbed', testbed.info);
  return async () => {
    await testbed?.stop();
    testbed = undefined;
  };
}
