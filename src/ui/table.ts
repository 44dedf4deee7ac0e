/** Left-aligned columns padded to the widest cell, like flux's tablewriter output; trailing spaces trimmed. */
export function table(header: string[], rows: string[][], gap = '  '): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => visible(r[i] ?? ''))));
  const pad = (c: string, w: number) => c + ' '.repeat(Math.max(0, w - visible(c)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : pad(c, widths[i]!))).join(gap).trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** Width on screen: colour escapes take none. */
const visible = (s: string): number => s.replace(/\u001b\[[0-9;]*m/g, '').length;
