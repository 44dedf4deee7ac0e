import { isRootSync, type PlanContext } from '../plan/plan.js';
import { isEmptyDiff, type GraphDiff } from '../plan/diff.js';
import { parseKsKey } from '../model/ref.js';
import { isResourceSetKey } from '../model/flux.js';
import { code, COMMENT_LIMIT, fitMarkdown, mdTable, mermaidLabel, UNCHANGED_MARKER } from './markdown.js';

export interface DiffSides {
  diff: GraphDiff;
  from: PlanContext;
  to: PlanContext;
}

/** A picture larger than this is left out: Mermaid on GitHub stops rendering well long before its own limits. */
const MAX_PICTURE_NODES = 60;
const MAX_PICTURE_EDGES = 150;

/**
 * `diff -o markdown`: per diff a summary line, a table of the graph changes, the objects that change owner (with the
 * prune warning and its safe procedure) and a Mermaid picture of the changed part of the graph. Sized for a PR
 * comment; `base` says what a `--base` diff was taken against.
 */
export function renderDiffMarkdown(sides: DiffSides[], base?: { ref: string; commit: string; head: string }): string {
  const parts = sides.map((s) => renderOne(s, base));
  const unchanged = sides.every((s) => isEmptyDiff(s.diff) && !s.diff.problemsAdded?.length && !s.diff.problemsFixed?.length);
  return fitMarkdown(parts.join('\n\n') + '\n', COMMENT_LIMIT, 'run `standup diff -o json` for everything') + (unchanged ? `${UNCHANGED_MARKER}\n` : '');
}

function renderOne({ diff: d, from, to }: DiffSides, base?: { ref: string; commit: string; head: string }): string {
  const out = [`### standup diff: ${code(d.from)} → ${code(d.to)}`];
  if (base) out.push('', `Compared with the merge-base of ${code(base.ref)} and ${code(base.head)} (${code(base.commit.slice(0, 12))}).`);
  const added = d.problemsAdded ?? [];
  const fixed = d.problemsFixed ?? [];
  if (isEmptyDiff(d) && added.length + fixed.length === 0) {
    out.push('', 'No change in the Kustomization graph.');
    return out.join('\n');
  }
  out.push('', `**${[summary(d), problemSummary(d)].filter(Boolean).join('; ')}**`);
  if (added.length) {
    const errors = added.filter((p) => p.severity === 'error').length;
    out.push('', `#### New problems (${added.length})`);
    if (errors) out.push('', `> [!CAUTION]\n> This change adds ${errors} error${errors === 1 ? '' : 's'} \`standup check\` fails on.`);
    out.push('', mdTable(['severity', 'code', 'where', 'finding'], added.map((p) => [
      p.severity, code(p.code), p.file ? code(`${p.file}${p.line ? `:${p.line}` : ''}`) : '', p.message.split('\n')[0]!,
    ]), { more: 'run `standup check` for all' }));
  }
  if (fixed.length) {
    out.push('', `#### Fixed problems (${fixed.length})`, '', mdTable(['severity', 'code', 'object'], fixed.map((p) => [p.severity, code(p.code), p.object ? code(p.object) : '–']), { more: 'run `standup diff -o json` for all' }));
  }
  if (isEmptyDiff(d)) {
    out.push('', 'No change in the Kustomization graph.');
    return out.join('\n');
  }
  const short = labeller(from, to);
  const rows: string[][] = [
    ...d.tiersAdded.map((k) => ['➕', 'Kustomization', code(k)]),
    ...d.tiersRemoved.map((k) => ['➖', 'Kustomization', code(k)]),
    ...d.resourceSetsAdded.map((k) => ['➕', 'ResourceSet', code(k)]),
    ...d.resourceSetsRemoved.map((k) => ['➖', 'ResourceSet', code(k)]),
    ...d.edgesAdded.map((e) => ['➕', 'dependsOn', `${code(short(e.from))} depends on ${code(short(e.to))}`]),
    ...d.edgesRemoved.map((e) => ['➖', 'dependsOn', `${code(short(e.from))} no longer depends on ${code(short(e.to))}`]),
    ...d.pathsChanged.map((p) => ['✏️', 'path', `${code(short(p.key))}: ${p.from ? code(p.from) : '–'} → ${p.to ? code(p.to) : '–'}`]),
    ...d.levelsChanged.map((l) => ['↕️', 'level', `${code(short(l.key))}: ${levelLabel(l.from)} → ${levelLabel(l.to)}${l.from !== null && l.to !== null && l.to > l.from ? ' (starts later)' : ''}`]),
  ];
  if (rows.length) out.push('', mdTable(['', 'change', 'what'], rows, { more: 'run `standup diff -o json` for all' }));
  if (d.moves.length) {
    const risky = d.moves.filter((m) => m.pruned);
    out.push('', `#### Objects that change Kustomization (${d.moves.length})`);
    if (risky.length) {
      out.push('', `> [!WARNING]\n> ${risky.length} of them move${risky.length === 1 ? 's' : ''} away from a Kustomization with \`prune: true\`: ` +
        'Flux may delete and recreate them (a transient outage). The safe procedure is under each.');
    }
    out.push('', mdTable(['object', 'from', 'to', 'prune', 'order', 'depended on by'], d.moves.map((m) => [
      code(m.object), code(short(m.from)), code(short(m.to)), m.pruned ? '**yes**' : 'no',
      m.guaranteed ? 'old owner always first: **will** delete' : m.pruned ? 'not guaranteed' : '–',
      m.dependents.length ? m.dependents.map((k) => code(short(k)) + (m.unguarded.includes(k) ? ` (not on ${code(short(m.to))})` : '')).join(', ') : '–',
    ]), { more: 'run `standup diff -o json` for all' }));
    for (const m of risky.slice(0, 20)) out.push('', `- ${m.message}`);
    if (risky.length > 20) out.push('', `… and ${risky.length - 20} more (run \`standup diff -o json\`).`);
  }
  const picture = changedPicture(d, from, to);
  if (picture) out.push('', picture);
  return out.join('\n');
}

const levelLabel = (l: number | null) => (l === null ? 'cycle' : String(l));

function problemSummary(d: GraphDiff): string {
  const added = d.problemsAdded ?? [];
  const errors = added.filter((p) => p.severity === 'error').length;
  return [
    added.length ? `${added.length} new problem${added.length === 1 ? '' : 's'}${errors ? ` (${errors} error${errors === 1 ? '' : 's'})` : ''}` : '',
    d.problemsFixed?.length ? `${d.problemsFixed.length} fixed` : '',
  ].filter(Boolean).join(', ');
}

function summary(d: GraphDiff): string {
  const n = (count: number, one: string, many: string) => (count ? [`${count} ${count === 1 ? one : many}`] : []);
  return [
    ...n(d.tiersAdded.length, 'Kustomization added', 'Kustomizations added'),
    ...n(d.tiersRemoved.length, 'Kustomization removed', 'Kustomizations removed'),
    ...n(d.resourceSetsAdded.length, 'ResourceSet added', 'ResourceSets added'),
    ...n(d.resourceSetsRemoved.length, 'ResourceSet removed', 'ResourceSets removed'),
    ...n(d.edgesAdded.length, 'dependsOn added', 'dependsOn added'),
    ...n(d.edgesRemoved.length, 'dependsOn removed', 'dependsOn removed'),
    ...n(d.pathsChanged.length, 'path changed', 'paths changed'),
    ...n(d.moves.length, 'object changes Kustomization', 'objects change Kustomization'),
    ...n(d.levelsChanged.length, 'level changed', 'levels changed'),
  ].join(', ');
}

/** Names without the namespace when every Kustomization on both sides shares one (as people name their tiers). */
function labeller(a: PlanContext, b: PlanContext): (key: string) => string {
  const namespaces = new Set([...a.graph.nodes.keys(), ...b.graph.nodes.keys()].map((k) => parseKsKey(k).namespace));
  const plain = namespaces.size === 1 ? (k: string) => parseKsKey(k).name : (k: string) => k;
  // A ResourceSet keeps its full key: it is never mistaken for a Kustomization.
  return (k) => (isResourceSetKey(k) ? k : plain(k));
}

/**
 * The changed part of the graph as Mermaid: every Kustomization a change touches, plus the direct dependencies and
 * dependents of those in the new graph for context. Arrows point the way the cluster converges, as in `graph`:
 * thick for an added dependsOn, dotted red for a removed one; added tiers green, removed red, changed amber.
 */
export function changedPicture(d: GraphDiff, from: PlanContext, to: PlanContext): string | null {
  const added = new Set(d.tiersAdded);
  const removed = new Set(d.tiersRemoved);
  const changed = new Set([...d.pathsChanged.map((p) => p.key), ...d.moves.flatMap((m) => [m.from, m.to])]);
  const touched = new Set([...added, ...removed, ...changed, ...[...d.edgesAdded, ...d.edgesRemoved].flatMap((e) => [e.from, e.to])]);
  if (touched.size === 0) return null;
  const hidden = (k: string) => {
    const ks = to.graph.nodes.get(k) ?? from.graph.nodes.get(k);
    return !!ks && (isRootSync(ks, to.cluster.entry) || isRootSync(ks, from.cluster.entry));
  };
  const shown = new Set([...touched].filter((k) => !hidden(k)));
  for (const k of [...shown]) {
    for (const n of [...(to.graph.deps.get(k) ?? []), ...(to.graph.dependents.get(k) ?? [])]) if (!hidden(n)) shown.add(n);
  }
  const key = (e: { from: string; to: string }) => `${e.from}\u0000${e.to}`;
  const addedEdges = new Set(d.edgesAdded.map(key));
  const edges: { from: string; to: string; kind: 'same' | 'added' | 'removed' }[] = [];
  for (const k of shown) {
    for (const dep of to.graph.deps.get(k) ?? []) {
      if (shown.has(dep)) edges.push({ from: k, to: dep, kind: addedEdges.has(key({ from: k, to: dep })) ? 'added' : 'same' });
    }
  }
  for (const e of d.edgesRemoved) if (shown.has(e.from) && shown.has(e.to)) edges.push({ ...e, kind: 'removed' });
  if (shown.size > MAX_PICTURE_NODES || edges.length > MAX_PICTURE_EDGES) {
    return `_The changed part of the graph has ${shown.size} Kustomizations and ${edges.length} dependsOn edges: too many for a picture (\`standup graph -o mermaid\` draws the whole graph)._`;
  }
  const label = labeller(from, to);
  const order = [...shown].sort();
  const id = new Map(order.map((k, i) => [k, `n${i}`]));
  const lines = ['```mermaid', 'flowchart LR'];
  for (const k of order) {
    const cls = added.has(k) ? ':::added' : removed.has(k) ? ':::removed' : changed.has(k) || touched.has(k) ? ':::changed' : '';
    lines.push(`  ${id.get(k)}[${mermaidLabel(label(k))}]${cls}`);
  }
  const removedLinks: number[] = [];
  edges.forEach((e, i) => {
    // `from` depends on `to`: the arrow goes from the dependency to its dependent.
    const arrow = e.kind === 'added' ? '==>' : e.kind === 'removed' ? '-.->' : '-->';
    lines.push(`  ${id.get(e.to)} ${arrow} ${id.get(e.from)}`);
    if (e.kind === 'removed') removedLinks.push(i);
  });
  lines.push(
    '  classDef added fill:#dafbe1,stroke:#1a7f37,color:#1f2328',
    '  classDef removed fill:#ffebe9,stroke:#cf222e,color:#1f2328,stroke-dasharray:4 3',
    '  classDef changed fill:#fff8c5,stroke:#9a6700,color:#1f2328',
  );
  if (removedLinks.length) lines.push(`  linkStyle ${removedLinks.join(',')} stroke:#cf222e,stroke-dasharray:4 3`);
  lines.push('```');
  const legend = '_Green: added, red: removed, amber: changed; a thick arrow is a new dependsOn, a dotted red one a removed dependsOn._';
  return [lines.join('\n'), '', legend].join('\n');
}
