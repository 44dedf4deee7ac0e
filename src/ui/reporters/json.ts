import type { Reporter } from './reporter.js';

/**
 * `-o json`: every event, one per line on stdout, as the runner emitted it (the shapes are the contract); people-facing
 * logs stay on stderr.
 */
export function jsonReporter(out: (s: string) => void): Reporter {
  return {
    onEvent: (e) => out(JSON.stringify(e) + '\n'),
    close: async () => {},
  };
}
