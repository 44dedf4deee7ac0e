import { ExitCode } from '../../model/errors.js';
import type { CliCommand } from '../command.js';
import type { Io } from '../io.js';
import { flagsOf, outputFormat, renderDocument, type GlobalOptions } from '../options.js';
import { addSelectionFlags, NAMES_ARGUMENT, requireNames, selectionOf, type SelectionFlags } from '../selection.js';

export interface GraphOptions extends GlobalOptions, SelectionFlags {}

const FORMATS = ['text', 'mermaid', 'dot', 'json', 'yaml'] as const;

export const graphCommand: CliCommand = {
  name: 'graph',
  formats: FORMATS,
  define: (command, cli) => addSelectionFlags(command
    .description('print the dependsOn graph: a tree in tier order, Mermaid, DOT or JSON')
    .argument('[names...]', `${NAMES_ARGUMENT}: the tree shows them under the tiers that apply them, pictures with what they depend on`),
  'text: leave out each cluster\'s first line (its name and entry)')
    .addHelpText('after', `
Arrows in Mermaid and DOT point the way the cluster converges: a dependency before its dependents.
Dotted arrows go from a Kustomization to the Kustomizations its build applies.
A cluster with no order (a dependsOn cycle, an entry that does not build) is marked in place of its graph (a
comment in Mermaid and DOT; -o json: "unordered"), the others are printed, and graph exits 2.

Examples:
  standup graph -o mermaid > graph.mmd  GitHub shows a .mmd file as the picture (in Markdown: a \`\`\`mermaid block)
  standup graph -o dot > graph.dot      render it with Graphviz: dot -Tsvg graph.dot > graph.svg
  standup graph -n flux-system          only that namespace's Kustomizations, under the tiers that apply them`)
    .action(async (names, o, cmd) => cli.exit(await graph({ ...flagsOf(o, cmd), names }, cli.io))),
};

/** `standup graph`: the dependsOn and nesting graph as a tree, Mermaid, DOT or JSON. */
export async function graph(o: GraphOptions, io: Io): Promise<number> {
  const format = outputFormat(o.output, FORMATS, 'text');
  const selection = selectionOf(o);
  const [{ loadAndPlan, noteNotExpanded, reportUnordered, unorderedClusters, warnLoadProblems }, { graphJson, renderDot, renderMermaid, renderTree }, ui] = await Promise.all([
    import('../load-and-plan.js'), import('../../ui/graph-render.js'), import('../../ui/unordered.js'),
  ]);
  const { repo, contexts: all } = await loadAndPlan(o, io, undefined, 'graph');
  // A cluster with no order (a cycle, an entry that does not build) is marked in place of its graph.
  const unordered = unorderedClusters(repo, all);
  const contexts = all.filter((c) => !unordered.some((u) => u.name === c.cluster.name));
  // ResourceSets are nodes too, selected by their namespace and name.
  const nodes = (c: (typeof contexts)[number]) => [...c.plan.kustomizations.map((k) => k.key), ...(c.plan.resourceSets ?? []).map((r) => `${r.namespace}/${r.name}`)];
  await requireNames(contexts.map(nodes), contexts.map((c) => c.cluster.name), selection, 'graph', io);
  const view = { selection, header: o.header !== false };
  const why = (u: (typeof unordered)[number]) => `cluster ${u.name} cannot be ordered: ${u.problems.map((p) => p.code).join(', ')} (standup check)`;
  const data = (f: 'json' | 'yaml') => renderDocument(f, { ...graphJson(contexts, view), ...(unordered.length ? { unordered: ui.unorderedJson(unordered) } : {}) });
  const render = {
    text: () => [contexts.length ? renderTree(contexts, view) : '', unordered.length ? ui.renderUnorderedText(unordered, io.style) : ''].filter(Boolean).join('\n'),
    // Comments inside the picture, so a saved file still says what is missing from it.
    mermaid: () => renderMermaid(contexts, view) + unordered.map((u) => `  %% ${why(u)}\n`).join(''),
    dot: () => renderDot(contexts, view) + unordered.map((u) => `// ${why(u)}\n`).join(''),
    json: () => data('json'),
    yaml: () => data('yaml'),
  }[format];
  io.out(render());
  warnLoadProblems(repo.problems.filter((p) => !unordered.some((u) => u.problems.includes(p))), all.length, io);
  noteNotExpanded(repo.clusters.filter((c) => !unordered.some((u) => u.name === c.name)), io);
  if (unordered.length) {
    reportUnordered(unordered, all, io);
    return ExitCode.config;
  }
  return ExitCode.ok;
}
