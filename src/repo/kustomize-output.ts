// Reads what kustomize prints: splits the output into objects, reads each one's identity with a line scanner
// (object-header.ts), and parses whole objects only on demand. Also cleans kustomize's error text for messages.
import path from 'node:path';
import { yaml, type TextMemo } from './lazy-yaml.js';
import { scanHeader, type Header } from './object-header.js';

const ORIGIN_ANNOTATION = 'config.kubernetes.io/origin';

/**
 * One built object, kept as the YAML kustomize printed (parsing every object is most of the load's CPU, and most
 * objects are only looked at by kind and name): `header` is read eagerly, the full object on demand (materialize).
 */
export interface BuiltObject {
  text: string;
  header: Header;
  /** Absolute path of the file the object was read from (or the kustomization that generated it), if known. */
  file: string | null;
  /** True when kustomize generated it (configMapGenerator and friends): no line to point at. */
  generated: boolean;
}

/**
 * What one kustomize build gave. `reported`: kustomize ran and reported the error itself (exit 1 with a message): the
 * same inputs fail the same way. A crash, a signal or a missing binary is not, and is never cached.
 */
export type BuildOutcome = { ok: true; objects: BuiltObject[] } | { ok: false; error: string; reported?: boolean };

/** Splits kustomize output into objects (kustomize prints one `---` line between documents). */
export function parseBuilt(out: string, builtDir: string): BuiltObject[] {
  const objects: BuiltObject[] = [];
  for (const text of out.split(/^---[ \t]*\r?\n/m)) {
    if (!text.trim()) continue;
    const header = scanHeader(text);
    if (!header.kind) continue;
    let file: string | null = null;
    let generated = false;
    const origin = header.annotations[ORIGIN_ANNOTATION];
    if (origin !== undefined) {
      const p = /^path:\s*(.+)$/m.exec(origin);
      const c = /^configuredIn:\s*(.+)$/m.exec(origin);
      // From a remote base (`repo:` names it): its path is inside that repository, no file of this one.
      if (/^repo:/m.test(origin)) file = null;
      else if (p) file = path.resolve(builtDir, unquote(p[1]!));
      else if (c) {
        file = path.resolve(builtDir, unquote(c[1]!));
        generated = true;
      }
    }
    objects.push({ text, header, file, generated });
  }
  return objects;
}

/** The whole object, without kustomize's origin annotation; parsed once per text when a memo is given. */
export function materialize(text: string, memo?: TextMemo): Record<string, unknown> {
  return memo ? memo.get('object', text, () => parseObject(text)) : parseObject(text);
}

function parseObject(text: string): Record<string, unknown> {
  let raw: unknown;
  try {
    raw = yaml().parse(text, { uniqueKeys: false, maxAliasCount: -1 });
  } catch {
    raw = {};
  }
  const obj = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const md = obj.metadata as { labels?: Record<string, string>; annotations?: Record<string, string> } | undefined;
  if (md?.annotations && ORIGIN_ANNOTATION in md.annotations) {
    delete md.annotations[ORIGIN_ANNOTATION];
    if (Object.keys(md.annotations).length === 0) delete md.annotations;
  }
  return obj;
}

const unquote = (s: string) => s.trim().replace(/^['"]|['"]$/g, '');

/** kubectl wraps kustomize's error in a klog line; keep only kustomize's own message. */
export function cleanError(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const out: string[] = [];
  for (const l of lines) {
    const m = /"command failed" err="(.*)"$/.exec(l);
    if (m) out.push(m[1]!.replace(/\\"/g, '"').replace(/\\n/g, '\n'));
    else if (/^Error: /.test(l)) out.push(l.slice(7));
    else if (!/^(Usage:|Examples?:|Flags:|\s*-)/.test(l) && !/^[EWI]\d{4} /.test(l)) out.push(l);
  }
  return (out.length ? out : lines).join('\n').trim();
}

/** kustomize's error, without temp paths (overlays, artifacts) or the per-level nesting, and at most ~600 chars. */
export function trimKustomizeError(error: string, root: string, work: string): string {
  const up = path.relative(path.join(work, 'r1'), root);
  let s = error.split(`${up}/`).join('').split(`${root}/`).join('');
  const w = work.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  s = s.replace(new RegExp(`${w}/r\\d+`, 'g'), '<overlay>');
  s = s.replace(new RegExp(`${w}/a\\d+-([^/\\s']+)`, 'g'), '<artifact $1>');
  // kustomize nests one "accumulating resources from X: read X: is a directory: recursed …" per level; the cause
  // is at the end, so drop the nesting.
  for (let prev = ''; prev !== s; ) {
    prev = s;
    s = s.replace(
      /accumulating resources: accumulation err='accumulating resources from '[^']*': (read [^:]*: is a directory|'[^']*' must resolve to a file)': recursed (accumulation of|merging from) path '[^']*': /,
      '',
    );
  }
  s = s.replace(/\s+/g, ' ').trim();
  return s.length > 600 ? `${s.slice(0, 200)} … ${s.slice(-380)}` : s;
}
