import { writeFile } from 'node:fs/promises';
import { assertNever, type RunEvent, type StepInfo, type StepResult } from '../../runner/events.js';
import type { Reporter } from './reporter.js';

export interface StepRecord {
  id: string;
  title: string;
  level: number | null;
  result: StepResult;
  startedAt: string | null;
  durationMs: number | null;
  message: string;
  changes: { object: string; action: string }[];
}

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

/** Collects events into a RunRecord; `record()` returns it at any time (also after a failure). */
export class RecordCollector implements Reporter {
  private readonly started = new Date();
  private info: { command: string; cluster: string; dryRun: boolean } = { command: '', cluster: '', dryRun: false };
  private readonly steps = new Map<string, StepRecord>();
  private end: { ok: boolean; exitCode: number; message: string; durationMs: number; code?: string; hint?: string } | null = null;
  private readonly logs: RunRecord['logs'] = [];

  constructor(private readonly file?: string) {}

  onEvent(e: RunEvent): void {
    switch (e.type) {
      case 'plan':
        this.info = { command: e.command, cluster: e.cluster, dryRun: e.dryRun };
        e.steps.forEach((s: StepInfo) => this.steps.set(s.id, { id: s.id, title: s.title, level: s.level ?? null, result: 'not-run', startedAt: null, durationMs: null, message: '', changes: [] }));
        break;
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
        this.step(e.id).changes.push({ object: e.object, action: e.action });
        break;
      case 'log':
        this.logs.push({ level: e.level, message: e.message });
        break;
      case 'run-end':
        this.end = { ok: e.ok, exitCode: e.exitCode, message: e.message, durationMs: e.durationMs, ...(e.code ? { code: e.code } : {}), ...(e.hint ? { hint: e.hint } : {}) };
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
      steps: [...this.steps.values()],
      logs: [...this.logs],
    };
  }

  async close(): Promise<void> {
    if (this.file) await writeFile(this.file, JSON.stringify(this.record(), null, 2) + '\n', { mode: 0o600 });
  }

  private step(id: string): StepRecord {
    let s = this.steps.get(id);
    if (!s) {
      s = { id, title: id, level: null, result: 'not-run', startedAt: null, durationMs: null, message: '', changes: [] };
      this.steps.set(id, s);
    }
    return s;
  }
}
