// Markdown for a pull-request comment or a job summary: the counts, then one table row per folded finding.
import type { Problem } from '../model/problem.js';
import { distinct, foldProblems, listSome } from './problems-fold.js';
import { UNCHANGED_MARKER } from './markdown.js';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, '<br>');

/** `gate`: a paragraph on what check compared with (--base, --baseline), under the heading. */
export function renderProblemsMarkdown(problems: readonly Problem[], clusterCount: number, bootstrap: { name: string; groups: string[] }[] = [], suppressed = 0, gate = ''): string {
  const n = (s: Problem['severity']) => problems.filter((p) => p.severity === s).length;
  const out = [
    `### standup check: ${n('error')} error(s), ${n('warning')} warning(s), ${n('info')} note(s) in ${clusterCount} cluster(s)${suppressed ? `, ${suppressed} suppressed` : ''}`,
    '',
  ];
  if (gate) out.push(gate.trimEnd(), '');
  if (bootstrap.length) out.push(`Bootstrap installs: ${bootstrap.map((b) => `${b.name} (${b.groups.join(', ')})`).join(', ')}`, '');
  // Notes alone never fail check: a report with no error or warning has nothing for a pull request comment.
  if (!problems.some((p) => p.severity !== 'info')) out.push(UNCHANGED_MARKER, '');
  if (problems.length === 0) return out.join('\n') + '\n';
  out.push('| severity | code | where | finding |', '|---|---|---|---|');
  for (const f of foldProblems(problems)) {
    const first = f.items[0]!;
    const where = first.file ? `\`${first.file}${first.line ? `:${first.line}` : ''}\`` : '';
    const tiers = distinct(f.items.map((p) => p.tier ?? p.object ?? ''));
    const head = f.title && f.items.length > 1 ? `**${f.title}**: ${tiers.length} tier(s): ${listSome(tiers, 6, false)}<br>` : '';
    out.push(`| ${f.severity} | \`${f.code}\` | ${where} | ${cell(head + first.message)} |`);
  }
  return out.join('\n') + '\n';
}
