// Go durations inside Flux's messages (`health check failed after 30.071264876s`) as people write them (`30s`). Pure.

const GO_DURATION = /\b((?:\d+h)?(?:\d+m(?!s))?(?:\d+(?:\.\d+)?(?:s|ms|µs|us|ns)))\b/g;
const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, µs: 0.001, us: 0.001, ns: 0.000001 };

function parseGo(d: string): number | null {
  let total = 0;
  let seen = 0;
  for (const m of d.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|µs|us|ns)/g)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    seen += m[0].length;
  }
  return seen === d.length ? total : null;
}

/** `0.4s` -> `400ms`, `30.07s` -> `30s`, `4m59.9s` -> `5m`, `3725s` -> `1h2m5s`. */
export function humanDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${sec || (!h && !m) ? `${sec}s` : ''}`;
}

/** Rewrites every Go duration with a fraction or a sub-second unit; whole ones (`5m0s`, `10m`) stay as written. */
export function humanizeDurations(text: string): string {
  return text.replace(GO_DURATION, (d) => {
    if (!/\.|ms|µs|us|ns/.test(d)) return d;
    const ms = parseGo(d);
    return ms === null ? d : humanDuration(ms);
  });
}
