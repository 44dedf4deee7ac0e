// plan, graph and diff print every cluster they can order; a cluster that cannot be (a dependsOn cycle, an entry
// that does not build) is marked where its plan would be, with its problems, so one broken cluster hides no other.
import type { Problem } from '../model/problem.js';
import { code } from './markdown.js';
import { plainStyle, type Style } from './style.js';

export interface UnorderedCluster {
  name: string;
  entry: string;
  problems: Problem[];
}

const where = (p: Problem) => (p.file ? `${p.file}${p.line ? `:${p.line}` : ''}` : p.object ?? '');
const firstLine = (s: string) => s.split('\n')[0]!;

/** One block per cluster for the text output, in place of its plan. */
export function renderUnorderedText(clusters: readonly UnorderedCluster[], style: Style = plainStyle): string {
  return clusters.map((c) => [
    `${style.bold(`Cluster ${c.name}`)} ${style.dim(`(${c.entry || '.'})`)}: ${style.red('cannot be ordered, no TIER_ORDER')}`,
    ...c.problems.map((p) => `  ${p.severity} ${p.code}  ${where(p)}  ${firstLine(p.message)}`),
  ].join('\n')).join('\n\n') + '\n';
}

export function renderUnorderedMarkdown(clusters: readonly UnorderedCluster[]): string {
  return clusters.map((c) => [
    `### standup: cluster ${code(c.name)} cannot be ordered`,
    '',
    `> [!CAUTION]\n> ${code(c.entry || '.')} has no TIER_ORDER until these are fixed (\`standup check\` has the details):`,
    '',
    ...c.problems.map((p) => `- \`${p.code}\` ${where(p) ? `${code(where(p))}: ` : ''}${firstLine(p.message).replace(/\|/g, '\\|')}`),
  ].join('\n')).join('\n\n') + '\n';
}

/** -o json and yaml: `unordered`, beside the clusters that could be ordered. */
export const unorderedJson = (clusters: readonly UnorderedCluster[]) =>
  clusters.map((c) => ({ name: c.name, entry: c.entry, problems: c.problems }));

/**
 * The last line on stderr: which clusters have no order, that the others were printed, and the flag that leaves the
 * broken ones out of the run.
 */
export function unorderedVerdict(unordered: readonly UnorderedCluster[], ordered: readonly string[], style: Style = plainStyle): string {
  const names = unordered.map((c) => c.name).join(', ');
  if (ordered.length === 0) return style.red(`✗ no TIER_ORDER: ${names} cannot be ordered until these are fixed\n`);
  return style.red(`✗ ${names} cannot be ordered until these are fixed; `) +
    `${ordered.length === 1 ? 'the other cluster is' : `the other ${ordered.length} clusters are`} printed above. ` +
    `To leave ${unordered.length === 1 ? 'it' : 'them'} out: ${ordered.map((n) => `--cluster ${n}`).join(' ')}\n`;
}
