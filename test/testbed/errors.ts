// Typed errors so callers (global setup, the CLI, tests) can tell a missing
// build from a component that failed to come up.

export class TestbedError extends Error {
  override name = 'TestbedError';
}

/** The cached binaries for the current go.mod/go.sum/go version are not built. */
export class TestbedBinariesMissingError extends TestbedError {
  override name = 'TestbedBinariesMissingError';
  constructor(
    readonly binDir: string,
    readonly missing: string[],
  ) {
    super(
      `testbed binaries missing in ${binDir}: ${missing.join(', ')}.\n` +
        `Run \`npm run testbed:build\` (bash scripts/build-testbed.sh) first; a cold build takes a while.`,
    );
  }
}

/** A component did not become ready in time; `logFile` says why. */
export class TestbedStartError extends TestbedError {
  override name = 'TestbedStartError';
  constructor(
    readonly component: string,
    reason: string,
    readonly logFile?: string,
  ) {
    super(`${component} did not start: ${reason}${logFile ? ` (log: ${logFile})` : ''}`);
  }
}

/** A poll gave up; `last` is the last observed state, for the failure message. */
export class TimeoutError extends TestbedError {
  override name = 'TimeoutError';
  constructor(
    readonly what: string,
    readonly ms: number,
    readonly last?: string,
  ) {
    super(`timed out after ${ms} ms waiting for ${what}${last ? ` (last: ${last})` : ''}`);
  }
}
