import { describe, expect, it } from 'vitest';
import { formatElapsed, humanDuration, humanizeDurations, parseDuration } from '../../src/status/durations.js';

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

describe('parseDuration (tiers.yaml and flags)', () => {
  it.each([
    ['90s', 90_000],
    ['10m', 600_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
    ['1.5s', 1500],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([[''], ['soon'], ['10'], ['5us'], ['1m soon'], ['-5m']])('refuses %j with exit 2', (text) => {
    expect(() => parseDuration(text)).toThrow(expect.objectContaining({ code: 'BAD_DURATION', exitCode: 2 }));
  });
});

describe('the two ways standup prints a duration', () => {
  it.each([
    [707, '707ms', '707ms'],
    [1500, '1.5s', '2s'],
    [59_940, '59.9s', '1m'],
    [125_000, '2m5s', '2m5s'],
    [3_725_000, '62m5s', '1h2m5s'],
  ])('%d ms: a step took %s; a message says %s', (ms, elapsed, human) => {
    expect(formatElapsed(ms)).toBe(elapsed);
    expect(humanDuration(ms)).toBe(human);
  });
});
