import type { Problem } from '../model/problem.js';
import { plainStyle, type Style } from './style.js';

/** `check` for people: one block per problem, location first (clickable in editors), then a summary line. */
export function renderProblemsText(problems: Problem[], clusterCount: number, style: Style = plainStyle): string {
  const blocks = problems.map((p) => {
    const where = p.file ? `${p.file}${p.line ? `:${p.line}` : ''}` : '(repository)';
    const sev = p.severity === 'error' ? style.red('error') : style.yellow('warning');
    const what = [p.object, p.cluster ? `cluster ${p.cluster}` : null].filter(Boolean).join(', ');
    const body = p.message.split('\n').map((l, i) => (i === 0 ? `  ${l}` : `  ${l}`)).join('\n');
    return `${style.bold(where)}  ${sev} ${style.dim(p.code)}${what ? `  ${what}` : ''}\n${body}`;
  });
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.length - errors;
  const summary =
    problems.length === 0
      ? style.green(`✔ no problems in ${clusterCount} cluster(s)`)
      : `${errors ? style.red(`✗ ${errors} error(s)`) : '✔ 0 errors'}, ${warnings} warning(s) in ${clusterCount} cluster(s)`;
  return [...blocks, summary].join('\n\n') + '\n';
}
