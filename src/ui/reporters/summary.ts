import type { RunEvent, StepReport } from '../../runner/events.js';
import type { Problem } from '../../model/problem.js';
import { formatElapsed } from '../../status/durations.js';
import { renderProblemsText } from '../problems-text.js';
import { table } from '../table.js';
import type { Style } from '../style.js';
import type { Reporter } from './reporter.js';

const NOTE_WIDTH = 70;

/** What the end-of-run table shows: the command, how the run ended, and every step as run-end carries it. */
export interface RunOutcome {
  command: string;
  ok: boolean;
  durationMs: number;
  steps: readonly Pick<StepReport, 'id' | 'level' | 'title' | 'result' | 'durationMs' | 'message'>[];
}

/** The steps that only read: a run that failed in them changed nothing on the cluster. */
const READ_ONLY_STEPS: ReadonlySet<string> = new Set(['check', 'preflight']);

/** NOTE gets at least this much of the terminal beside the other columns, else it goes on a line of its own. */
const MIN_NOTE = 30;

/**
 * The end-of-run table: every step with its result and duration (the same numbers the live view showed), and for a
 * step that did not end ok, why, in a few words. On a terminal `columns` wide, LEVEL gives way first, then each NOTE
 * goes on its own line under its step, so no row wraps.
 */
export function renderSummary(r: RunOutcome, style: Style, columns?: number): string {
  const ran = r.steps.filter((s) => s.result !== 'not-run');
  // A run refused before its first write (the graph check or preflight failed): every other row would be "not run"
  // with the same reason the failed step and the final lines already give, so one line says what was not done.
  if (!r.ok && ran.every((s) => READ_ONLY_STEPS.has(s.id))) {
    const notRun = r.steps.length - ran.length;
    return `${style.red('✗')} ${r.command} stopped in ${formatElapsed(r.durationMs)}, before it changed anything on the cluster${notRun > 0 ? ` (${notRun} step${notRun === 1 ? '' : 's'} not run)` : ''}\n`;
  }
  const rows = r.steps.map((s) => ({
    level: s.level === null ? '' : String(s.level),
    title: s.title,
    result: s.result === 'ok' ? style.green('ok') : s.result === 'failed' ? style.red('failed') : s.result,
    duration: s.durationMs === null ? '-' : formatElapsed(s.durationMs),
    // Every line of a multi-line explanation (the workload under Flux's words), joined, so the cause is not dropped.
    note: s.result === 'ok' || s.result === 'skipped' ? '' : s.message.split('\n').map((l) => l.trim()).filter(Boolean).join('; '),
  }));
  const widest = (cells: string[], header: string) => Math.max(header.length, ...cells.map(visibleLength));
  const beside = (level: boolean) => (level ? widest(rows.map((x) => x.level), 'LEVEL') + 2 : 0) + widest(rows.map((x) => x.title), 'STEP') + 2 + widest(rows.map((x) => x.result), 'RESULT') + 2 + widest(rows.map((x) => x.duration), 'DURATION') + 2;
  const level = !columns || columns - beside(true) >= MIN_NOTE;
  const below = !!columns && columns - beside(level) < MIN_NOTE;
  const noteWidth = columns ? (below ? columns - 4 : columns - beside(level)) : NOTE_WIDTH;
  const cut = (t: string, w: number) => (t.length > w ? `${t.slice(0, Math.max(1, w - 1))}…` : t);
  const fitTitle = (t: string) => (columns && below ? cut(t, Math.max(20, columns - (beside(level) - widest(rows.map((x) => x.title), 'STEP')))) : t);
  const header = [...(level ? ['LEVEL'] : []), 'STEP', 'RESULT', 'DURATION', ...(below ? [] : ['NOTE'])];
  const cells = rows.map((x) => [...(level ? [x.level] : []), fitTitle(x.title), x.result, x.duration, ...(below ? [] : [cut(x.note, Math.min(NOTE_WIDTH, noteWidth))])]);
  const lines = table(header, cells).split('\n');
  // With NOTE below: each step's line, then its note indented under it.
  const body = below ? [lines[0]!, ...rows.flatMap((x, i) => [lines[i + 1]!, ...wrap(x.note, noteWidth, 5).map((l) => style.dim(`    ${l}`))])] : lines;
  return `${body.join('\n')}\n${r.ok ? style.green('✔') : style.red('✗')} ${r.command} ${r.ok ? 'finished' : 'stopped'} in ${formatElapsed(r.durationMs)}\n`;
}

/** A note in lines of at most `width`, broken at spaces, at most `max` lines (the last cut with …). */
function wrap(text: string, width: number, max: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest && out.length < max) {
    if (rest.length <= width) {
      out.push(rest);
      rest = '';
      break;
    }
    const at = rest.lastIndexOf(' ', width);
    const n = at > width / 2 ? at : width;
    out.push(rest.slice(0, n));
    rest = rest.slice(n).trimStart();
  }
  if (rest) out[out.length - 1] = `${out[out.length - 1]!.slice(0, Math.max(1, width - 1))}…`;
  return out;
}

const visibleLength = (s: string): number => s.replace(/\u001b\[[0-9;]*m/g, '').length;

/**
 * What stays on stderr after the run, once the screen's reporter is done: the summary table (for the text output)
 * from run-end, and the static problems that refused the run, as `check` lists them (for every output).
 */
export function endOfRunReporter(write: (s: string) => void, style: Style, o: { table: boolean; columns?: () => number }): Reporter {
  let command = '';
  let end: Extract<RunEvent, { type: 'run-end' }> | null = null;
  let problems: readonly Problem[] = [];
  return {
    onEvent(e) {
      if (e.type === 'plan') command = e.command;
      else if (e.type === 'problems') problems = e.problems;
      else if (e.type === 'run-end') end = e;
    },
    close: async () => {
      if (o.table && end) write('\n' + renderSummary({ command, ok: end.ok, durationMs: end.durationMs, steps: end.steps }, style, o.columns?.()));
      if (problems.length > 0) write('\n' + renderProblemsText([...problems], 1, style));
    },
  };
}
