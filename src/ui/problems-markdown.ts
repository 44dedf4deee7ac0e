// Markdown for a pull-request comment or a job summary: the counts, then one table row per folded finding.
import type { Problem } from '../model/problem.js';
import { distinct, foldProblems, listSome } from './problems-fold.js';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, '<br>');

export function renderProblemsMarkdown(problems: readonly Problem[], clusterCount: number, bootstrap: { name: string; groups: string[] }[] = [], suppressed = 0): string {
  const n = (s: Problem['severity']) => problems.filter((p) => p.severity === s).length;
  const out = [
    `### standup check: ${n('error')} error(s), ${n('warning')} warning(s), ${n('info')} note(s) in ${clusterCount} cluster(s)${suppressed ? `, ${suppressed} suppressed` : ''}`,
    '',
  ];
  if (bootstrap.length) out.push(`Bootstrap installs: ${bootstrap.map((b) => `${b.name} (${b.groups.join(', ')})`).join(', ')}`, '');
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
