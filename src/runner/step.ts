import type { Emit, StepResult } from './events.js';

export interface StepOutcome {
  result: Exclude<StepResult, 'failed'>;
  message: string;
}

/** Runs one step between its start and end events; a throw ends it as failed (with the error's message) and rethrows. */
export async function runStep(emit: Emit, id: string, fn: () => Promise<StepOutcome>): Promise<StepOutcome> {
  const started = Date.now();
  emit({ type: 'step-start', id, at: new Date(started).toISOString() });
  try {
    const out = await fn();
    emit({ type: 'step-end', id, result: out.result, durationMs: Date.now() - started, message: out.message });
    return out;
  } catch (e) {
    emit({ type: 'step-end', id, result: 'failed', durationMs: Date.now() - started, message: e instanceof Error ? e.message : String(e) });
    throw e;
  }
}

/** Counts apply actions into one line: `3 created, 1 configured, 12 unchanged`. */
export function summarizeActions(actions: string[]): string {
  const counts = new Map<string, number>();
  for (const a of actions) counts.set(a, (counts.get(a) ?? 0) + 1);
  return [...counts].map(([a, n]) => `${n} ${a}`).join(', ') || 'nothing to apply';
}
