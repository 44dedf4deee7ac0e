import type { Emit, StepCause, StepId, StepResult, StepState } from './events.js';

export interface StepOutcome {
  result: 'ok' | 'skipped';
  message: string;
}

interface State {
  startedAt: number | null;
  ended: boolean;
  line: string;
}

/**
 * The one place step events come from, for the fixed steps and every tier alike: start, status lines (each new one
 * once), and exactly one end with the duration measured from its start, so every reporter and the summary show the
 * same number.
 */
export class StepTracker {
  private readonly steps = new Map<StepId, State>();

  constructor(
    private readonly emit: Emit,
    private readonly now: () => number = Date.now,
  ) {}

  private state(id: StepId): State {
    let s = this.steps.get(id);
    if (!s) this.steps.set(id, (s = { startedAt: null, ended: false, line: '' }));
    return s;
  }

  start(id: StepId): void {
    const s = this.state(id);
    if (s.startedAt !== null || s.ended) return;
    s.startedAt = this.now();
    this.emit({ type: 'step-start', id, at: new Date(s.startedAt).toISOString() });
  }

  /** A new status line; the same line twice in a row is said once. */
  status(id: StepId, state: StepState, message: string): void {
    const s = this.state(id);
    if (s.ended || message === s.line) return;
    s.line = message;
    this.emit({ type: 'step-status', id, state, message });
  }

  end(id: StepId, result: StepResult, message: string, cause?: StepCause): void {
    const s = this.state(id);
    if (s.ended) return;
    s.ended = true;
    const durationMs = s.startedAt === null ? 0 : this.now() - s.startedAt;
    this.emit({ type: 'step-end', id, result, durationMs, message, ...(cause ? { cause } : {}) });
  }

  started(id: StepId): boolean {
    return this.steps.get(id)?.startedAt != null;
  }

  ended(id: StepId): boolean {
    return this.steps.get(id)?.ended ?? false;
  }

  /** The last status line of a step ('' when none). */
  lastLine(id: StepId): string {
    return this.steps.get(id)?.line ?? '';
  }

  /** Steps started and not ended, in start order. */
  open(): StepId[] {
    return [...this.steps].filter(([, s]) => s.startedAt !== null && !s.ended).map(([id]) => id);
  }

  /** Runs one step between its start and end; a throw ends it as failed (with the error's message) and rethrows. */
  async run(id: StepId, fn: () => Promise<StepOutcome>): Promise<StepOutcome> {
    this.start(id);
    try {
      const out = await fn();
      this.end(id, out.result, out.message);
      return out;
    } catch (e) {
      if (!this.ended(id)) this.end(id, resultOf(e), e instanceof Error ? e.message : String(e));
      throw e;
    }
  }
}

/** How an error ends the step it escaped from. */
export function resultOf(e: unknown): StepResult {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'INTERRUPTED' ? 'interrupted' : code === 'WAIT_TIMEOUT' || code === 'RUN_TIMEOUT' ? 'timeout' : 'failed';
}
