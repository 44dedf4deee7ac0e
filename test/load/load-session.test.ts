// One command's loads share a session: their work directories and parse memos, saved again when it closes.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ParseMemo } from '../../src/cache/parse-memo.js';
import { LoadSession } from '../../src/load/load-session.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const temp = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'standup-session-'));
  dirs.push(d);
  return d;
};

describe('LoadSession', () => {
  it('close() saves what was parsed after the load saved its memo', () => {
    const file = path.join(temp(), 'memo', 'repo.memo');
    const session = new LoadSession({});
    const memo = session.openMemo(file);
    memo.get('object', 'a: 1\n', () => ({ a: 1 }));
    memo.save(); // the load's own save
    memo.get('object', 'b: 2\n', () => ({ b: 2 })); // what a command parses after the load
    expect(new ParseMemo(file).peek('object', 'b: 2\n')).toBeUndefined();
    session.close();
    const next = new ParseMemo(file);
    expect(next.peek('object', 'a: 1\n')).toEqual({ a: 1 });
    expect(next.peek('object', 'b: 2\n')).toEqual({ b: 2 });
  });

  it('a memo kept in memory is never written', () => {
    const session = new LoadSession({});
    session.openMemo(null).get('object', 'a: 1\n', () => ({ a: 1 }));
    expect(() => session.close()).not.toThrow();
  });

  it('removes a work directory after the load, unless STANDUP_DEBUG_KEEP keeps it', async () => {
    const kept = new LoadSession({ STANDUP_DEBUG_KEEP: '1' });
    const a = kept.makeWorkDir();
    dirs.push(a);
    kept.removeWorkDir(a);
    expect(existsSync(a)).toBe(true);
    const session = new LoadSession({});
    const b = session.makeWorkDir();
    dirs.push(b);
    expect(path.basename(b)).toMatch(/^standup-render-/);
    session.removeWorkDir(b);
    // Removed by a detached process: wait for it.
    for (let i = 0; i < 400 && existsSync(b); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(b)).toBe(false);
  });
});
