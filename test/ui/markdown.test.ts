import { describe, expect, it } from 'vitest';
import { cell, code, fitMarkdown, mdTable } from '../../src/ui/markdown.js';

describe('markdown for PR comments and step summaries', () => {
  it('escapes table cells and inline code', () => {
    expect(cell('a|b\nc')).toBe('a\\|b c');
    expect(code('x')).toBe('`x`');
    expect(code('a`b')).toBe('`` a`b ``');
  });

  it('a table longer than its row budget says how many rows it left out', () => {
    const rows = Array.from({ length: 12 }, (_, i) => [String(i)]);
    const t = mdTable(['n'], rows, { maxRows: 10, more: 'run it with -o json' });
    expect(t.split('\n').filter((l) => l.startsWith('| ')).length).toBe(11); // header + 10
    expect(t).toContain('… and 2 more (run it with -o json).');
  });

  it('fits a long text under the limit at a line boundary, closing an open code fence and <details>', () => {
    const body = ['### title', '<details><summary>s</summary>', '', '```mermaid', ...Array.from({ length: 5000 }, (_, i) => `  n${i} --> n${i + 1}`)].join('\n');
    const out = fitMarkdown(body, 20_000, 'run `standup diff -o json`');
    expect(out.length).toBeLessThanOrEqual(20_000);
    expect(out.split('\n').filter((l) => l.startsWith('```')).length % 2).toBe(0);
    expect(out).toContain('</details>');
    expect(out).toContain('Shortened to fit a pull request comment (20,000 characters): run `standup diff -o json`.');
    expect(out.indexOf('  n3 --> n4\n')).toBeGreaterThan(0);
  });

  it('leaves a text within the limit alone', () => {
    expect(fitMarkdown('short\n', 100, 'x')).toBe('short\n');
  });
});
