// standup's API requests, from the API server's audit log (test/testbed/audit.ts): what the server itself saw, not
// what standup says it sent. The testbed's components are not audited; the benchmark's own watches carry a user
// agent of their own and are left out, so in a standup run what is left is standup's.
import { readAudit, type AuditEvent } from '../../../test/testbed/audit.js';
import { WATCH_USER_AGENT } from './watch.js';

export interface ApiTraffic {
  /** Requests other than watches. */
  requests: number;
  /** Watch requests (each one long-lived). */
  watches: number;
  /** Requests that write (create/update/patch/delete). */
  writes: number;
  /** Requests other than watches, per minute of the window. */
  perMinute: number;
  /** `verb resource` -> count. */
  byVerb: Record<string, number>;
  windowMs: number;
}

export function apiTraffic(auditLog: string, since: number, until: number): ApiTraffic {
  const events = readAudit(auditLog, { since: new Date(since), until: new Date(until) }).filter((e) => e.userAgent !== WATCH_USER_AGENT);
  return summarize(events, until - since);
}

export function summarize(events: AuditEvent[], windowMs: number): ApiTraffic {
  const byVerb: Record<string, number> = {};
  let watches = 0;
  let writes = 0;
  for (const e of events) {
    const what = `${e.verb} ${e.objectRef?.resource ?? e.requestURI.split('?')[0]}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''}`;
    byVerb[what] = (byVerb[what] ?? 0) + 1;
    if (e.verb === 'watch') watches++;
    if (['create', 'update', 'patch', 'delete', 'deletecollection'].includes(e.verb)) writes++;
  }
  const requests = events.length - watches;
  return { requests, watches, writes, perMinute: windowMs > 0 ? Math.round((requests / windowMs) * 60_000 * 10) / 10 : 0, byVerb, windowMs };
}
