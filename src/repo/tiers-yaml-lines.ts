// The lines of tiers.yaml's `ignore:` entries, for check's suppression findings. Apart from the parser
// (tiers-yaml-parser.ts), which brings zod: check, and the check step of up and resume, need only these lines, and
// only when tiers.yaml has ignore entries.
import { noMemo, yaml, type TextMemo } from './lazy-yaml.js';
import { nodeAt } from './yaml-node-at.js';

/** The line of each `ignore:` entry of tiers.yaml text, in order (null where the YAML does not say). */
export function ignoreEntryLines(text: string, memo: TextMemo = noMemo): (number | null)[] {
  return memo.get('tiers-ignore-lines 1', text, () => {
    const lc = new (yaml().LineCounter)();
    const doc = yaml().parseDocument(text, { lineCounter: lc, prettyErrors: false });
    const data = doc.toJS() as { ignore?: unknown[] } | null;
    return (Array.isArray(data?.ignore) ? data!.ignore : []).map((_, i) => {
      const node = nodeAt(doc, ['ignore', i]);
      return node?.range ? lc.linePos(node.range[0]).line : null;
    });
  });
}
