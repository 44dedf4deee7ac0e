// One parse per text: the bootstrap reader's looks at a file (chart form, objects) share it through the memo.
import { describe, expect, it } from 'vitest';
import { ParseMemo } from '../../src/cache/parse-memo.js';
import { yamlDocuments } from '../../src/repo/yaml-documents.js';
import { parseText } from '../../src/repo/manifests.js';
import type { TextMemo } from '../../src/repo/lazy-yaml.js';

/** A memo that counts the parses it had to run. */
function counting(): TextMemo & { parses: number } {
  const inner = new ParseMemo(null);
  const m = {
    parses: 0,
    get: <T>(how: string, text: string, parse: () => T) => inner.get(how, text, () => (m.parses++, parse())),
    peek: <T>(how: string, text: string) => inner.peek<T>(how, text),
    put: (how: string, text: string, v: unknown) => inner.put(how, text, v),
  };
  return m;
}

describe('yamlDocuments', () => {
  it('gives each document\'s value or its first error with line and column', () => {
    expect(yamlDocuments('a: 1\n---\n---\nb: [\n')).toEqual([
      { value: { a: 1 } },
      { value: null },
      { error: expect.stringContaining('') as string, line: 5, col: 1 },
    ]);
  });

  it('turns an alias bomb into an error of its document, not a crash of the reader', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 12 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`)].join('\n');
    const [doc] = yamlDocuments(bomb);
    expect(doc).toEqual({ error: expect.stringMatching(/alias/i) as string });
  });

  it('parses a text once through a memo, for every reader of it', () => {
    const memo = counting();
    const text = 'apiVersion: v1\nkind: Namespace\nmetadata: {name: flux-system}\n';
    yamlDocuments(text, memo);
    const objects = parseText(text, 'install.yaml', memo);
    expect(objects).toEqual([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'flux-system' } }]);
    expect(memo.parses).toBe(1);
  });

  it('parseText still names file:line:col for a syntax error read from the memo', () => {
    const memo = counting();
    const text = 'kind: A\n---\nkind: [\n';
    expect(() => parseText(text, 'f.yaml', memo)).toThrow(/^f\.yaml:4:1: /);
    expect(() => parseText(text, 'f.yaml', memo)).toThrow(/^f\.yaml:4:1: /);
    expect(memo.parses).toBe(1);
  });
});
