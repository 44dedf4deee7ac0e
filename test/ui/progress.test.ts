import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProgress } from '../../src/cli/load-and-plan.js';
import type { Io } from '../../src/cli/io.js';
import { setDebugSink } from '../../src/model/debug.js';
import { noProgress, progressLine, shareProgress } from '../../src/ui/progress.js';
import { plainStyle } from '../../src/ui/style.js';

/** A terminal as ora sees one: a writable stream with a size and cursor controls, recording what is drawn. */
function fakeTerminal(columns: number) {
  const s = new PassThrough() as PassThrough & NodeJS.WriteStream & { text: string };
  s.text = '';
  s.on('data', (c: Buffer) => (s.text += c.toString()));
  Object.assign(s, { isTTY: true, columns, rows: 24, cursorTo: () => true, moveCursor: () => true, clearLine: () => true });
  return s;
}
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterEach(() => setDebugSink(null));

describe('the progress line', () => {
  it('draws "rendering N/M Kustomizations" once the work outlasts the delay, then clears itself', async () => {
    const term = fakeTerminal(100);
    const p = progressLine(term, { label: (d, t) => `rendering ${d}/${t} Kustomizations`, delayMs: 20 });
    p.update(0, 5);
    p.update(3, 5);
    // The spinner redraws on its own timer: wait for a frame (however busy the machine), without a fixed sleep.
    for (let i = 0; i < 500 && !term.text.includes('rendering 3/5 Kustomizations'); i++) await wait(10);
    p.stop();
    expect(term.text).toContain('rendering 3/5 Kustomizations');
    const after = term.text.length;
    await wait(150);
    expect(term.text.length).toBe(after); // stopped: no more frames
  });

  it('draws nothing for work shorter than the delay', async () => {
    const term = fakeTerminal(100);
    const p = progressLine(term, { label: () => 'x', delayMs: 200 });
    p.update(1, 1);
    p.stop();
    await wait(250);
    expect(term.text).toBe('');
  });

  it('draws nothing on a terminal that reports no width (ora would loop clearing Infinity lines)', () => {
    expect(progressLine(fakeTerminal(0), { label: () => 'x', delayMs: 0 })).toBe(noProgress);
  });

  it('adds up concurrent loads (diff renders two revisions at once)', () => {
    const seen: [number, number][] = [];
    const [a, b] = shareProgress({ update: (d, t) => seen.push([d, t]), stop: () => {} }, 2);
    a!(0, 4);
    b!(1, 3);
    a!(2, 5);
    expect(seen).toEqual([[0, 4], [1, 7], [3, 8]]);
  });
});

describe('when the CLI shows it', () => {
  const io = (o: Partial<Io>): Io => ({ out: () => {}, err: () => {}, style: plainStyle, errStyle: plainStyle, isTTY: false, env: {}, cwd: '.', ...o });
  it.each([
    ['stderr is a pipe', io({ errIsTTY: false })],
    ['in CI', io({ errIsTTY: true, env: { CI: 'true' } })],
    ['on a dumb terminal', io({ errIsTTY: true, env: { TERM: 'dumb' } })],
  ])('never when %s', (_n, i) => {
    expect(loadProgress(i)).toBe(noProgress);
  });

  it('never with --verbose, whose debug lines would fight it', () => {
    setDebugSink(() => {});
    expect(loadProgress(io({ errIsTTY: true }))).toBe(noProgress);
  });
});
