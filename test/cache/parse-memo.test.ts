import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { memoFileFor, ParseMemo } from '../../src/cache/parse-memo.js';
import { yamlErrors } from '../../src/repo/yaml-errors.js';
import { scanHeader } from '../../src/repo/object-header.js';

const dirs: string[] = [];
const file = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'standup-memo-'));
  dirs.push(d);
  return path.join(d, 'memo', 'repo.memo');
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('ParseMemo: YAML parsed once per text', () => {
  it('a later load reads what an earlier one parsed, from the file, without parsing again', () => {
    const f = file();
    const a = new ParseMemo(f);
    let parses = 0;
    const yaml = (t: string) => () => {
      parses++;
      return parse(t) as unknown;
    };
    expect(a.get('object', 'a: 1\nb: [x, y]\n', yaml('a: 1\nb: [x, y]\n'))).toEqual({ a: 1, b: ['x', 'y'] });
    expect(a.get('object', 'a: 1\nb: [x, y]\n', yaml('a: 1\nb: [x, y]\n'))).toEqual({ a: 1, b: ['x', 'y'] });
    expect(parses).toBe(1);
    a.save();
    const b = new ParseMemo(f);
    expect(b.get('object', 'a: 1\nb: [x, y]\n', yaml('a: 1\nb: [x, y]\n'))).toEqual({ a: 1, b: ['x', 'y'] });
    expect(parses).toBe(1);
    // How it is parsed is part of the key.
    b.get('kustomization', 'a: 1\nb: [x, y]\n', yaml('a: 1\nb: [x, y]\n'));
    expect(parses).toBe(2);
  });

  it('keeps what earlier loads used for a few loads (plan and check on one repository do not evict each other)', () => {
    const f = file();
    let parses = 0;
    const get = (m: ParseMemo, t: string) => m.get('object', t, () => (parses++, parse(t) as unknown));
    const first = new ParseMemo(f);
    get(first, 'check: only\n');
    first.save();
    for (let i = 0; i < 7; i++) {
      const m = new ParseMemo(f);
      get(m, `plan: ${i}\n`);
      m.save();
    }
    parses = 0;
    get(new ParseMemo(f), 'check: only\n');
    expect(parses).toBe(0);
    // Eight loads later without a use, it is gone.
    const m = new ParseMemo(f);
    get(m, 'plan: 8\n');
    m.save();
    get(new ParseMemo(f), 'check: only\n');
    expect(parses).toBe(2);
  });

  it('every use gets its own copy', () => {
    const m = new ParseMemo(null);
    const first = m.get('object', 'a: {b: 1}\n', () => parse('a: {b: 1}\n') as { a: { b: number } });
    first.a.b = 99;
    expect(m.get('object', 'a: {b: 1}\n', () => parse('a: {b: 1}\n') as { a: { b: number } })).toEqual({ a: { b: 1 } });
  });

  it('never keeps what JSON would change (.inf, .nan, -0)', () => {
    const m = new ParseMemo(null);
    let parses = 0;
    for (const t of ['x: .inf\n', 'x: .nan\n', 'x: -0\n']) {
      for (let i = 0; i < 2; i++) {
        m.get('object', t, () => {
          parses++;
          return parse(t) as unknown;
        });
      }
    }
    expect(parses).toBe(6);
  });

  it('a damaged memo file is ignored and removed, never trusted', () => {
    const f = file();
    const a = new ParseMemo(f);
    a.get('object', 'a: 1\n', () => ({ a: 1 }));
    a.save();
    const text = readFileSync(f, 'utf8');
    expect(text).toContain(':1}');
    writeFileSync(f, text.replace(':1}', ':2}'));
    const b = new ParseMemo(f);
    let parses = 0;
    expect(b.get('object', 'a: 1\n', () => (parses++, { a: 1 }))).toEqual({ a: 1 });
    expect(parses).toBe(1);
  });
});

describe('a repository\'s first load borrows the memo saved last', () => {
  const cacheDir = () => {
    const d = mkdtempSync(path.join(tmpdir(), 'standup-memo-borrow-'));
    dirs.push(d);
    return d;
  };
  const tiers = 'version: 1\nclusters:\n  dev: {path: clusters/dev}\n';

  it('an edited tiers.yaml (a memo of its own not saved yet) reads the last load\'s entries, and keeps only what it used', () => {
    const c = cacheDir();
    const before = memoFileFor(c, { root: '/work/a', tiersYaml: tiers });
    const a = new ParseMemo(before);
    a.get('object', 'kept: 1\n', () => ({ kept: 1 }));
    a.get('object', 'unused: 1\n', () => ({ unused: 1 }));
    a.save();
    const edited = memoFileFor(c, { root: '/work/a', tiersYaml: `${tiers}# edited\n` });
    let parses = 0;
    const b = new ParseMemo(edited);
    expect(b.get('object', 'kept: 1\n', () => (parses++, { kept: 1 }))).toEqual({ kept: 1 });
    expect(parses).toBe(0);
    b.get('object', 'new: 1\n', () => (parses++, { new: 1 }));
    b.save();
    const own = readFileSync(edited, 'utf8');
    expect(own).toContain('{\\"kept\\":1}');
    expect(own).toContain('{\\"new\\":1}');
    expect(own).not.toContain('unused');
    // The memo it borrowed from is left as it was, and the next load of the edited repository reads its own.
    expect(readFileSync(before, 'utf8')).toContain('unused');
    const c2 = new ParseMemo(edited);
    c2.get('object', 'new: 1\n', () => (parses++, { new: 1 }));
    expect(parses).toBe(1);
  });

  it('a damaged memo saved last is not trusted, and not removed (it is another repository\'s)', () => {
    const c = cacheDir();
    const other = memoFileFor(c, { root: '/work/other', tiersYaml: tiers });
    const a = new ParseMemo(other);
    a.get('object', 'a: 1\n', () => ({ a: 1 }));
    a.save();
    writeFileSync(other, readFileSync(other, 'utf8').replace(':1}', ':2}'));
    let parses = 0;
    const b = new ParseMemo(memoFileFor(c, { root: '/work/mine', tiersYaml: null }));
    expect(b.get('object', 'a: 1\n', () => (parses++, { a: 1 }))).toEqual({ a: 1 });
    expect(parses).toBe(1);
    expect(readFileSync(other, 'utf8')).toContain(':2}');
  });

  it('a pointer naming anything but a memo in its folder is ignored', () => {
    const c = cacheDir();
    const own = memoFileFor(c, { root: '/work/a', tiersYaml: tiers });
    const a = new ParseMemo(own);
    a.get('object', 'a: 1\n', () => ({ a: 1 }));
    a.save();
    writeFileSync(path.join(path.dirname(own), 'latest'), `../${path.basename(own)}\n`);
    let parses = 0;
    new ParseMemo(memoFileFor(c, { root: '/work/b', tiersYaml: null })).get('object', 'a: 1\n', () => (parses++, { a: 1 }));
    expect(parses).toBe(1);
  });
});

describe('memoFileFor: which memo a load reads', () => {
  it('a repository with a tiers.yaml is known by its text, wherever it is (a fresh clone reads the last load\'s memo)', () => {
    const tiers = 'version: 1\nclusters:\n  dev: {path: clusters/dev}\n';
    expect(memoFileFor('/c', { root: '/work/a', tiersYaml: tiers })).toBe(memoFileFor('/c', { root: '/tmp/clone-7', tiersYaml: tiers }));
    expect(memoFileFor('/c', { root: '/work/a', tiersYaml: tiers })).not.toBe(memoFileFor('/c', { root: '/work/a', tiersYaml: `${tiers}# edited\n` }));
    expect(path.dirname(memoFileFor('/c', { root: '/work/a', tiersYaml: tiers }))).toBe('/c/memo');
  });

  it('one without is known by its path: two discovered repositories never share a memo', () => {
    expect(memoFileFor('/c', { root: '/work/a', tiersYaml: null })).not.toBe(memoFileFor('/c', { root: '/work/b', tiersYaml: null }));
    expect(memoFileFor('/c', { root: '/work/a', tiersYaml: null })).toBe(memoFileFor('/c', { root: '/work/a', tiersYaml: null }));
    // An empty tiers.yaml is a tiers.yaml: not the same memo as no file at that path.
    expect(memoFileFor('/c', { root: '/work/a', tiersYaml: '' })).not.toBe(memoFileFor('/c', { root: '/work/a', tiersYaml: null }));
  });
});

describe('yamlErrors with a memo', () => {
  it('gives what parsing gives, for this file path, from the memo on a later load', () => {
    const f = file();
    const d = path.dirname(path.dirname(f));
    const bad = path.join(d, 'bad.yaml');
    const other = path.join(d, 'other.yaml');
    writeFileSync(bad, 'a: 1\nb: [\n');
    writeFileSync(other, 'a: 1\nb: [\n');
    const plain = yamlErrors(bad);
    expect(plain.length).toBeGreaterThan(0);
    const first = new ParseMemo(f);
    expect(yamlErrors(bad, first)).toEqual(plain);
    first.save();
    const later = new ParseMemo(f);
    // The same text in another file: the memo's errors, with that file's path.
    expect(later.peek('yaml errors', readFileSync(bad, 'utf8'))).toBeDefined();
    expect(yamlErrors(other, later)).toEqual(plain.map((e) => ({ ...e, file: other })));
    writeFileSync(bad, 'a: 1\n');
    expect(yamlErrors(bad, later)).toEqual([]);
  });
});

describe('scanHeader with a memo', () => {
  it('a header only the yaml library reads is the same from the memo, on a later load', () => {
    const f = file();
    const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flow, namespace: ns, labels: {a: b}}\ndata: {}\n';
    const first = new ParseMemo(f);
    expect(scanHeader(text, first)).toEqual(scanHeader(text));
    expect(scanHeader(text).name).toBe('flow');
    first.save();
    const later = new ParseMemo(f);
    expect(later.peek('header', text)).toEqual(scanHeader(text));
    expect(scanHeader(text, later)).toEqual(scanHeader(text));
  });
});
