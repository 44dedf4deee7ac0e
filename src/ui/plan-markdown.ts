import { parseKsKey, refKey } from '../model/ref.js';
import type { SelectedPlan } from '../plan/select.js';
import { code, COMMENT_LIMIT, details, fitMarkdown, mdTable } from './markdown.js';
import { countLabel, mainSource, sourceLabel, tierOrderLine } from './plan-text.js';

/** Rows above which the level table starts collapsed (TIER_ORDER above it stays visible). */
const OPEN_ROWS = 30;

/** `plan -o markdown`: per cluster, TIER_ORDER in a code block and the Kustomizations by level, for a PR or summary. */
export function renderPlanMarkdown(plans: SelectedPlan[]): string {
  const text = plans.map(renderOne).join('\n\n') + '\n';
  return fitMarkdown(text, COMMENT_LIMIT, 'run `standup plan -o json` for the whole plan');
}

function renderOne(p: SelectedPlan): string {
  const blocked = p.kustomizations.filter((k) => k.level === null).length;
  const out = [`### standup plan: cluster ${code(p.name)}`, '', `${code(p.entry || '.')}: ${countLabel(p)} in ${p.levels.length} levels.`];
  if (blocked) out.push('', `> [!WARNING]\n> ${blocked} Kustomizations are blocked by a dependsOn cycle and have no level: run \`standup check\`.`);
  out.push('', '```sh', tierOrderLine(p), '```');
  const nested = p.kustomizations.some((k) => k.parent !== null && !p.tiers.includes(k.key) && k.level !== null);
  const main = mainSource(p);
  const short = (key: string) => (new Set(p.kustomizations.map((k) => parseKsKey(k.key).namespace)).size === 1 ? parseKsKey(key).name : key);
  const rows = p.kustomizations.map((k) => {
    const isRoot = !p.tiers.includes(k.key) && k.parent === null && p.kustomizations.some((x) => x.parent === k.key);
    const where = refKey(k.source) === main ? '' : ` (in ${sourceLabel(k)})`;
    const deps = isRoot ? 'root sync: applies the tiers' : k.dependsOn.map((d) => code(short(d))).join(', ') || '–';
    const row = [k.level === null ? 'cycle' : String(k.level), code(k.key), (k.path ? code(k.path) : '–') + where, deps];
    return nested ? [...row, p.tiers.includes(k.key) || k.parent === null ? '–' : code(short(k.parent))] : row;
  });
  if (rows.length > 0) {
    const header = ['level', 'Kustomization', 'path', 'depends on', ...(nested ? ['applied by'] : [])];
    const table = mdTable(header, rows, { align: ['r'], more: 'run `standup plan -o json` for all' });
    out.push('', details(`${rows.length} Kustomization${rows.length === 1 ? '' : 's'} by level`, table, rows.length <= OPEN_ROWS));
  }
  return out.join('\n');
}
