// Edits of one YAML document that keep everything else byte for byte: yaml's Document API finds the node and its
// source range, the edit splices text there (a scalar replaced, a line inserted or removed), and the result is parsed
// again and compared with the same edit made on the document's value. Any doubt (a flow collection where a line is
// needed, an anchor, a mismatch after the splice) is an UnsafeEdit: the caller leaves the file alone and says so.
import { isMap, isScalar, isSeq, parseDocument, type Document, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';

/** The edit cannot be made without risking what is around it. */
export class UnsafeEdit extends Error {}

type Json = unknown;

const parse = (text: string): Document.Parsed => {
  const doc = parseDocument(text, { uniqueKeys: false });
  if (doc.errors.length > 0) throw new UnsafeEdit(`the document does not parse: ${doc.errors[0]!.message.split('\n')[0]}`);
  return doc;
};

const lineStart = (text: string, offset: number): number => text.lastIndexOf('\n', offset - 1) + 1;
const lineEnd = (text: string, offset: number): number => {
  const i = text.indexOf('\n', offset);
  return i < 0 ? text.length : i + 1;
};
const column = (text: string, offset: number): number => offset - lineStart(text, offset);

function nodeAt(doc: Document.Parsed, path: readonly string[]): Node | null {
  const n = doc.getIn(path, true) as Node | undefined;
  return n ?? null;
}

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair | undefined;
}

/** Where a block map's content ends: after the line on which its last value ends (and its trailing comment). */
function afterLastPair(text: string, map: YAMLMap): number {
  const last = map.items.at(-1);
  const end = (last?.value as Node | null)?.range?.[1] ?? (last?.key as Node | null)?.range?.[1] ?? map.range![1];
  return lineEnd(text, Math.max(0, end - 1));
}

function keyIndent(text: string, map: YAMLMap): string {
  const first = map.items[0]?.key as Node | undefined;
  if (!first?.range) throw new UnsafeEdit('an empty map');
  return ' '.repeat(column(text, first.range[0]));
}

/** Whether the file writes a sequence under a key with its dashes indented (`key:\n  - a`) or not (`key:\n- a`). */
export function seqIndentOf(text: string): number {
  const m = /^([ ]*)[^\s#-][^\n]*:[ ]*\n([ ]*)- /m.exec(text);
  return m ? Math.max(0, m[2]!.length - m[1]!.length) : 2;
}

function checked(before: string, after: string, expect: (value: Json) => Json): string {
  const want = expect(structuredClone(parse(before).toJS({ maxAliasCount: -1 })) as Json);
  const got = parse(after).toJS({ maxAliasCount: -1 }) as Json;
  if (JSON.stringify(got) !== JSON.stringify(want)) throw new UnsafeEdit('the edit did not give the expected document');
  return after;
}

const getIn = (v: Json, path: readonly string[]): Json => path.reduce<Json>((o, k) => (o && typeof o === 'object' ? (o as Record<string, Json>)[k] : undefined), v);

/** Sets `path` (a key of a block map) to a scalar written as `yamlValue` (`true`, `v1`), replacing or adding it. */
export function setScalar(text: string, path: readonly string[], yamlValue: string, jsValue: Json): string {
  const doc = parse(text);
  const node = nodeAt(doc, path);
  const expect = (v: Json) => {
    (getIn(v, path.slice(0, -1)) as Record<string, Json>)[path.at(-1)!] = jsValue;
    return v;
  };
  if (node) {
    if (!isScalar(node) || !node.range || node.anchor) throw new UnsafeEdit(`${path.join('.')} is not a plain value`);
    return checked(text, text.slice(0, node.range[0]) + yamlValue + text.slice(node.range[1]), expect);
  }
  const parent = path.length === 1 ? doc.contents : nodeAt(doc, path.slice(0, -1));
  if (!isMap(parent) || parent.flow || !parent.range) throw new UnsafeEdit(`${path.slice(0, -1).join('.') || 'the document'} is not a block map`);
  const at = afterLastPair(text, parent);
  const line = `${keyIndent(text, parent)}${path.at(-1)}: ${yamlValue}\n`;
  const head = text.slice(0, at);
  return checked(text, (head.endsWith('\n') || head === '' ? head : `${head}\n`) + line + text.slice(at), expect);
}

/**
 * Appends an item (a one-line flow map such as `name: x`, or a scalar) to the sequence at `path`, creating the
 * sequence under its parent map when it is missing.
 */
export function appendItem(text: string, path: readonly string[], itemYaml: string, jsItem: Json): string {
  const doc = parse(text);
  const node = nodeAt(doc, path);
  const expect = (v: Json) => {
    const parent = getIn(v, path.slice(0, -1)) as Record<string, Json>;
    const key = path.at(-1)!;
    parent[key] = [...((parent[key] as Json[] | null | undefined) ?? []), jsItem];
    return v;
  };
  if (node) {
    if (!isSeq(node) || !node.range) throw new UnsafeEdit(`${path.join('.')} is not a list`);
    if (node.flow) {
      const close = text.lastIndexOf(']', node.range[1]);
      if (close < node.range[0]) throw new UnsafeEdit(`${path.join('.')} is a flow list standup cannot find the end of`);
      const sep = node.items.length > 0 ? ', ' : '';
      const flowItem = itemYaml.includes(': ') ? `{${itemYaml.split('\n').join(', ')}}` : itemYaml;
      return checked(text, `${text.slice(0, close).replace(/\s*$/, '')}${sep}${flowItem}${text.slice(close)}`, expect);
    }
    const first = node.items[0] as Node | undefined;
    if (!first?.range) throw new UnsafeEdit(`${path.join('.')} is an empty block list`);
    const dash = text.lastIndexOf('-', first.range[0]);
    const indent = ' '.repeat(column(text, dash));
    const at = lineEnd(text, Math.max(0, node.range[1] - 1));
    const head = text.slice(0, at);
    return checked(text, (head.endsWith('\n') ? head : `${head}\n`) + blockItem(indent, itemYaml) + text.slice(at), expect);
  }
  const parent = path.length === 1 ? doc.contents : nodeAt(doc, path.slice(0, -1));
  if (!isMap(parent) || parent.flow || !parent.range) throw new UnsafeEdit(`${path.slice(0, -1).join('.') || 'the document'} is not a block map`);
  const existing = pairOf(parent, path.at(-1)!);
  if (existing) throw new UnsafeEdit(`${path.join('.')} is set but is not a list`);
  const indent = keyIndent(text, parent);
  const at = afterLastPair(text, parent);
  const head = text.slice(0, at);
  const block = `${indent}${path.at(-1)}:\n${blockItem(indent + ' '.repeat(seqIndentOf(text)), itemYaml)}`;
  return checked(text, (head.endsWith('\n') || head === '' ? head : `${head}\n`) + block + text.slice(at), expect);
}

/** `- a: 1` with the item's further lines (`b: 2`) under its first key. */
const blockItem = (indent: string, itemYaml: string): string =>
  itemYaml.split('\n').map((l, i) => `${i === 0 ? `${indent}- ` : `${indent}  `}${l}`).join('\n') + '\n';

/** Removes the items of the block sequence at `path` that `match` (by value), whole lines with their comments. */
export function removeItems(text: string, path: readonly string[], match: (item: Json) => boolean): string {
  const doc = parse(text);
  const node = nodeAt(doc, path);
  if (!isSeq(node) || !node.range) throw new UnsafeEdit(`${path.join('.')} is not a list`);
  if (node.flow) throw new UnsafeEdit(`${path.join('.')} is a flow list`);
  const seq = node as YAMLSeq;
  const remove = seq.items.map((it) => match((it as Node & { toJSON(): Json }).toJSON()));
  if (!remove.some(Boolean)) return text;
  const expect = (v: Json) => {
    const parent = getIn(v, path.slice(0, -1)) as Record<string, Json>;
    const key = path.at(-1)!;
    const left = (parent[key] as Json[]).filter((x) => !match(x));
    parent[key] = left;
    return v;
  };
  if (remove.every(Boolean)) {
    // Nothing left: the key keeps an empty flow list, which kustomize reads as no entries.
    const parent = (path.length === 1 ? doc.contents : nodeAt(doc, path.slice(0, -1))) as YAMLMap;
    const keyNode = pairOf(parent, path.at(-1)!)?.key as Node | undefined;
    if (!keyNode?.range) throw new UnsafeEdit(`${path.join('.')} has no key to keep`);
    const colon = text.indexOf(':', keyNode.range[1]);
    const end = lineEnd(text, Math.max(0, seq.range![1] - 1));
    return checked(text, `${text.slice(0, colon)}: []\n${text.slice(end)}`, expect);
  }
  let out = text;
  // From the last item back, so earlier offsets stay valid.
  for (let i = seq.items.length - 1; i >= 0; i--) {
    if (!remove[i]) continue;
    const item = seq.items[i] as Node;
    const from = lineStart(out, out.lastIndexOf('-', item.range![0]));
    const next = seq.items[i + 1] as Node | undefined;
    const to = next ? lineStart(out, out.lastIndexOf('-', next.range![0])) : lineEnd(out, Math.max(0, item.range![1] - 1));
    out = out.slice(0, from) + out.slice(to);
  }
  return checked(text, out, expect);
}
