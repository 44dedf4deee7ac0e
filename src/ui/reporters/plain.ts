import { formatElapsed } from '../../status/durations.js';
import { assertNever, type RunEvent } from '../../runner/events.js';
import type { Style } from '../style.js';
import { changeText } from '../wording.js';
import { endGlyph, firstAndRest, stepTitle } from './live.js';
import type { Reporter } from './reporter.js';

/**
 * Plain lines for CI logs and pipes, with flux's glyphs: ► started, ◎ status, ✔ done, ✗ failed. Nothing redraws,
 * so every line stays readable in a log file.
 */
export function plainReporter(write: (s: string) => void, style: Style): Reporter {
  const titles = new Map<string, string>();
  const title = (id: string) => titles.get(id) ?? id;
  return {
    onEvent(e: RunEvent) {
      switch (e.type) {
        case 'plan':
          e.steps.forEach((s) => titles.set(s.id, stepTitle(s)));
          write(`${style.bold(`standup ${e.command}`)} cluster ${e.cluster}${e.dryRun ? ' (dry run: nothing is written)' : ''}\n`);
          break;
        case 'step-start':
          write(`► ${title(e.id)}\n`);
          break;
        case 'step-status':
          write(`${style.dim('◎')} ${title(e.id)}: ${e.message}\n`);
          break;
        case 'change':
          write(`  ${changeText(e)}\n`);
          break;
        case 'step-end':
          write(`${endGlyph(e.result, style)} ${title(e.id)}: ${firstAndRest(e.message, formatElapsed(e.durationMs), style)}\n`);
          break;
        case 'log':
          write(`${e.level === 'warn' ? style.yellow('!') : ' '} ${e.message}\n`);
          break;
        case 'problems':
        case 'run-end':
          break;
        default:
          assertNever(e);
      }
    },
    close: async () => {},
  };
}
