import type { RunEvent } from '../../runner/events.js';

/** Consumes run events; never touches the cluster. `close` flushes (the live view draws its last frame). */
export interface Reporter {
  onEvent(e: RunEvent): void;
  close(): Promise<void>;
}

/** Fans events out to several reporters (the screen and the --record file). */
export function teeReporter(...reporters: Reporter[]): Reporter {
  return {
    onEvent: (e) => reporters.forEach((r) => r.onEvent(e)),
    close: async () => {
      for (const r of reporters) await r.close();
    },
  };
}
