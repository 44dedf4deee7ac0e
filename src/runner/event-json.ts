// The event stream's contract (`-o json`, `-o yaml`; README): the runner's events as the documents printed, field for
// field. A change's `action` stays the string it has always been, and what only the text reporters use (the static
// problems, which stderr lists, and the step table run-end carries for the summary) is not printed.

import { changeAction } from './change.js';
import type { RunEvent } from './events.js';

/** The document `-o json` prints for an event, or null for one it does not print. */
export function jsonEvent(e: RunEvent): object | null {
  switch (e.type) {
    case 'change':
      return { type: e.type, id: e.id, object: e.object, action: changeAction(e.change), dryRun: e.dryRun };
    case 'problems':
      return null;
    case 'run-end': {
      const { steps: _steps, ...printed } = e;
      return printed;
    }
    default:
      return e;
  }
}
