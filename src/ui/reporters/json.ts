import { renderStreamDocument, type DataFormat } from '../document.js';
import type { Reporter } from './reporter.js';

/**
 * `-o json`: every event, one per line on stdout, as the runner emitted it (the shapes are the contract); `-o yaml`:
 * one YAML document per event, each opened by `---`. People-facing logs stay on stderr.
 */
export function jsonReporter(out: (s: string) => void, format: DataFormat = 'json'): Reporter {
  return {
    onEvent: (e) => out(renderStreamDocument(format, e)),
    close: async () => {},
  };
}
