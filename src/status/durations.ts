// Go durations (`90s`, `1h30m`, `30.071264876s`): read from tiers.yaml and flags, found inside Flux's messages, and
// the durations standup prints. Pure.

import { ConfigError } from '../model/errors.js';

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, µs: 0.001, us: 0.001, ns: 0.000001 };

/** What tiers.yaml and the flags accept: the units a timeout is written in. */
const CONFIG_UNITS = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
/** What Flux prints: every unit Go's time.Duration.String() writes. */
const GO_UNITS = /(\d+(?:\.\d+)?)(h|ms|m|s|µs|us|ns)/g;

/** Milliseconds of a duration made only of `units`, one number and unit after another; null for anything else. */
function goDurationMs(text: string, units: RegExp): number | null {
  let total = 0;
  let consumed = 0;
  for (const m of text.matchAll(units)) {
    if (m.index !== consumed) return null;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    consumed += m[0].length;
  }
  return consumed === text.length && text.length > 0 ? total : null;
}

/** Parses a Go duration (`90s`, `10m`, `1h30m`, `500ms`) into milliseconds, as Flux and kubectl write them. */
export function parseDuration(text: string): number {
  const ms = goDurationMs(text, CONFIG_UNITS);
  if (ms === null) throw new ConfigError('BAD_DURATION', `"${text}" is not a duration`, 'Write it like Flux does: 90s, 10m, 1h30m.');
  return ms;
}

/** A step's elapsed time, as the live view, the plain lines and the summary show it: `707ms`, `1.5s`, `2m5s`. */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m${Math.round((ms % 60_000) / 1000)}s`;
}

/** A duration in messages, rounded to the second: `0.4s` -> `400ms`, `30.07s` -> `30s`, `3725s` -> `1h2m5s`. */
export function humanDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${sec || (!h && !m) ? `${sec}s` : ''}`;
}

const GO_DURATION = /\b((?:\d+h)?(?:\d+m(?!s))?(?:\d+(?:\.\d+)?(?:s|ms|µs|us|ns)))\b/g;

/**
 * Rewrites every Go duration in Flux's words (`health check failed after 30.071264876s`) that has a fraction or a
 * sub-second unit as people write it (`30s`); whole ones (`5m0s`, `10m`) stay as written.
 */
export function humanizeDurations(text: string): string {
  return text.replace(GO_DURATION, (d) => {
    if (!/\.|ms|µs|us|ns/.test(d)) return d;
    const ms = goDurationMs(d, GO_UNITS);
    return ms === null ? d : humanDuration(ms);
  });
}
