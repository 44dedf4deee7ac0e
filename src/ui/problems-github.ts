// GitHub Actions workflow commands: one `::error file=F,line=L,title=T::message` per problem, so a pull request shows
// each finding on its line. https://docs.github.com/actions/reference/workflow-commands-for-github-actions
import type { Problem } from '../model/problem.js';

const data = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const prop = (s: string) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

export function renderProblemsGithub(problems: readonly Problem[]): string {
  return problems
    .map((p) => {
      const cmd = p.severity === 'error' ? 'error' : p.severity === 'warning' ? 'warning' : 'notice';
      const props = [p.file ? `file=${prop(p.file)}` : null, p.file && p.line ? `line=${p.line}` : null, `title=${prop(`standup ${p.code}${p.object ? ` ${p.object}` : ''}${p.cluster ? ` (${p.cluster})` : ''}`)}`];
      return `::${cmd} ${props.filter(Boolean).join(',')}::${data(p.message)}\n`;
    })
    .join('');
}
