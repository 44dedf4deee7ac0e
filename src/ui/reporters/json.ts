import { renderStreamDocument, type DataFormat } from '../document.js';
import type { Reporter } from './reporter.js';

/**
 * `-o json`: one event per line on stdout, for automation (`-o yaml`: one YAML document per event, each opened by
 * `---`); people-facing logs stay on stderr.
 */
export function jsonReporter(out: (s: string) => void, format: DataFormat = 'json'): Reporter {
  return {
    onEvent: (e) => out(renderStreamDocument(format, e)),
    close: async () => {},
  };
}
