import type { RunEvent } from '../runner/events.js';

type Change = Extract<RunEvent, { type: 'change' }>;

const WOULD: Record<string, string> = {
  created: 'would create',
  configured: 'would configure',
  unchanged: 'unchanged',
  deleted: 'would delete',
  suspended: 'would suspend',
  resumed: 'would resume',
  'already gone': 'already gone',
};

/**
 * A change as a person reads it: `created Namespace/x`, and with --dry-run what would happen (`would create
 * Namespace/x`, `would annotate ...`), never the past tense of something that did not happen.
 */
export function changeText(e: Change): string {
  if (!e.dryRun) return `${e.action} ${e.object}`;
  const annotated = /^annotated (\S+?)(=.*)?$/.exec(e.action);
  if (annotated) return `would annotate ${e.object} (${annotated[1]})`;
  return `${WOULD[e.action] ?? `would ${e.action}`} ${e.object}`;
}

/** The live view shows writes and what a dry run would write; reconcile requests and no-ops are in the step lines. */
export function changeLine(e: Change): string | null {
  if (e.dryRun) return changeText(e);
  if (e.action === 'unchanged' || e.action === 'already gone' || e.action.startsWith('annotated ')) return null;
  return changeText(e);
}
