import { jsonEvent } from '../../runner/event-json.js';
import { renderStreamDocument, type DataFormat } from '../document.js';
import type { Reporter } from './reporter.js';

/**
 * `-o json`: every event, one per line on stdout, in the contract's shape (runner/event-json.ts); `-o yaml`:
 * one YAML document per event, each opened by `---`. People-facing logs stay on stderr.
 */
export function jsonReporter(out: (s: string) => void, format: DataFormat = 'json'): Reporter {
  return {
    onEvent: (e) => {
      const doc = jsonEvent(e);
      if (doc) out(renderStreamDocument(format, doc));
    },
    close: async () => {},
  };
}
