import type { RunEvent, StepId, StepInfo, StepReport } from './events.js';

/**
 * Every step of a run as its events leave it, in plan order (a step not in the plan after them): the table run-end
 * carries for the summary and the run record.
 */
export class StepLedger {
  private readonly steps = new Map<StepId, StepReport>();

  constructor(planned: readonly StepInfo[]) {
    for (const s of planned) this.steps.set(s.id, blank(s.id, s.title, s.level ?? null));
  }

  see(e: RunEvent): void {
    switch (e.type) {
      case 'step-start':
        this.step(e.id).startedAt = e.at;
        break;
      case 'step-status':
        this.step(e.id).message = e.message;
        break;
      case 'step-end':
        Object.assign(this.step(e.id), { result: e.result, durationMs: e.durationMs, message: e.message });
        break;
      case 'change':
        this.step(e.id).changes.push({ object: e.object, change: e.change });
        break;
      default:
        break;
    }
  }

  report(): StepReport[] {
    return [...this.steps.values()].map((s) => ({ ...s, changes: [...s.changes] }));
  }

  private step(id: StepId): StepReport {
    let s = this.steps.get(id);
    if (!s) this.steps.set(id, (s = blank(id, id, null)));
    return s;
  }
}

const blank = (id: StepId, title: string, level: number | null): StepReport => ({ id, title, level, result: 'not-run', startedAt: null, durationMs: null, message: '', changes: [] });
