// An object's identity (apiVersion, kind, metadata) read from its YAML text without parsing the whole document:
// parsing every object kustomize prints is most of a load's CPU, and most objects are only looked at by kind and name.
import { yaml, type TextMemo } from './lazy-yaml.js';
import type { Obj } from '../model/k8s.js';

/** The identifying fields of an object, read without parsing the whole document. */
export interface Header {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string | null;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/**
 * Reads apiVersion, kind and metadata of one document. kustomize prints canonical block YAML, which a line scanner
 * reads exactly; anything it does not expect (flow collections, anchors, tags, folded plain scalars) falls back to
 * parsing those top-level blocks with the yaml library.
 */
export function scanHeader(text: string, memo?: TextMemo): Header {
  // With a memo, a header the scanner cannot read does not load the yaml library again on the next load.
  return fastHeader(text) ?? (memo ? memo.get('header', text, () => slowHeader(text)) : slowHeader(text));
}

const SIMPLE_KEY = /^([A-Za-z0-9_.\/-]+|"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'):(?: (.*))?$/;

/** A scalar's string value; null for YAML null; undefined when this scanner cannot be sure (fall back). */
function scalar(v: string): string | null | undefined {
  const s = v.trim();
  if (s === '') return '';
  if (s === '~' || s === 'null') return null;
  const c = s[0]!;
  if (c === '"') {
    try {
      const j: unknown = JSON.parse(s);
      return typeof j === 'string' ? j : undefined;
    } catch {
      return undefined;
    }
  }
  if (c === "'") return s.endsWith("'") && s.length >= 2 ? s.slice(1, -1).replace(/''/g, "'") : undefined;
  if ('{[&*!|>%@`'.includes(c) || / #/.test(s) || /:\s/.test(s)) return undefined;
  return s;
}

function fastHeader(text: string): Header | null {
  const h: Header = { apiVersion: '', kind: '', name: '', namespace: null, labels: {}, annotations: {} };
  const lines = text.split('\n');
  let section: 'none' | 'metadata' | 'labels' | 'annotations' | 'skip' = 'none';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (!l.trim() || l.trimStart().startsWith('#')) continue;
    if (l[0] !== ' ') {
      const m = SIMPLE_KEY.exec(l);
      if (!m) return null;
      const key = m[1]!;
      const rest = m[2] ?? '';
      if (key === 'apiVersion' || key === 'kind') {
        const v = scalar(rest);
        if (v === undefined || v === null) return null;
        h[key] = v;
        section = 'none';
      } else if (key === 'metadata') {
        if (rest.trim() && rest.trim() !== '{}') return null;
        section = 'metadata';
      } else {
        section = 'skip';
      }
      continue;
    }
    if (section === 'none' || section === 'skip') continue;
    const indent = l.length - l.trimStart().length;
    const body = l.slice(indent);
    if (indent === 2) {
      const m = SIMPLE_KEY.exec(body);
      if (!m) return null;
      const key = m[1]!;
      const rest = (m[2] ?? '').trim();
      if (key === 'labels' || key === 'annotations') {
        if (rest === '{}') {
          section = 'metadata';
          continue;
        }
        if (rest) return null;
        section = key;
      } else {
        section = 'metadata';
        if (key === 'name' || key === 'namespace') {
          const v = scalar(rest);
          if (v === undefined || rest.startsWith('|') || rest.startsWith('>')) return null;
          if (key === 'name') h.name = v ?? '';
          else h.namespace = v || null;
        } else if (rest.startsWith('|') || rest.startsWith('>')) {
          // skip a block scalar's lines
          while (i + 1 < lines.length && (lines[i + 1]!.startsWith('   ') || !lines[i + 1]!.trim())) i++;
        }
      }
      continue;
    }
    if (indent === 4 && (section === 'labels' || section === 'annotations')) {
      const m = SIMPLE_KEY.exec(body);
      if (!m) return null;
      let key = m[1]!;
      if (key[0] === '"' || key[0] === "'") {
        const k = scalar(key);
        if (k === undefined || k === null) return null;
        key = k;
      }
      const rest = (m[2] ?? '').trim();
      let value: string | null;
      if (/^[|>][-+]?$/.test(rest)) {
        // A block scalar (kustomize's origin annotation is one): the following lines indented deeper.
        const block: string[] = [];
        let blockIndent = -1;
        while (i + 1 < lines.length) {
          const n = lines[i + 1]!;
          const ni = n.length - n.trimStart().length;
          if (n.trim() && ni <= 4) break;
          if (n.trim() && blockIndent < 0) blockIndent = ni;
          block.push(n.slice(Math.max(0, blockIndent)));
          i++;
        }
        while (block.length && !block[block.length - 1]!.trim()) block.pop();
        if (rest[0] === '>') return null;
        value = block.join('\n') + (rest.endsWith('-') ? '' : '\n');
      } else {
        const v = scalar(rest);
        if (v === undefined) return null;
        value = v;
      }
      h[section][key] = value ?? '';
      continue;
    }
    if (indent > 4 && (section === 'labels' || section === 'annotations')) return null; // a continuation we do not expect
    // Deeper lines of other metadata fields (ownerReferences, finalizers, …) are skipped.
  }
  return h;
}


/** The same as scanHeader, always through the yaml library (the reference the scanner is tested against). */
export function slowHeader(text: string): Header {
  const keep: string[] = [];
  let on = false;
  for (const l of text.split('\n')) {
    if (l && l[0] !== ' ' && l[0] !== '#' && l[0] !== '\t') on = /^(apiVersion|kind|metadata):/.test(l);
    if (on) keep.push(l);
  }
  let h: Obj = {};
  try {
    h = (yaml().parse(keep.join('\n'), { uniqueKeys: false, maxAliasCount: -1 }) ?? {}) as Obj;
  } catch {
    h = {};
  }
  const md = (h.metadata ?? {}) as Obj;
  const strMap = (m: unknown): Record<string, string> => {
    const o: Record<string, string> = {};
    if (m && typeof m === 'object') for (const [k, v] of Object.entries(m)) o[k] = v === null || v === undefined ? '' : String(v);
    return o;
  };
  const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));
  return {
    apiVersion: str(h.apiVersion),
    kind: str(h.kind),
    name: str(md.name),
    namespace: typeof md.namespace === 'string' && md.namespace ? md.namespace : null,
    labels: strMap(md.labels),
    annotations: strMap(md.annotations),
  };
}
