import { formatDuration } from '../../runner/duration.js';
import type { RunEvent } from '../../runner/events.js';
import type { Style } from '../style.js';
import type { Reporter } from './reporter.js';

/**
 * Plain lines for CI logs and pipes, with flux's glyphs: ► started, ◎ waiting, ✔ done, ✗ failed. Nothing redraws,
 * so every line stays readable in a log file.
 */
export function plainReporter(write: (s: string) => void, style: Style): Reporter {
  const titles = new Map<string, string>();
  const title = (id: string) => titles.get(id) ?? id;
  return {
    onEvent(e: RunEvent) {
      switch (e.type) {
        case 'plan':
          e.steps.forEach((s) => titles.set(s.id, s.kind === 'tier' ? `${s.title} (level ${s.level ?? '?'})` : s.title));
          write(`${style.bold(`standup ${e.command}`)} cluster ${e.cluster}${e.dryRun ? ' (dry run: nothing is written)' : ''}\n`);
          break;
        case 'step-start':
          write(`► ${title(e.id)}\n`);
          break;
        case 'step-status':
          write(`${style.dim('◎')} ${title(e.id)}: ${e.message}\n`);
          break;
        case 'change':
          write(`  ${e.dryRun ? 'would be ' : ''}${e.action} ${e.object}\n`.replace(/^( {2}would be )annotated/, '  would annotate'));
          break;
        case 'step-end': {
          const glyph = e.result === 'failed' ? style.red('✗') : e.result === 'skipped' ? style.dim('↓') : style.green('✔');
          write(`${glyph} ${title(e.id)}: ${e.message.split('\n')[0]} ${style.dim(`[${formatDuration(e.durationMs)}]`)}\n`);
          break;
        }
        case 'log':
          write(`${e.level === 'warn' ? style.yellow('!') : ' '} ${e.message}\n`);
          break;
        case 'run-end':
          break;
      }
    },
    close: async () => {},
  };
}
