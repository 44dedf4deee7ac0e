// What a run writes (or, with --dry-run, would write), as values: reporters word them, `-o json` prints the action
// as the string the event stream has always carried.

import type { ApplyAction } from '../cluster/client.js';

export type Change =
  /** A server-side apply, with the server's verdict. */
  | { kind: 'apply'; action: ApplyAction }
  /** An annotation; `value` absent when a dry run does not know it (a reconcile request's timestamp). */
  | { kind: 'annotate'; key: string; value?: string }
  | { kind: 'suspend' }
  | { kind: 'resume' }
  /** A delete; `existed` false when the object was already gone. */
  | { kind: 'delete'; existed: boolean };

/** The `action` of a change event in `-o json` and the run record: `created`, `annotated KEY=VALUE`, `already gone`. */
export function changeAction(c: Change): string {
  switch (c.kind) {
    case 'apply':
      return c.action;
    case 'annotate':
      return c.value === undefined ? `annotated ${c.key}` : `annotated ${c.key}=${c.value}`;
    case 'suspend':
      return 'suspended';
    case 'resume':
      return 'resumed';
    case 'delete':
      return c.existed ? 'deleted' : 'already gone';
  }
}

/** Counts apply actions into one line: `3 created, 1 configured, 12 unchanged`. */
export function summarizeActions(actions: readonly ApplyAction[], dryRun = false): string {
  const counts = new Map<string, number>();
  for (const a of actions) counts.set(a, (counts.get(a) ?? 0) + 1);
  const line = [...counts].map(([a, n]) => `${n} ${dryRun && a !== 'unchanged' ? `would be ${a}` : a}`).join(', ');
  return line || 'nothing to apply';
}
