import { transitiveDeps } from '../../graph/graph.js';
import type { Problem } from '../../model/problem.js';
import { parseKsKey } from '../../model/ref.js';
import type { Rule } from '../rule.js';

// A hand-kept TIER_ORDER (the script standup replaces) lists every tier, each after all the tiers it depends on.
// Such a list drifts: a tier added to the graph is missing from it, or listed before a tier it now depends on.
export const legacyOrderRule: Rule = {
  code: 'legacy-order',
  description: 'a legacy TIER_ORDER lists every tier, after its dependencies',
  check: ({ clusters, legacyOrder }) => {
    if (!legacyOrder) return [];
    const problems: Problem[] = [];
    for (const { cluster, graph, plan } of clusters) {
      const listed = legacyOrder.tiers;
      const resolve = (name: string) =>
        name.includes('/') ? (graph.nodes.has(name) ? name : null) : plan.tiers.find((k) => parseKsKey(k).name === name) ?? null;
      const position = new Map<string, number>();
      listed.forEach((t, i) => {
        const key = resolve(t.name);
        if (key && !position.has(key)) position.set(key, i);
      });
      const at = (line: number | null, message: string, severity: Problem['severity'] = 'error'): Problem => ({
        code: 'legacy-order', severity, message, file: legacyOrder.file, line, object: null, cluster: cluster.name,
      });
      for (const t of listed) {
        if (!resolve(t.name)) {
          problems.push(at(t.line, `TIER_ORDER lists ${t.name}, which is not a tier of cluster ${cluster.name}; remove it.`, 'warning'));
        }
      }
      const derived = `TIER_ORDER=(${plan.tiers.map((k) => parseKsKey(k).name).join(' ')})`;
      for (const key of plan.tiers) {
        if (!position.has(key)) {
          problems.push(at(null, `TIER_ORDER misses ${key}: a resume would not wait on it. The order derived from git is ${derived}.`));
          continue;
        }
        const late = [...transitiveDeps(graph, key)].filter((d) => (position.get(d) ?? -1) > position.get(key)!);
        for (const dep of late.sort()) {
          problems.push(
            at(listed[position.get(key)!]!.line, `TIER_ORDER puts ${parseKsKey(key).name} before ${parseKsKey(dep).name}, which it depends on. The order derived from git is ${derived}.`),
          );
        }
      }
    }
    return problems;
  },
};

/**
 * Reads a legacy order: a shell script's `TIER_ORDER=(a b "c")` array (possibly over several lines), or a plain
 * list with one tier per line. `#` starts a comment in both.
 */
export function parseLegacyOrder(text: string): { name: string; line: number }[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^\s*(declare\s+-a\s+|readonly\s+|local\s+)?TIER_ORDER=\(/.test(l));
  const out: { name: string; line: number }[] = [];
  if (start < 0) {
    lines.forEach((l, i) => {
      const name = l.replace(/#.*/, '').trim();
      if (name) out.push({ name, line: i + 1 });
    });
    return out;
  }
  for (let i = start; i < lines.length; i++) {
    let body = lines[i]!.replace(/#.*/, '');
    if (i === start) body = body.slice(body.indexOf('(') + 1);
    const close = body.indexOf(')');
    for (const word of (close >= 0 ? body.slice(0, close) : body).split(/\s+/)) {
      const name = word.replace(/^["']|["']$/g, '');
      if (name) out.push({ name, line: i + 1 });
    }
    if (close >= 0) break;
  }
  return out;
}
