import { formatDuration } from '../../runner/duration.js';
import type { RunRecord } from './record.js';
import { table } from '../table.js';
import type { Style } from '../style.js';

const NOTE_WIDTH = 70;

/**
 * The end-of-run table: every step with its result and duration (the same numbers the live view showed), and for a
 * step that did not end ok, why, in a few words.
 */
export function renderSummary(r: RunRecord, style: Style): string {
  const rows = r.steps.map((s) => {
    const note = s.result === 'ok' || s.result === 'skipped' ? '' : s.message.split('\n')[0]!;
    return [
      s.level === null ? '' : String(s.level),
      s.title,
      s.result === 'ok' ? style.green('ok') : s.result === 'failed' ? style.red('failed') : s.result,
      s.durationMs === null ? '-' : formatDuration(s.durationMs),
      note.length > NOTE_WIDTH ? `${note.slice(0, NOTE_WIDTH - 1)}…` : note,
    ];
  });
  return `${table(['LEVEL', 'STEP', 'RESULT', 'DURATION', 'NOTE'], rows)}\n${r.ok ? style.green('✔') : style.red('✗')} ${r.command} ${r.ok ? 'finished' : 'stopped'} in ${formatDuration(r.durationMs)}\n`;
}
