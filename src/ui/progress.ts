import type { Ora } from 'ora';

/** A one-line progress indicator for work the live view does not draw (loading the repository in plan, check, diff). */
export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

export const noProgress: Progress = { update: () => {}, stop: () => {} };

export interface ProgressOptions {
  /** What the line says, e.g. `rendering 87/135 Kustomizations`. */
  label: (done: number, total: number) => string;
  /** Nothing is drawn for work that ends sooner than this (no flicker on a small repository). Default 400 ms. */
  delayMs?: number;
}

/**
 * An ora spinner on `stream` (a terminal; the caller decides that, see loadProgress), drawn only once the work has
 * taken `delayMs`, and cleared without a trace by stop(): what follows on stdout or stderr is not disturbed.
 */
export function progressLine(stream: NodeJS.WriteStream, o: ProgressOptions): Progress {
  // A terminal that reports no width (a pty opened without a size) would make ora clear Infinity lines per frame.
  if (!(stream.columns > 0)) return noProgress;
  let spinner: Ora | null = null;
  let done = 0;
  let total = 0;
  let stopped = false;
  // ora is imported only once the line is due (~75 ms to import, which a quick or warm run never needs).
  const timer = setTimeout(() => {
    void import('ora').then(({ default: ora }) => {
      if (stopped) return;
      // discardStdin: false, or ora would take over stdin (and a Ctrl-C while loading would go unseen).
      spinner = ora({ stream, text: o.label(done, total), discardStdin: false, isEnabled: true, color: 'cyan' }).start();
    });
  }, o.delayMs ?? 400);
  return {
    update(d, t) {
      done = d;
      total = t;
      if (spinner) spinner.text = o.label(d, t);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      spinner?.stop();
      spinner = null;
    },
  };
}

/** Splits one progress line between `n` concurrent jobs (diff loads two revisions): their counts are added up. */
export function shareProgress(p: Progress, n: number): ((done: number, total: number) => void)[] {
  const counts = Array.from({ length: n }, () => ({ done: 0, total: 0 }));
  return counts.map((c) => (done: number, total: number) => {
    c.done = done;
    c.total = total;
    p.update(counts.reduce((s, x) => s + x.done, 0), counts.reduce((s, x) => s + x.total, 0));
  });
}
