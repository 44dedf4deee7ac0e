import { changeAction, type Change } from '../runner/change.js';
import type { RunEvent } from '../runner/events.js';

type ChangeEvent = Extract<RunEvent, { type: 'change' }>;

/** What a dry run would do, in the words a person reads (`would create`), never the past tense of what did not happen. */
function wouldDo(c: Change): string {
  switch (c.kind) {
    case 'apply':
      return c.action === 'created' ? 'would create' : c.action === 'configured' ? 'would configure' : 'unchanged';
    case 'annotate':
      return 'would annotate';
    case 'suspend':
      return 'would suspend';
    case 'resume':
      return 'would resume';
    case 'delete':
      return c.existed ? 'would delete' : 'already gone';
  }
}

/**
 * A change as a person reads it: `created Namespace/x`, and with --dry-run what would happen (`would create
 * Namespace/x`, `would annotate ... (key)`).
 */
export function changeText(e: ChangeEvent): string {
  if (!e.dryRun) return `${changeAction(e.change)} ${e.object}`;
  if (e.change.kind === 'annotate') return `would annotate ${e.object} (${e.change.key})`;
  return `${wouldDo(e.change)} ${e.object}`;
}

/** The live view shows writes and what a dry run would write; reconcile requests and no-ops are in the step lines. */
export function changeLine(e: ChangeEvent): string | null {
  if (e.dryRun) return changeText(e);
  const c = e.change;
  if ((c.kind === 'apply' && c.action === 'unchanged') || (c.kind === 'delete' && !c.existed) || c.kind === 'annotate') return null;
  return changeText(e);
}
