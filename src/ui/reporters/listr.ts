import { Listr, PRESET_TIMER, type ListrTask } from 'listr2';
import type { RunEvent, StepInfo } from '../../runner/events.js';
import type { Reporter } from './reporter.js';

interface StepEnd {
  result: 'ok' | 'skipped' | 'failed' | 'not-run';
  message: string;
}

interface Control {
  ended: Promise<StepEnd>;
  end(e: StepEnd): void;
  output(message: string): void;
  setOutput?: (message: string) => void;
  pending?: string;
}

function control(): Control {
  let end!: (e: StepEnd) => void;
  const ended = new Promise<StepEnd>((r) => (end = r));
  const c: Control = {
    ended,
    end,
    output(m) {
      if (c.setOutput) c.setOutput(m);
      else c.pending = m;
    },
  };
  return c;
}

/**
 * The live task list on a terminal: the fixed steps, then one group per level whose tiers are waited on together,
 * each with its status line and timer. Driven entirely by run events.
 */
export function listrReporter(): Reporter {
  const controls = new Map<string, Control>();
  let running: Promise<unknown> = Promise.resolve();

  const taskFor = (s: StepInfo): ListrTask => {
    const c = controls.get(s.id)!;
    return {
      title: s.title,
      task: async (_ctx, task) => {
        c.setOutput = (m) => (task.output = m);
        if (c.pending) task.output = c.pending;
        const r = await c.ended;
        if (r.result === 'failed') throw new Error(r.message.split('\n')[0]);
        if (r.result === 'skipped' || r.result === 'not-run') {
          task.skip(r.message || 'not run');
          return;
        }
        task.title = `${s.title}: ${r.message}`;
      },
      rendererOptions: { persistentOutput: false, outputBar: 1 },
    };
  };

  return {
    onEvent(e: RunEvent) {
      if (e.type === 'plan') {
        e.steps.forEach((s) => controls.set(s.id, control()));
        const fixed = e.steps.filter((s) => s.kind !== 'tier');
        const levels = new Map<number, StepInfo[]>();
        for (const s of e.steps.filter((x) => x.kind === 'tier')) {
          const l = s.level ?? -1;
          levels.set(l, [...(levels.get(l) ?? []), s]);
        }
        const tasks: ListrTask[] = [
          ...fixed.map(taskFor),
          ...[...levels].sort(([a], [b]) => a - b).map(([level, steps]): ListrTask => ({
            title: level < 0 ? 'Blocked by a cycle' : `Level ${level}`,
            task: (_ctx, task) => task.newListr(steps.map(taskFor), { concurrent: true, exitOnError: false }),
          })),
        ];
        running = new Listr(tasks, {
          concurrent: false,
          exitOnError: false,
          renderer: 'default',
          rendererOptions: { timer: PRESET_TIMER, collapseSubtasks: false },
        }).run().catch(() => undefined);
        return;
      }
      if (e.type === 'step-status') controls.get(e.id)?.output(e.message);
      if (e.type === 'step-end') controls.get(e.id)?.end({ result: e.result, message: e.message });
      if (e.type === 'run-end') for (const c of controls.values()) c.end({ result: 'not-run', message: 'not run' });
    },
    close: async () => {
      await running;
    },
  };
}
