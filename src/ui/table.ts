/**
 * Left-aligned columns padded to the widest cell, like flux's tablewriter output; trailing spaces trimmed. With
 * `header: false` the header line is left out (and does not widen the columns); `lastWidth` cuts the last column.
 */
export function table(header: string[], rows: string[][], gap = '  ', o: { header?: boolean; lastWidth?: (used: number) => number } = {}): string {
  const showHeader = o.header ?? true;
  const widths = header.map((h, i) => Math.max(showHeader ? h.length : 0, ...rows.map((r) => visible(r[i] ?? ''))));
  const pad = (c: string, w: number) => c + ' '.repeat(Math.max(0, w - visible(c)));
  const used = widths.slice(0, -1).reduce((n, w) => n + w + gap.length, 0);
  const cut = (c: string) => {
    const w = o.lastWidth?.(used);
    return w !== undefined && visible(c) > w ? `${c.slice(0, Math.max(1, w - 1))}…` : c;
  };
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? cut(c) : pad(c, widths[i]!))).join(gap).trimEnd();
  return [...(showHeader ? [line(header)] : []), ...rows.map(line)].join('\n');
}

/** Width on screen: colour escapes take none. */
const visible = (s: string): number => s.replace(/\u001b\[[0-9;]*m/g, '').length;
