import { splitKey } from '../model/ref.js';
import type { ClusterPlan } from '../plan/plan.js';
import { plainStyle, type Style } from './style.js';
import { table } from './table.js';

/**
 * TIER_ORDER as a bash array of names (namespace/name where a name is not unique), so it can be pasted where a
 * hand-kept list used to live.
 */
export function tierOrderLine(plan: ClusterPlan): string {
  const names = plan.tiers.map((k) => splitKey(k).name);
  const unique = new Set(names).size === names.length;
  return `TIER_ORDER=(${(unique ? names : plan.tiers).join(' ')})`;
}

/** `standup plan` for people: per cluster, TIER_ORDER and then every Kustomization by level. */
export function renderPlanText(plans: ClusterPlan[], style: Style = plainStyle): string {
  return plans.map((p) => renderOne(p, style)).join('\n\n') + '\n';
}

function renderOne(p: ClusterPlan, s: Style): string {
  const blocked = p.kustomizations.filter((k) => k.level === null).length;
  const head =
    `${s.bold(`Cluster ${p.name}`)} ${s.dim(`(${p.entry}: ${p.kustomizations.length} Kustomizations, ${p.levels.length} levels` +
      `${blocked ? `, ${blocked} blocked by a cycle` : ''})`)}`;
  const nested = p.kustomizations.some((k) => k.parent !== null && !p.tiers.includes(k.key) && k.level !== null);
  const rows = p.kustomizations.map((k) => {
    const root = !p.tiers.includes(k.key) && k.parent === null && p.kustomizations.some((x) => x.parent === k.key);
    const row = [k.level === null ? 'cycle' : String(k.level), k.key, k.path ?? '-', root ? '- (root sync: applies the tiers)' : k.dependsOn.join(', ') || '-'];
    return nested ? [...row, p.tiers.includes(k.key) || k.parent === null ? '-' : k.parent] : row;
  });
  const header = ['LEVEL', 'KUSTOMIZATION', 'PATH', 'DEPENDS ON', ...(nested ? ['APPLIED BY'] : [])];
  return [head, '', s.cyan(tierOrderLine(p)), '', table(header, rows)].join('\n');
}
