import { formatDuration } from '../../runner/duration.js';
import type { RunRecord } from './record.js';
import { table } from '../table.js';
import type { Style } from '../style.js';

/** The end-of-run table: every step with its result and duration, slowest tiers visible at a glance. */
export function renderSummary(r: RunRecord, style: Style): string {
  const rows = r.steps.map((s) => [
    s.level === null ? '' : String(s.level),
    s.title,
    s.result === 'ok' ? style.green('ok') : s.result === 'failed' ? style.red('failed') : s.result,
    s.durationMs === null ? '-' : formatDuration(s.durationMs),
  ]);
  return `${table(['LEVEL', 'STEP', 'RESULT', 'DURATION'], rows)}\n${r.ok ? style.green('✔') : style.red('✗')} ${r.command} ${r.ok ? 'finished' : 'stopped'} in ${formatDuration(r.durationMs)}\n`;
}
