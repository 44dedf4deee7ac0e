// Locates malformed YAML (file:line:col) behind a failed build: kustomize's own message rarely gives a line.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sortedNames, statSafe } from './fs-stat.js';
import { yaml, type TextMemo } from './lazy-yaml.js';

export interface YamlError {
  /** Absolute path. */
  file: string;
  line: number;
  col: number;
  message: string;
}

/**
 * Parse errors of one file (YAML 1.2, duplicate keys and anchors allowed as kustomize allows them). With a memo, by
 * the text: a build that keeps failing (warm from the render cache) does not load the YAML parser to say so again.
 */
export function yamlErrors(file: string, memo?: TextMemo): YamlError[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  if (!memo) return parseErrors(file, text);
  return memo.get('yaml errors', text, () => parseErrors('', text).map(({ file: _, ...e }) => e)).map((e) => ({ file, ...e }));
}

function parseErrors(file: string, text: string): YamlError[] {
  const lc = new (yaml().LineCounter)();
  const out: YamlError[] = [];
  for (const doc of yaml().parseAllDocuments(text, { lineCounter: lc, uniqueKeys: false, prettyErrors: false })) {
    for (const e of doc.errors) {
      const { line, col } = lc.linePos(e.pos[0]);
      out.push({ file, line, col, message: `${e.code}: ${e.message.split('\n')[0]}` });
    }
  }
  return out;
}

/** YAML files under `dir` (recursive, capped), for diagnosing a failed build. */
export function yamlFilesUnder(dir: string, cap = 400): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of sortedNames(d)) {
      if (out.length >= cap) return;
      const p = path.join(d, n);
      const st = statSafe(p);
      if (!st) continue;
      if (st.isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(n) || n === 'Kustomization') out.push(p);
    }
  };
  walk(dir);
  return out;
}
