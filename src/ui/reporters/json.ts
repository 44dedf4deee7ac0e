import type { Reporter } from './reporter.js';

/** `-o json`: one event per line on stdout, for automation; people-facing logs stay on stderr. */
export function jsonReporter(out: (s: string) => void): Reporter {
  return {
    onEvent: (e) => out(JSON.stringify(e) + '\n'),
    close: async () => {},
  };
}
