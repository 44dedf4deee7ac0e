// What converge does next for one flux-operator ResourceSet, as a pure function of the static model of what it
// generates (src/resourceset's expansion), what the cluster says and the time. A ResourceSet is a tier of its own: it
// starts once the tiers its dependsOn resolve to are Ready (and its parent has applied it), and its line names what it
// waits on: its dependsOn, then the Kustomizations and HelmReleases it generates, in their own dependsOn order.
// flux-operator's ResourceSet with `wait: true` is Ready only once what it applied is; without it, once applied.

import type { Readiness } from '../status/kustomization.js';
import { humanizeDurations } from '../status/durations.js';
import { statusLine } from './explain.js';

/** One Kustomization or HelmRelease the ResourceSet generates, as the cluster shows it now. */
export interface GeneratedView {
  /** `Kind/namespace/name`. */
  ref: string;
  /** null: not in the cluster yet (the operator has not applied it). */
  readiness: Readiness | null;
  /** What it depends on among the generated objects (its own dependsOn) that is not Ready yet. */
  after: readonly string[];
}

export interface ResourceSetView {
  /** `ResourceSet/namespace/name`. */
  key: string;
  /** Where it is written (`file:line`), for the hint of a failure. */
  at: string;
  readiness: Readiness;
  exists: boolean;
  /** `fluxcd.controlplane.io/reconcile: disabled`: the operator leaves it alone. */
  disabled: boolean;
  /** The tier that applies it, and whether it ended Ready (or it exists already). */
  parent: string | null;
  parentDone: boolean;
  /** Tiers its dependsOn resolve to: all ended Ready; those that ended otherwise; those still going. */
  depsDone: boolean;
  depsFailed: readonly string[];
  depsPending: readonly string[];
  /** dependsOn entries no tier orders (an object applied with it, a CRD of the entry, ...), as written. */
  otherDeps: readonly string[];
  /** Its generated Kustomizations and HelmReleases, in the operator's apply order; null when it was not expanded (why). */
  generated: readonly GeneratedView[] | { unknown: string };
  firstPass: boolean;
  timeoutMs: number;
}

export interface ResourceSetTrack {
  startedAt: number | null;
}

export type ResourceSetOutcome =
  | { type: 'finish'; result: 'ok' | 'skipped'; message: string }
  | { type: 'block'; by: readonly string[] }
  | { type: 'fail'; message: string; hint: string }
  | { type: 'timeout'; line: string };

export interface ResourceSetDecision {
  track: ResourceSetTrack;
  start: boolean;
  outcome: ResourceSetOutcome | null;
  line: string | null;
}

export function decideResourceSet(track: ResourceSetTrack, v: ResourceSetView, now: number): ResourceSetDecision {
  const t = { ...track };
  const none = (outcome: ResourceSetOutcome | null = null, line: string | null = null): ResourceSetDecision => ({ track: t, start: false, outcome, line });
  if (v.exists && v.disabled) return none({ type: 'finish', result: 'skipped', message: 'reconciliation disabled (fluxcd.controlplane.io/reconcile: disabled): flux-operator leaves it alone' });
  const r = v.readiness;
  if (r.state === 'ready' && v.exists) {
    const skipped = v.firstPass && t.startedAt === null;
    const made = generatedSummary(v);
    return { ...none({ type: 'finish', result: skipped ? 'skipped' : 'ok', message: `${skipped ? 'already Ready' : 'Ready'}${made}` }), start: !skipped && t.startedAt === null };
  }
  if (v.depsFailed.length > 0) return none({ type: 'block', by: v.depsFailed });
  if (!v.depsDone || (!v.exists && !v.parentDone)) return none();
  const start = t.startedAt === null;
  if (start) t.startedAt = now;
  const decision = (d: Partial<ResourceSetDecision>): ResourceSetDecision => ({ track: t, start, outcome: null, line: null, ...d });
  if (v.exists && r.state === 'failed') {
    const failed = Array.isArray(v.generated) ? (v.generated as GeneratedView[]).filter((g) => g.readiness?.state === 'failed') : [];
    const under = failed.map((g) => `\n  ${g.ref}: ${statusLine(g.readiness!)}`).join('');
    return decision({
      outcome: {
        type: 'fail',
        message: humanizeDurations(`${v.key} failed (${r.reason}): ${r.message}`) + under,
        hint: `Fix the ResourceSet (${v.at})${failed.length ? ` or what it generates (${failed.map((g) => g.ref).join(', ')})` : ''} in git, then \`standup resume\` (flux-operator does not retry a spec that failed this way).`,
      },
    });
  }
  const line = resourceSetLine(v);
  if (now - t.startedAt! > v.timeoutMs) return decision({ outcome: { type: 'timeout', line } });
  return decision({ line: r.transient ? null : line });
}

/** What the ResourceSet waits on now, in words: its parent, its dependsOn, then what it generates. */
export function resourceSetLine(v: ResourceSetView): string {
  if (!v.exists) return v.parent ? `not applied yet (${v.parent} applies it)` : 'not applied yet';
  const r = v.readiness;
  if (r.state === 'waiting' && /depend/i.test(`${r.reason} ${r.message}`)) {
    return `waiting for its dependsOn${v.otherDeps.length ? ` (${v.otherDeps.join(', ')})` : ''}: ${humanizeDurations(r.message || r.reason)}`;
  }
  if (!Array.isArray(v.generated)) return `${statusLine(r)} (what it generates is not known here: ${(v.generated as { unknown: string }).unknown})`;
  const gen = v.generated as readonly GeneratedView[];
  const pending = gen.filter((g) => g.readiness?.state !== 'ready');
  if (gen.length === 0 || pending.length === 0) return statusLine(r);
  // The ones that can progress now first; then those waiting for another generated object, then those not applied.
  const rank = (g: GeneratedView) => (g.readiness === null ? 2 : g.after.length > 0 ? 1 : 0);
  const words = [...pending].sort((a, b) => rank(a) - rank(b)).map((g) =>
    g.after.length > 0 ? `${g.ref} after ${g.after.join(', ')}` : g.readiness === null ? `${g.ref} not applied yet` : `${g.ref}: ${statusLine(g.readiness)}`,
  );
  return `waiting on ${pending.length} of the ${gen.length} Kustomizations/HelmReleases it generates: ${words.join('; ')}`;
}

function generatedSummary(v: ResourceSetView): string {
  if (!Array.isArray(v.generated)) return '';
  const gen = v.generated as readonly GeneratedView[];
  if (gen.length === 0) return '';
  const shown = gen.slice(0, 4).map((g) => g.ref).join(', ');
  return `; generated ${shown}${gen.length > 4 ? ` and ${gen.length - 4} more` : ''}`;
}
