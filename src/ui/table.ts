/** Left-aligned columns padded to the widest cell, like flux's tablewriter output; trailing spaces trimmed. */
export function table(header: string[], rows: string[][], gap = '  '): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join(gap).trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
