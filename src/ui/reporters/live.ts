import { formatDuration } from '../../runner/duration.js';
import { assertNever, type RunEvent, type StepInfo, type StepResult } from '../../runner/events.js';
import type { Style } from '../style.js';
import { changeLine } from '../wording.js';
import type { Reporter } from './reporter.js';

/** Where the live view draws: a terminal (stderr), with its size read on every frame (it may be resized). */
export interface Terminal {
  write(s: string): void;
  columns(): number;
  rows(): number;
}

interface Step {
  info: StepInfo;
  startedAt: number | null;
  line: string;
  done: boolean;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Glyph and word for a step's end, shared with the plain reporter. */
export function endGlyph(result: StepResult, style: Style): string {
  switch (result) {
    case 'ok':
      return style.green('✔');
    case 'failed':
      return style.red('✗');
    case 'timeout':
    case 'interrupted':
    case 'stopped':
      return style.yellow('■');
    case 'skipped':
    case 'not-run':
      return style.dim('↓');
  }
}

/** A step's name as both reporters print it: tiers with their level. */
export const stepTitle = (s: StepInfo): string => (s.kind === 'tier' ? `${s.title} (level ${s.level ?? '-'})` : s.title);

/**
 * The live view on a terminal, after vitest's window renderer: what has finished is printed once, above, as a
 * permanent line with its name, result and the same duration the summary shows; below it a small window redraws the
 * steps still running (spinner, elapsed time, Flux's latest words), cut to the terminal's width and height, so nothing
 * scrolls away and no stale line is left behind. It installs no signal handlers.
 */
export function liveReporter(term: Terminal, style: Style, o: { frameMs?: number; now?: () => number } = {}): Reporter {
  const now = o.now ?? Date.now;
  const steps = new Map<string, Step>();
  const queue: string[] = [];
  let drawn = 0;
  let frame = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  const fit = (s: string) => {
    const w = Math.max(20, term.columns() - 1);
    return s.length > w ? `${s.slice(0, w - 1)}…` : s;
  };

  const windowLines = (): string[] => {
    const running = [...steps.values()].filter((s) => s.startedAt !== null && !s.done);
    if (running.length === 0) return [];
    const waiting = [...steps.values()].filter((s) => s.startedAt === null && !s.done).length;
    const budget = Math.max(2, term.rows() - 2);
    const lines: string[] = [];
    const spin = SPINNER[frame % SPINNER.length]!;
    for (const s of running) {
      if (lines.length + 2 > budget && lines.length > 0) break;
      lines.push(`${style.cyan(spin)} ${fit(`${stepTitle(s.info)} [${formatDuration(now() - s.startedAt!)}]`)}`);
      if (s.line) lines.push(style.dim(fit(`  › ${s.line.split('\n')[0]}`)));
    }
    const shown = lines.filter((l) => !l.includes('› ')).length;
    const more = running.length - shown;
    const tail = [more > 0 ? `${more} more running` : '', waiting > 0 ? `${waiting} waiting on what they depend on` : ''].filter(Boolean).join(', ');
    if (tail) lines.push(style.dim(fit(`  … ${tail}`)));
    return lines;
  };

  const draw = (final = false) => {
    let out = drawn > 0 ? `\u001b[${drawn}A\r\u001b[J` : '';
    out += queue.splice(0).map((l) => `${l}\n`).join('');
    const lines = final ? [] : windowLines();
    out += lines.map((l) => `${l}\n`).join('');
    drawn = lines.length;
    if (out) term.write(out);
    frame++;
  };

  const permanent = (line: string) => queue.push(line);

  return {
    onEvent(e: RunEvent) {
      if (closed) return;
      switch (e.type) {
        case 'plan':
          for (const s of e.steps) steps.set(s.id, { info: s, startedAt: null, line: '', done: false });
          permanent(`${style.bold(`standup ${e.command}`)} cluster ${e.cluster}${e.dryRun ? ' (dry run: nothing is written)' : ''}`);
          timer = setInterval(() => draw(), o.frameMs ?? 100);
          timer.unref?.();
          break;
        case 'step-start': {
          const s = steps.get(e.id);
          if (s) s.startedAt = now();
          break;
        }
        case 'step-status': {
          const s = steps.get(e.id);
          if (s) s.line = e.message;
          break;
        }
        case 'step-end': {
          const s = steps.get(e.id);
          if (s) s.done = true;
          const title = s ? stepTitle(s.info) : e.id;
          const message = e.message.split('\n')[0];
          permanent(`${endGlyph(e.result, style)} ${title}: ${message} ${style.dim(`[${formatDuration(e.durationMs)}]`)}`);
          break;
        }
        case 'change': {
          const line = changeLine(e);
          if (line) permanent(style.dim(`  ${line}`));
          break;
        }
        case 'log':
          permanent(e.level === 'warn' ? `${style.yellow('!')} ${e.message}` : `  ${e.message}`);
          break;
        case 'run-end':
          break;
        default:
          assertNever(e);
      }
    },
    close: async () => {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      draw(true);
    },
  };
}
