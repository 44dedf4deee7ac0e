import { splitKey } from '../model/ref.js';
import type { ClusterPlan } from '../plan/plan.js';
import type { SelectedPlan } from '../plan/select.js';
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
export function renderPlanText(plans: SelectedPlan[], style: Style = plainStyle): string {
  return plans.map((p) => renderOne(p, style)).join('\n\n') + '\n';
}

/** The cluster's own repository: the root sync's source, else the GitRepository most Kustomizations read. */
export function mainSource(p: ClusterPlan): string | undefined {
  const root = p.kustomizations.find((k) => !p.tiers.includes(k.key) && k.parent === null && p.kustomizations.some((x) => x.parent === k.key));
  if (root) return root.source;
  const count = new Map<string, number>();
  for (const k of p.kustomizations) if (k.source.startsWith('GitRepository/')) count.set(k.source, (count.get(k.source) ?? 0) + 1);
  // On a tie, the bootstrap's conventional flux-system source.
  const bootstrap = (src: string) => (src.endsWith('/flux-system') ? 0 : 1);
  return [...count].sort((a, b) => b[1] - a[1] || bootstrap(a[0]) - bootstrap(b[0]))[0]?.[0];
}

/** `Kind/name`, or `Kind/namespace/name` when the source lives in another namespace than the Kustomization. */
export function sourceLabel(source: string, key: string): string {
  const [kind, ns, name] = source.split('/');
  return ns === key.split('/')[0] ? `${kind}/${name}` : source;
}

/** `9 Kustomizations`, or `2 of 9 Kustomizations` for a selection (-n, names). */
export const countLabel = (p: SelectedPlan): string =>
  `${p.selection ? `${p.kustomizations.length} of ${p.selection.total}` : p.kustomizations.length} Kustomizations`;

function renderOne(p: SelectedPlan, s: Style): string {
  const blocked = p.kustomizations.filter((k) => k.level === null).length;
  const head =
    `${s.bold(`Cluster ${p.name}`)} ${s.dim(`(${p.entry}: ${countLabel(p)}, ${p.levels.length} levels` +
      `${blocked ? `, ${blocked} blocked by a cycle` : ''})`)}`;
  const nested = p.kustomizations.some((k) => k.parent !== null && !p.tiers.includes(k.key) && k.level !== null);
  const main = mainSource(p);
  const rows = p.kustomizations.map((k) => {
    const root = !p.tiers.includes(k.key) && k.parent === null && p.kustomizations.some((x) => x.parent === k.key);
    // A path is relative to its source: say which when it is not the cluster's own repository.
    const where = k.source === main ? '' : ` (in ${sourceLabel(k.source, k.key)})`;
    const row = [k.level === null ? 'cycle' : String(k.level), k.key, (k.path ?? '-') + where, root ? '- (root sync: applies the tiers)' : k.dependsOn.join(', ') || '-'];
    return nested ? [...row, p.tiers.includes(k.key) || k.parent === null ? '-' : k.parent] : row;
  });
  const header = ['LEVEL', 'KUSTOMIZATION', 'PATH', 'DEPENDS ON', ...(nested ? ['APPLIED BY'] : [])];
  return [head, '', s.cyan(tierOrderLine(p)), '', table(header, rows)].join('\n');
}
