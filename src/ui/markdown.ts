// GitHub-flavoured Markdown for `-o markdown`: PR comments (at most 65,536 characters) and $GITHUB_STEP_SUMMARY
// (1 MiB per step). Pure string building; callers choose what goes in, this keeps it inside those limits.

/** What a PR comment holds, with room for a heading a workflow may add around it. */
export const COMMENT_LIMIT = 60_000;
/** Rows a table shows before the rest are counted instead of listed. */
export const TABLE_ROWS = 150;

/** Inline code that survives backticks in the text. */
export function code(s: string): string {
  if (!s.includes('`')) return `\`${s}\``;
  return `\`\` ${s} \`\``;
}

/** A table cell: pipes escaped, no line breaks. */
export const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

/**
 * A table; rows beyond `maxRows` become one line saying how many were left out and where to see them all.
 * `align` per column: 'l' or 'r'.
 */
export function mdTable(header: string[], rows: string[][], o: { align?: ('l' | 'r')[]; maxRows?: number; more?: string } = {}): string {
  const max = o.maxRows ?? TABLE_ROWS;
  const shown = rows.slice(0, max);
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  const sep = `|${header.map((_, i) => (o.align?.[i] === 'r' ? '---:' : '---')).join('|')}|`;
  const out = [line(header), sep, ...shown.map(line)];
  if (rows.length > max) out.push('', `… and ${rows.length - max} more${o.more ? ` (${o.more})` : ''}.`);
  return out.join('\n');
}

/** A collapsible block, open when short. */
export function details(summary: string, body: string, open: boolean): string {
  return `<details${open ? ' open' : ''}><summary>${summary}</summary>\n\n${body}\n\n</details>`;
}

/**
 * Cuts `text` to `limit` characters at a line boundary, closing an open code fence or <details>, and says so: a PR
 * comment over the limit is rejected outright, which is worse than a shortened one.
 */
export function fitMarkdown(text: string, limit: number, whereAll: string): string {
  if (text.length <= limit) return text;
  const note = `\n\n> [!NOTE]\n> Shortened to fit a pull request comment (${limit.toLocaleString('en-US')} characters): ${whereAll}.\n`;
  let cut = text.slice(0, Math.max(0, limit - note.length - 40));
  cut = cut.slice(0, cut.lastIndexOf('\n') + 1);
  const fences = cut.split('\n').filter((l) => /^\s*```/.test(l)).length;
  if (fences % 2 === 1) cut += '```\n';
  const opened = (cut.match(/<details/g) ?? []).length - (cut.match(/<\/details>/g) ?? []).length;
  for (let i = 0; i < opened; i++) cut += '\n</details>\n';
  return cut + note;
}

/** A Mermaid node label: quotes and brackets as entities (Mermaid's own escaping). */
export const mermaidLabel = (s: string): string => `"${s.replace(/"/g, '#quot;')}"`;

/**
 * Ends a Markdown report that has nothing to say (no graph change, no problem): the action posts no pull request
 * comment for it, and marks an earlier one as reverted.
 */
export const UNCHANGED_MARKER = '<!-- standup: unchanged -->';
