// Parses tiers.yaml and validates it with the shared zod schema. Every issue is reported at once, each as
// `tiers.yaml:LINE:COL: dotted.path: message`. zod loads with this module and the yaml library at its first parse,
// so the reader (tiers-yaml.ts) imports it only for a text it has not validated before.
import { yaml } from './lazy-yaml.js';
import { configSchema, type StandupConfig } from '../model/config.js';
import { ConfigError } from '../model/errors.js';
import { nodeAt } from './yaml-node-at.js';
import { nearNames } from '../model/near.js';

const showPath = (p: readonly PropertyKey[]): string =>
  p.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? String(s) : `.${String(s)}`)).join('') || '(top level)';

/** Parses and validates tiers.yaml text; `name` is how the file is shown in messages. Throws ConfigError. */
export function parseConfig(text: string, name: string): StandupConfig {
  const lc = new (yaml().LineCounter)();
  const doc = yaml().parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined) => {
    if (offset === undefined) return name;
    const { line, col } = lc.linePos(offset);
    return `${name}:${line}:${col}`;
  };
  if (doc.errors.length) {
    const lines = doc.errors.map((e) => `${at(e.pos[0])}: ${e.message.split('\n')[0]}`);
    throw invalid(name, lines);
  }
  const data: unknown = doc.toJS() ?? {};
  const parsed = configSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  const lines: string[] = [];
  for (const issue of parsed.error.issues) {
    const p = issue.path;
    if (issue.code === 'unrecognized_keys') {
      const known = keysAt(configSchema, p);
      for (const key of issue.keys) {
        const node = nodeAt(doc, [...p, key], true);
        const near = nearNames(key, known);
        const hint = near.length ? ` (did you mean ${near.map((n) => `"${n}"`).join(' or ')}?)` : known.length ? ` (known keys: ${known.join(', ')})` : '';
        lines.push(`${at(node?.range?.[0])}: ${showPath(p)}: unknown key "${key}"${hint}`);
      }
      continue;
    }
    const node = nodeAt(doc, p);
    lines.push(`${at(node?.range?.[0])}: ${showPath(p)}: ${explain(issue, valueAt(data, p))}`);
  }
  throw invalid(name, lines);
}

/** zod's message, with the allowed values (and the near ones) where the value must be one of a list. */
function explain(issue: { message: string }, value: unknown): string {
  const allowed = allowedValues(issue);
  if (!allowed.length) return issue.message;
  const near = typeof value === 'string' ? nearNames(value, allowed) : [];
  return `${JSON.stringify(value)} is not allowed: use one of ${allowed.join(', ')}${near.length ? ` (did you mean ${near.join(' or ')}?)` : ''}`;
}

function allowedValues(issue: unknown): string[] {
  const i = issue as { code?: string; values?: unknown[]; errors?: unknown[][] };
  if (i.code === 'invalid_value' && Array.isArray(i.values)) return i.values.map(String);
  if (i.code === 'invalid_union' && Array.isArray(i.errors)) return [...new Set(i.errors.flat().flatMap((e) => (Array.isArray((e as { path?: unknown[] }).path) && (e as { path: unknown[] }).path.length === 0 ? allowedValues(e) : [])))];
  return [];
}

const valueAt = (data: unknown, p: readonly PropertyKey[]): unknown =>
  p.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined), data);

/** The keys an object of the schema takes at `p` (through optional, default, records and arrays), for "did you mean". */
function keysAt(schema: unknown, p: readonly PropertyKey[]): string[] {
  type Def = { type?: string; shape?: Record<string, unknown>; innerType?: unknown; element?: unknown; valueType?: unknown; in?: unknown; out?: unknown; options?: unknown[] };
  const defOf = (s: unknown): Def => ((s as { def?: Def })?.def ?? {});
  const unwrap = (s: unknown): unknown => {
    const d = defOf(s);
    if (['optional', 'default', 'nullable', 'prefault', 'readonly', 'catch'].includes(d.type ?? '')) return unwrap(d.innerType);
    if (d.type === 'pipe') return unwrap(d.in);
    return s;
  };
  let s = unwrap(schema);
  for (const k of p) {
    const d = defOf(s);
    if (d.type === 'object') s = unwrap(d.shape?.[String(k)]);
    else if (d.type === 'record') s = unwrap(d.valueType);
    else if (d.type === 'array') s = unwrap(d.element);
    else return [];
  }
  const d = defOf(s);
  if (d.type === 'object') return Object.keys(d.shape ?? {});
  if (d.type === 'union') return [...new Set((d.options ?? []).flatMap((o) => keysAt(o, [])))];
  return [];
}

function invalid(name: string, lines: string[]): ConfigError {
  return new ConfigError(
    'CONFIG_INVALID',
    `${name} is invalid:\n${lines.map((l) => `  ${l}`).join('\n')}`,
    'Fix the lines above; every key is listed in the README under "tiers.yaml".',
  );
}
