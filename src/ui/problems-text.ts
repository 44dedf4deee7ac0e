import { isExpanded, type ClusterModel } from '../model/flux.js';
import type { Problem, Severity } from '../model/problem.js';
import { distinct, foldProblems, listSome, type Fold } from './problems-fold.js';
import { plainStyle, type Style } from './style.js';

/** What `check` knows beside the problems, for the summary at the top. All optional: other commands pass none. */
export interface CheckSummary {
  /** "cilium (cilium.io)", one per bootstrap or platform install. */
  bootstrap?: { name: string; groups: string[] }[];
  /** Problems suppressed by tiers.yaml ignore: or an annotation. */
  suppressed?: number;
  /** Problems left out by --severity or --code. */
  hidden?: number;
  /** Every folded item listed, every message in full. */
  verbose?: boolean;
  /** How many Kustomizations were evaluated, and why the others could not be (coverageOf). */
  coverage?: Coverage;
  /** false (--no-header): the problems only, without the summary at the top. */
  header?: boolean;
}

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

function coverageLine(c: Coverage): string {
  const not = c.total - c.evaluated;
  const why = Object.entries(c.notEvaluated)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([code, n]) => `${n} ${code}`)
    .join(', ');
  return `evaluated ${c.evaluated} of ${c.total} Kustomization(s)${not ? `; ${not} could not be (${why})` : ''}`;
}

/**
 * `check` for people: a summary first (counts by severity and code, what the bootstrap installs), then errors,
 * warnings and notes, each folded (problems-fold.ts) with its location first (clickable in editors).
 */
export function renderProblemsText(problems: Problem[], clusterCount: number, style: Style = plainStyle, summary: CheckSummary = {}): string {
  const verbose = summary.verbose ?? false;
  const out: string[] = [summaryLine(problems, clusterCount, style, summary)];
  const byCode = countsByCode(problems);
  if (byCode) out.push(`  ${byCode}`);
  if (summary.coverage) out.push(`  ${coverageLine(summary.coverage)}`);
  if (summary.bootstrap?.length) {
    // One group per install by default (verbose and -o json have them all): the line must stay short.
    const groups = (g: string[]) => (verbose ? g.join(', ') : g[0]!);
    out.push(`  bootstrap installs: ${summary.bootstrap.map((b) => `${b.name} (${groups(b.groups)})`).join(', ')}`);
  }
  const sections: string[] = summary.header === false ? [] : [out.join('\n')];
  const folds = foldProblems(problems);
  // Errors, then warnings, then notes (foldProblems sorts by severity); each block says which it is.
  for (const f of folds) sections.push(renderFold(f, style, verbose, clusterCount));
  sections.push(...externalCrdsHint(problems, style));
  return sections.length ? sections.join('\n\n') + '\n' : '';
}

function summaryLine(problems: Problem[], clusterCount: number, style: Style, s: CheckSummary): string {
  const n = (sev: Severity) => problems.filter((p) => p.severity === sev).length;
  const extra = [s.suppressed ? `${s.suppressed} suppressed` : null, s.hidden ? `${s.hidden} not shown (--severity, --code, -n, names)` : null].filter(Boolean);
  const tail = extra.length ? ` (${extra.join(', ')})` : '';
  if (problems.length === 0) return style.green(`✔ no problems in ${clusterCount} cluster(s)`) + tail;
  const errors = n('error');
  const infos = n('info');
  return `${errors ? style.red(`✗ ${errors} error(s)`) : '✔ 0 errors'}, ${n('warning')} warning(s)${infos ? `, ${infos} note(s)` : ''} in ${clusterCount} cluster(s)${tail}`;
}

function countsByCode(problems: Problem[]): string {
  const by = new Map<string, number>();
  for (const p of problems) by.set(p.code, (by.get(p.code) ?? 0) + 1);
  if (by.size === 0) return '';
  return `by code: ${[...by].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([code, n]) => `${code} ${n}`).join(', ')}`;
}

const sevLabel = (sev: Severity, style: Style) => (sev === 'error' ? style.red('error') : sev === 'warning' ? style.yellow('warning') : style.cyan('info'));
const where = (p: Problem) => (p.file ? `${p.file}${p.line ? `:${p.line}` : ''}` : '(repository)');
const indent = (text: string, by = '  ') => text.split('\n').map((l) => `${by}${l}`).join('\n');

function renderFold(f: Fold, style: Style, verbose: boolean, clusterCount: number): string {
  const first = f.items[0]!;
  const clusters = distinct(f.items.map((p) => p.cluster).filter((c): c is string => !!c));
  // With one cluster checked, naming it on every block says nothing.
  const inClusters = clusters.length > 1 ? `in clusters ${clusters.join(', ')}` : clusters.length && clusterCount > 1 ? `cluster ${clusters[0]}` : null;
  const tiers = distinct(f.items.map((p) => p.tier ?? p.object ?? where(p)));
  if (f.title === null || f.items.length === 1 || (tiers.length === 1 && clusters.length <= 1)) {
    if (f.items.length > 1) return f.items.map((p) => renderFold({ ...f, items: [p], title: null }, style, verbose, clusterCount)).join('\n\n');
    // A tier's own problem names the tier in its message: the header stays one line without it.
    const tierItself = first.object?.startsWith('Kustomization/') && first.message.includes(first.object.slice('Kustomization/'.length));
    const what = [tierItself ? null : first.object, inClusters].filter(Boolean).join(', ');
    return `${style.bold(where(first))}  ${sevLabel(f.severity, style)} ${style.dim(f.code)}${what ? `  ${what}` : ''}\n${indent(first.message)}`;
  }
  const lines = [
    `${sevLabel(f.severity, style)} ${style.dim(f.code)}  ${style.bold(f.title)}`,
    `  ${tiers.length} tier(s)${inClusters ? ` ${inClusters}` : ''}: ${listSome(tiers, 4, verbose)}`,
  ];
  if (verbose) for (const p of f.items) lines.push(`    ${where(p)}  ${p.object ?? ''}${p.tier ? ` (${p.tier}${clusters.length > 1 ? `, ${p.cluster}` : ''})` : ''}`);
  lines.push(`  first at ${style.bold(where(first))}:`, indent(first.message, '    '));
  return lines.join('\n');
}

/**
 * Offer the one tiers.yaml line that declares the groups nothing in git or the bootstrap installs: only those
 * (a group with a known installer is a real hazard, and declaring it external would silence it).
 */
function externalCrdsHint(problems: Problem[], style: Style): string[] {
  const count = new Map<string, number>();
  for (const p of problems) if (p.externalCrd && p.severity !== 'info') count.set(p.externalCrd, (count.get(p.externalCrd) ?? 0) + 1);
  const n = [...count.values()].reduce((a, b) => a + b, 0);
  if (n < 3) return [];
  const groups = [...count].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([g]) => g);
  return [
    `${n} runtime-crd finding(s) concern CRDs of ${groups.length} group(s) that nothing in git or the bootstrap installs. ` +
      `If they are installed outside this repository, one line in tiers.yaml declares them:\n` +
      style.cyan(`  externalCrds: [${groups.join(', ')}]`),
  ];
}
