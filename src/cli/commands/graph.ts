import { graphJson, renderDot, renderMermaid, renderTree } from '../../ui/graph-render.js';
import { ExitCode } from '../../model/errors.js';
import type { Io } from '../io.js';
import { loadAndPlan, noteNotExpanded, warnLoadProblems } from '../load.js';
import { outputFormat, renderDocument, type GlobalOptions } from '../options.js';

const FORMATS = ['text', 'mermaid', 'dot', 'json', 'yaml'] as const;

/** `standup graph`: the dependsOn and nesting graph as a tree, Mermaid, DOT or JSON. */
export async function graph(o: GlobalOptions, io: Io): Promise<number> {
  const format = outputFormat(o.output, FORMATS, 'text');
  const { repo, contexts } = await loadAndPlan(o, io, undefined, 'graph');
  const render = {
    text: renderTree,
    mermaid: renderMermaid,
    dot: renderDot,
    json: (c: typeof contexts) => renderDocument('json', graphJson(c)),
    yaml: (c: typeof contexts) => renderDocument('yaml', graphJson(c)),
  }[format];
  io.out(render(contexts));
  warnLoadProblems(repo.problems, contexts.length, io);
  noteNotExpanded(repo.clusters, io);
  return ExitCode.ok;
}
