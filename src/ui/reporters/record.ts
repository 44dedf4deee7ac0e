import { writeFile } from 'node:fs/promises';
import { changeAction } from '../../runner/change.js';
import { assertNever, type RunEvent, type StepReport } from '../../runner/events.js';
import type { Reporter } from './reporter.js';

/** A step as the run ended it, its changes worded as `-o json` words them. */
export type StepRecord = Omit<StepReport, 'changes'> & { changes: { object: string; action: string }[] };

/** The run record (`--record FILE`): what happened, step by step, for a post-mortem. Holds no secret data. */
export interface RunRecord {
  command: string;
  cluster: string;
  dryRun: boolean;
  startedAt: string;
  durationMs: number;
  ok: boolean;
  exitCode: number;
  message: string;
  /** The error's stable code when the run failed. */
  code?: string;
  hint?: string;
  steps: StepRecord[];
  /** What the run said besides its steps (the cluster unreachable, --force ignoring a problem), in order. */
  logs: { level: 'info' | 'warn'; message: string }[];
}

const recordOf = (s: StepReport): StepRecord => ({ ...s, changes: s.changes.map((c) => ({ object: c.object, action: changeAction(c.change) })) });

/** Collects a run's events into a RunRecord; `record()` returns it at any time (also after a failure). */
export class RecordCollector implements Reporter {
  private readonly started = new Date();
  private info: { command: string; cluster: string; dryRun: boolean } = { command: '', cluster: '', dryRun: false };
  /** The plan's steps until run-end carries how each ended. */
  private steps: StepRecord[] = [];
  private end: { ok: boolean; exitCode: number; message: string; durationMs: number; code?: string; hint?: string } | null = null;
  private readonly logs: RunRecord['logs'] = [];

  constructor(private readonly file?: string) {}

  onEvent(e: RunEvent): void {
    switch (e.type) {
      case 'plan':
        this.info = { command: e.command, cluster: e.cluster, dryRun: e.dryRun };
        this.steps = e.steps.map((s) => ({ id: s.id, title: s.title, level: s.level ?? null, result: 'not-run', startedAt: null, durationMs: null, message: '', changes: [] }));
        break;
      case 'log':
        this.logs.push({ level: e.level, message: e.message });
        break;
      case 'run-end':
        this.end = { ok: e.ok, exitCode: e.exitCode, message: e.message, durationMs: e.durationMs, ...(e.code ? { code: e.code } : {}), ...(e.hint ? { hint: e.hint } : {}) };
        this.steps = e.steps.map(recordOf);
        break;
      case 'step-start':
      case 'step-status':
      case 'step-end':
      case 'change':
      case 'problems':
        break;
      default:
        assertNever(e);
    }
  }

  record(): RunRecord {
    return {
      ...this.info,
      startedAt: this.started.toISOString(),
      durationMs: this.end?.durationMs ?? Date.now() - this.started.getTime(),
      ok: this.end?.ok ?? false,
      exitCode: this.end?.exitCode ?? -1,
      message: this.end?.message ?? '',
      ...(this.end?.code ? { code: this.end.code } : {}),
      ...(this.end?.hint ? { hint: this.end.hint } : {}),
      steps: this.steps,
      logs: [...this.logs],
    };
  }

  async close(): Promise<void> {
    if (this.file) await writeFile(this.file, JSON.stringify(this.record(), null, 2) + '\n', { mode: 0o600 });
  }
}
