// kustomize's output says which file an object came from (the originAnnotations build option), but not the line.
// This index reads each such file once with a light line scanner and maps (kind, name as written) to the line of
// `metadata.name` (or the document start). Best effort: null when the name was generated or templated.
import { readFileSync } from 'node:fs';
import type { TextMemo } from '../repo/lazy-yaml.js';

export interface DocInfo {
  kind: string | null;
  name: string | null;
  /** 1-based line of the document's first content line. */
  start: number;
  /** 1-based line of metadata.name, when found. */
  nameLine: number | null;
  /** Last line of the document (inclusive). */
  end: number;
}

export interface FileIndex {
  /** The file's lines, split when first asked for (dependsOnLine). */
  readonly lines: string[];
  docs: DocInfo[];
  /** Documents by `kind\u0000name` and by kind, in file order: one lookup per object, not a scan of the file. */
  byKindName: Map<string, DocInfo>;
  byKind: Map<string, DocInfo[]>;
}

const scalar = (s: string): string =>
  s
    .replace(/\s+#.*$/, '')
    .replace(/^&\S+\s*/, '')
    .trim()
    .replace(/^(['"])(.*)\1$/, '$2');

/** Splits a YAML file into documents and finds each one's kind and metadata.name lines. */
export function indexText(text: string, memo?: TextMemo): FileIndex {
  // The scan is per text: a warm load reads the documents from the memo and splits lines only when asked.
  const docs = memo ? memo.get('origin-docs', text, () => scanDocs(text.split(/\r?\n/))) : scanDocs(text.split(/\r?\n/));
  let lines: string[] | undefined;
  const byKindName = new Map<string, DocInfo>();
  const byKind = new Map<string, DocInfo[]>();
  for (const d of docs) {
    if (d.kind === null) continue;
    const k = `${d.kind}\u0000${d.name}`;
    if (d.name !== null && !byKindName.has(k)) byKindName.set(k, d);
    const list = byKind.get(d.kind);
    if (list) list.push(d);
    else byKind.set(d.kind, [d]);
  }
  return {
    get lines() {
      return (lines ??= text.split(/\r?\n/));
    },
    docs,
    byKindName,
    byKind,
  };
}

function scanDocs(lines: string[]): DocInfo[] {
  const docs: DocInfo[] = [];
  let cur: DocInfo | null = null;
  let inMeta = false;
  let metaIndent = -1;
  const close = (i: number) => {
    if (cur) {
      cur.end = i;
      docs.push(cur);
    }
    cur = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^---(\s|$)/.test(l) || /^\.\.\.\s*$/.test(l)) {
      close(i);
      inMeta = false;
      continue;
    }
    if (!l.trim() || /^\s*#/.test(l)) continue;
    if (!cur) cur = { kind: null, name: null, start: i + 1, nameLine: null, end: i + 1 };
    const d: DocInfo = cur;
    if (!/^\s/.test(l)) {
      inMeta = /^metadata:\s*(#.*)?$/.test(l);
      metaIndent = -1;
      const k = /^kind:\s*(.+)$/.exec(l);
      if (k && d.kind === null) d.kind = scalar(k[1]!);
      continue;
    }
    if (inMeta && d.nameLine === null) {
      const m = /^(\s+)name:\s*(.*)$/.exec(l);
      const indent = /^\s*/.exec(l)![0].length;
      if (metaIndent < 0) metaIndent = indent;
      if (m && indent === metaIndent) {
        d.name = scalar(m[2]!);
        d.nameLine = i + 1;
      }
    }
  }
  close(lines.length);
  return docs;
}

export class OriginIndex {
  private cache = new Map<string, FileIndex | null>();
  /** Per document (`file\u0000start`): the lines from its `dependsOn:` on that can hold a `name:`. */
  private nameLines = new Map<string, { line: number; text: string; plain: string | null }[]>();
  /** One pattern per dependsOn name: a fleet's entries name the same few Kustomizations over and over. */
  private patterns = new Map<string, RegExp>();

  constructor(private readonly memo?: TextMemo) {}

  file(abs: string): FileIndex | null {
    let f = this.cache.get(abs);
    if (f === undefined) {
      try {
        f = indexText(readFileSync(abs, 'utf8'), this.memo);
      } catch {
        f = null;
      }
      this.cache.set(abs, f);
    }
    return f;
  }

  /** The document in `abs` that defines kind/name; falls back to the only document of that kind. */
  doc(abs: string, kind: string, name: string): DocInfo | null {
    const f = this.file(abs);
    if (!f) return null;
    const exact = f.byKindName.get(`${kind}\u0000${name}`);
    if (exact) return exact;
    const ofKind = f.byKind.get(kind) ?? [];
    if (ofKind.length === 1) return ofKind[0]!;
    // kustomize prefixes and suffixes names; match on the name as written inside the built one.
    const inside = ofKind.filter((d) => d.name && name.includes(d.name));
    return inside.length === 1 ? inside[0]! : null;
  }

  /** Line of metadata.name (else the document start) of kind/name in abs; null when not found. */
  line(abs: string, kind: string, name: string): number | null {
    const d = this.doc(abs, kind, name);
    return d ? (d.nameLine ?? d.start) : null;
  }

  /**
   * Line of the dependsOn entry naming `dep` in the document `d` of `abs`: the first line from the document's
   * `dependsOn:` to its end that matches entryPattern(dep), or null. The document's lines that can hold a name are
   * collected once, with the name of each line written in the plain form (`- name: x`, quoted or commented alike);
   * a Kubernetes name then compares strings, and only other lines or names compile the pattern.
   */
  dependsOnLine(abs: string, d: DocInfo, dep: string): number | null {
    const f = this.file(abs);
    if (!f) return null;
    const key = `${abs}\u0000${d.start}`;
    let cands = this.nameLines.get(key);
    if (cands === undefined) {
      cands = [];
      const end = Math.min(d.end, f.lines.length);
      let i = Math.max(1, d.start);
      while (i <= end && !DEPENDS_ON.test(f.lines[i - 1]!)) i++;
      for (; i <= end; i++) {
        const text = f.lines[i - 1]!;
        if (text.includes('name:')) cands.push({ line: i, text, plain: PLAIN_ENTRY.exec(text)?.[2] ?? null });
      }
      this.nameLines.set(key, cands);
    }
    const plainDep = PLAIN_NAME.test(dep);
    let re: RegExp | undefined;
    for (const c of cands) {
      // A plain line matches a plain name exactly when the two are equal (entryPattern allows nothing else there).
      if (plainDep && c.plain !== null) {
        if (c.plain === dep) return c.line;
        continue;
      }
      if (!c.text.includes(dep)) continue;
      re ??= this.patterns.get(dep) ?? this.patterns.set(dep, entryPattern(dep)).get(dep)!;
      if (re.test(c.text)) return c.line;
    }
    return null;
  }
}

const DEPENDS_ON = /^\s*dependsOn:/;
/** A Kubernetes object name (DNS subdomain characters, any case): no quote, space, `#`, `&` or `:`. */
const PLAIN_NAME = /^[A-Za-z0-9._-]+$/;
/** A line holding one `name:` (none in its comment either), whose value is a plain name, quoted or not. */
const PLAIN_ENTRY = /^\s*(?:-\s+)?name:\s*(["']?)([A-Za-z0-9._-]+)\1\s*(?:#(?!.*name:).*)?$/;

/** What an entry naming `dep` looks like: `name:`, maybe an anchor, the name maybe quoted, maybe a comment. */
function entryPattern(dep: string): RegExp {
  const esc = dep.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`name:\\s*(&\\S+\\s+)?["']?${esc}["']?\\s*(#.*)?$`);
}
