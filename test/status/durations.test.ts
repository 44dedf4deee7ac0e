import { describe, expect, it } from 'vitest';
import { humanizeDurations } from '../../src/status/durations.js';

describe('humanizeDurations', () => {
  it.each([
    ['health check failed after 30.071264876s: timeout waiting for', 'health check failed after 30s: timeout waiting for'],
    ['after 4m59.998s', 'after 5m'],
    ['in 512.3ms', 'in 512ms'],
    ['with a timeout of 5m0s', 'with a timeout of 5m0s'],
    ['interval 10m', 'interval 10m'],
    ['took 1h2m3.4s', 'took 1h2m3s'],
    ['main@sha1:5c6a8ee0 is not a duration', 'main@sha1:5c6a8ee0 is not a duration'],
  ])('%s', (input, out) => {
    expect(humanizeDurations(input)).toBe(out);
  });
});
