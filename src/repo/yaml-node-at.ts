// The YAML node behind a schema path, so a config error can point at its file:line.
import type { Document, Node } from 'yaml';
import { yaml } from './lazy-yaml.js';

/**
 * The node at `path` in `doc`, walking maps and sequences; with `keyOf` the key node of the last segment (so an
 * unknown key points at the key itself). Returns the deepest node reached when the path goes further than the YAML.
 */
export function nodeAt(doc: Document, path: readonly PropertyKey[], keyOfLast = false): Node | null {
  const { isMap, isPair, isScalar, isSeq } = yaml();
  let cur: unknown = doc.contents;
  let last: Node | null = (doc.contents as Node | null) ?? null;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (isMap(cur)) {
      const pair = cur.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return last;
      if (keyOfLast && i === path.length - 1 && isScalar(pair.key)) return pair.key;
      cur = pair.value;
    } else if (isSeq(cur) && typeof seg === 'number') {
      cur = cur.items[seg];
    } else {
      return last;
    }
    if (cur && typeof cur === 'object' && 'range' in (cur as object)) last = cur as Node;
  }
  return last;
}
