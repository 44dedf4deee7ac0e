import { isExpanded, type ClusterModel } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import { plainStyle, type Style } from './style.js';

/** How many Kustomizations a load evaluated (rendered what they apply), and why the others could not be. */
export interface Coverage {
  total: number;
  evaluated: number;
  /** Problem code (external-source, path-missing, build-failed) -> Kustomizations not evaluated for it. */
  notEvaluated: Record<string, number>;
}

export function coverageOf(clusters: readonly ClusterModel[]): Coverage {
  const c: Coverage = { total: 0, evaluated: 0, notEvaluated: {} };
  for (const k of clusters.flatMap((x) => x.kustomizations)) {
    c.total++;
    if (isExpanded(k)) c.evaluated++;
    else c.notEvaluated[k.expansion!] = (c.notEvaluated[k.expansion!] ?? 0) + 1;
  }
  return c;
}

/** `check` for people: one block per problem, location first (clickable in editors), then a summary line. */
export function renderProblemsText(problems: Problem[], clusterCount: number, style: Style = plainStyle, coverage?: Coverage): string {
  const blocks = problems.map((p) => {
    const where = p.file ? `${p.file}${p.line ? `:${p.line}` : ''}` : '(repository)';
    const sev = p.severity === 'error' ? style.red('error') : p.severity === 'warning' ? style.yellow('warning') : style.cyan('info');
    const what = [p.object, p.cluster ? `cluster ${p.cluster}` : null].filter(Boolean).join(', ');
    const body = p.message.split('\n').map((l, i) => (i === 0 ? `  ${l}` : `  ${l}`)).join('\n');
    return `${style.bold(where)}  ${sev} ${style.dim(p.code)}${what ? `  ${what}` : ''}\n${body}`;
  });
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.filter((p) => p.severity === 'warning').length;
  const infos = problems.length - errors - warnings;
  const summary =
    problems.length === 0
      ? style.green(`✔ no problems in ${clusterCount} cluster(s)`)
      : `${errors ? style.red(`✗ ${errors} error(s)`) : '✔ 0 errors'}, ${warnings} warning(s)${infos ? `, ${infos} note(s)` : ''} in ${clusterCount} cluster(s)`;
  const evaluated = coverage ? [coverageLine(coverage)] : [];
  return [...blocks, ...(evaluated.length ? [`${summary}\n${evaluated[0]}`] : [summary]), ...externalCrdsHint(problems, style)].join('\n\n') + '\n';
}

function coverageLine(c: Coverage): string {
  const not = c.total - c.evaluated;
  const why = Object.entries(c.notEvaluated)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([code, n]) => `${n} ${code}`)
    .join(', ');
  return `evaluated ${c.evaluated} of ${c.total} Kustomization(s)${not ? `; ${not} could not be (${why}): see the notes above` : ''}`;
}

/**
 * Many runtime-crd findings on a large repository usually have one cause: CRDs installed before Flux (a bootstrap
 * helmfile). Offer the single tiers.yaml line that declares them, most frequent group first.
 */
function externalCrdsHint(problems: Problem[], style: Style): string[] {
  const count = new Map<string, number>();
  for (const p of problems) if (p.externalCrd) count.set(p.externalCrd, (count.get(p.externalCrd) ?? 0) + 1);
  const n = [...count.values()].reduce((a, b) => a + b, 0);
  if (n < 3) return [];
  const groups = [...count].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([g]) => g);
  return [
    `${n} runtime-crd finding(s) concern CRDs of ${groups.length} group(s) that no tier applies from git. If they are ` +
      `installed outside Flux (a bootstrap step), one line in tiers.yaml declares them:\n` +
      style.cyan(`  externalCrds: [${groups.join(', ')}]`),
  ];
}
