// The build script and the harness must agree on the cache key, or the
// harness looks for binaries in a directory the script never fills.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, testbedBinDir, testbedKey } from './paths.js';

describe('testbed cache key', () => {
  it('matches scripts/build-testbed.sh --print-bin-dir', () => {
    const fromScript = execFileSync('bash', [path.join(repoRoot, 'scripts/build-testbed.sh'), '--print-bin-dir'], {
      encoding: 'utf8',
    }).trim();
    expect(fromScript).toBe(testbedBinDir());
    expect(testbedKey()).toMatch(/^[0-9a-f]{16}$/);
  });
});
