import { formatElapsed } from '../../status/durations.js';
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
export const stepTitle = (s: StepInfo): string =>
  s.kind === 'tier' || s.kind === 'resourceset' ? `${s.title} (level ${s.level ?? '-'})` : s.title;

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

  /** A status line over at most `max` screen lines (what a health check waits on is longer than one). */
  const wrapLine = (text: string, max: number): string[] => {
    const w = Math.max(20, term.columns() - 1) - 4;
    const out: string[] = [];
    let rest = text;
    while (rest && out.length < max) {
      out.push(rest.slice(0, w));
      rest = rest.slice(w);
    }
    if (rest) out[out.length - 1] = `${out[out.length - 1]!.slice(0, w - 1)}…`;
    return out.map((l, i) => style.dim(`  ${i === 0 ? '›' : ' '} ${l}`));
  };

  const windowLines = (): string[] => {
    const running = [...steps.values()].filter((s) => s.startedAt !== null && !s.done);
    if (running.length === 0) return [];
    const queued = [...steps.values()].filter((s) => s.startedAt === null && !s.done);
    // Tiers wait on their dependencies; other steps (a teardown's deletes) simply come later.
    const waiting = queued.filter((s) => s.info.kind === 'tier').length;
    const later = queued.length - waiting;
    const budget = Math.max(2, term.rows() - 2);
    const lines: string[] = [];
    const spin = SPINNER[frame % SPINNER.length]!;
    let shown = 0;
    for (const s of running) {
      if (lines.length + 2 > budget && lines.length > 0) break;
      lines.push(`${style.cyan(spin)} ${fit(`${stepTitle(s.info)} [${formatElapsed(now() - s.startedAt!)}]`)}`);
      shown++;
      // Up to three lines for the status when there is room for them and a line for each other running step.
      const room = budget - lines.length - (running.length - shown) * 2 - 1;
      if (s.line) lines.push(...wrapLine(s.line.split('\n')[0]!, Math.max(1, Math.min(3, room))));
    }
    const more = running.length - shown;
    const tail = [more > 0 ? `${more} more running` : '', waiting > 0 ? `${waiting} waiting on what they depend on` : '', later > 0 ? `${later} queued` : ''].filter(Boolean).join(', ');
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
          permanent(`${endGlyph(e.result, style)} ${title}: ${firstAndRest(e.message, formatElapsed(e.durationMs), style)}`);
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
        case 'problems':
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

/** A step's end message with its duration after the first line, and every further line (the workloads, the cause) under it. */
export function firstAndRest(message: string, elapsed: string, style: Style): string {
  const [first, ...rest] = message.split('\n');
  return `${first} ${style.dim(`[${elapsed}]`)}${rest.map((l) => `\n  ${l.replace(/^\s+/, '')}`).join('')}`;
}
