import { parseKsKey, refKey } from '../model/ref.js';
import type { ClusterPlan, PlannedKustomization } from '../plan/plan.js';
import type { SelectedPlan } from '../plan/select.js';
import { plainStyle, type Style } from './style.js';
import { table } from './table.js';

/**
 * TIER_ORDER as a bash array of names (namespace/name where a name is not unique), so it can replace a
 * hand-kept TIER_ORDER in a script.
 */
export function tierOrderLine(plan: ClusterPlan): string {
  const names = plan.tiers.map((k) => parseKsKey(k).name);
  const unique = new Set(names).size === names.length;
  return `TIER_ORDER=(${(unique ? names : plan.tiers).join(' ')})`;
}

export interface PlanTextOptions {
  /** `-o wide`: the PATH column too, and nothing cut. */
  wide?: boolean;
  /** The terminal's width: the last column (DEPENDS ON) is cut to it. None in a pipe. */
  columns?: number;
  /** false (--no-header): only the table's rows, one Kustomization a line, for scripts. */
  header?: boolean;
}

/**
 * `standup plan` for people: per cluster, the order (for a nested graph, every Kustomization that must become Ready,
 * level by level), TIER_ORDER and then every Kustomization by level.
 */
export function renderPlanText(plans: SelectedPlan[], style: Style = plainStyle, o: PlanTextOptions = {}): string {
  const rendered = plans.map((p) => renderOne(p, style, o)).filter((t) => t !== '');
  return rendered.length ? rendered.join(o.header === false ? '\n' : '\n\n') + '\n' : '';
}

/**
 * A nested graph (tiers that apply more Kustomizations) has an order TIER_ORDER does not show: the root's own tiers
 * are only the first of it. These lines give every Kustomization that must become Ready, one level per line, as
 * short names where they are unique; null when every Kustomization is a tier of the root (TIER_ORDER says it all).
 */
export function readyOrderLines(p: SelectedPlan, columns?: number): string[] | null {
  const root = (k: SelectedPlan['kustomizations'][number]) => !p.tiers.includes(k.key) && k.parent === null && p.kustomizations.some((x) => x.parent === k.key);
  const nested = p.kustomizations.filter((k) => !p.tiers.includes(k.key) && !root(k) && k.level !== null);
  if (nested.length === 0) return null;
  const names = p.kustomizations.map((k) => parseKsKey(k.key).name);
  const unique = new Set(names).size === names.length;
  const label = (key: string) => (unique ? parseKsKey(key).name : key);
  const shown = new Set(p.kustomizations.filter((k) => !root(k)).map((k) => k.key));
  const width = Math.max(40, (columns ?? 120) - 2);
  const out = [`READY ORDER: ${shown.size} Kustomizations, level by level`];
  p.levels.forEach((level, i) => {
    const keys = level.filter((k) => shown.has(k)).map(label);
    if (keys.length === 0) return;
    let line = `  ${String(i).padStart(2)}  `;
    for (const k of keys) {
      if (line.trim().length > 3 && line.length + k.length > width) {
        out.push(line.trimEnd());
        line = '      ';
      }
      line += `${k} `;
    }
    out.push(line.trimEnd());
  });
  return out;
}

/** The cluster's own repository (its refKey): the root sync's source, else the GitRepository most Kustomizations read. */
export function mainSource(p: ClusterPlan): string | undefined {
  const root = p.kustomizations.find((k) => !p.tiers.includes(k.key) && k.parent === null && p.kustomizations.some((x) => x.parent === k.key));
  if (root) return refKey(root.source);
  const count = new Map<string, number>();
  for (const k of p.kustomizations) if (k.source.kind === 'GitRepository') count.set(refKey(k.source), (count.get(refKey(k.source)) ?? 0) + 1);
  // On a tie, the bootstrap's conventional flux-system source.
  const bootstrap = (src: string) => (src.endsWith('/flux-system') ? 0 : 1);
  return [...count].sort((a, b) => b[1] - a[1] || bootstrap(a[0]) - bootstrap(b[0]))[0]?.[0];
}

/** `Kind/name`, or `Kind/namespace/name` when the source lives in another namespace than the Kustomization. */
export const sourceLabel = (k: PlannedKustomization): string =>
  k.source.namespace === parseKsKey(k.key).namespace ? `${k.source.kind}/${k.source.name}` : refKey(k.source);

/** `9 Kustomizations`, or `2 of 9 Kustomizations` for a selection (-n, names). */
export const countLabel = (p: SelectedPlan): string =>
  `${p.selection ? `${p.kustomizations.length} of ${p.selection.total}` : p.kustomizations.length} Kustomizations`;

function renderOne(p: SelectedPlan, s: Style, o: PlanTextOptions): string {
  const blocked = p.kustomizations.filter((k) => k.level === null).length;
  const head =
    `${s.bold(`Cluster ${p.name}`)} ${s.dim(`(${p.entry}: ${countLabel(p)}, ${p.levels.length} levels` +
      `${blocked ? `, ${blocked} blocked by a cycle` : ''})`)}`;
  const nested = p.kustomizations.some((k) => k.parent !== null && !p.tiers.includes(k.key) && k.level !== null);
  const main = mainSource(p);
  const rows = p.kustomizations.map((k) => {
    const root = !p.tiers.includes(k.key) && k.parent === null && p.kustomizations.some((x) => x.parent === k.key);
    // A path is relative to its source: say which when it is not the cluster's own repository.
    const where = refKey(k.source) === main ? '' : ` (in ${sourceLabel(k)})`;
    // DEPENDS ON, the longest, goes last so a terminal cuts it and nothing else; PATH only with -o wide, as kubectl.
    return [
      k.level === null ? 'cycle' : String(k.level), k.key,
      ...(o.wide ? [(k.path ?? '-') + where] : []),
      ...(nested ? [p.tiers.includes(k.key) || k.parent === null ? '-' : k.parent] : []),
      root ? '- (root sync: applies the tiers)' : k.dependsOn.join(', ') || '-',
    ];
  });
  const header = ['LEVEL', 'KUSTOMIZATION', ...(o.wide ? ['PATH'] : []), ...(nested ? ['APPLIED BY'] : []), 'DEPENDS ON'];
  const order = readyOrderLines(p, o.columns);
  const cut = !o.wide && o.columns ? { lastWidth: (used: number) => Math.max(12, o.columns! - used) } : {};
  if (o.header === false) return table(header, rows, '  ', { ...cut, header: false });
  return [head, '', ...(order ? [...order, ''] : []), s.cyan(tierOrderLine(p)), '', table(header, rows, '  ', cut), ...resourceSetTable(p)].join('\n');
}

const EXPANSION: Record<string, string> = { 'build-failed': 'not expanded: its template does not render', 'inputs-unknown': 'not expanded: an input provider read at run time' };

/** flux-operator ResourceSets, when the cluster has any: each with its dependsOn (and the tier that applies it). */
function resourceSetTable(p: ClusterPlan): string[] {
  const sets = p.resourceSets ?? [];
  if (sets.length === 0) return [];
  const rows = sets.map((r) => {
    const deps = r.dependsOn.map((d) => `${refKey({ kind: d.kind, namespace: d.namespace, name: d.name })}${d.tier && d.tier !== refKey({ kind: d.kind, namespace: d.namespace, name: d.name }) ? ` (in ${d.tier})` : ''}`);
    const made = r.expanded ? `${r.generated.length} object${r.generated.length === 1 ? '' : 's'}` : EXPANSION[r.expansion] ?? r.expansion;
    return [r.level === null ? 'cycle' : String(r.level), `${r.namespace}/${r.name}`, deps.join(', ') || '-', made];
  });
  return ['', table(['LEVEL', 'RESOURCESET', 'DEPENDS ON', 'GENERATES'], rows)];
}
