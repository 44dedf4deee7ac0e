// Reads tiers.yaml at the repository root and validates it with the shared zod schema. Every issue is reported at
// once, each as `tiers.yaml:LINE:COL: dotted.path: message`.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { configSchema, emptyConfig, type StandupConfig } from '../model/config.js';
import { ConfigError } from '../model/errors.js';
import { nodeAt } from './yaml-pos.js';

export const CONFIG_FILE = 'tiers.yaml';

export interface LoadedConfig {
  config: StandupConfig;
  /** Absolute path of tiers.yaml, or null when the repository has none. */
  file: string | null;
}

const showPath = (p: readonly PropertyKey[]): string =>
  p.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? String(s) : `.${String(s)}`)).join('') || '(top level)';

/** Reads `<root>/tiers.yaml`; a repository without one gets the empty configuration (clusters are discovered). */
export async function readConfig(root: string): Promise<LoadedConfig> {
  const file = path.join(root, CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { config: emptyConfig(), file: null };
    throw new ConfigError('CONFIG_INVALID', `${CONFIG_FILE}: cannot read: ${(e as Error).message}`, undefined, { cause: e });
  }
  return { config: parseConfig(text, CONFIG_FILE), file };
}

/** Parses and validates tiers.yaml text; `name` is how the file is shown in messages. Throws ConfigError. */
export function parseConfig(text: string, name = CONFIG_FILE): StandupConfig {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined) => {
    if (offset === undefined) return name;
    const { line, col } = lc.linePos(offset);
    return `${name}:${line}:${col}`;
  };
  if (doc.errors.length) {
    const lines = doc.errors.map((e) => `${at(e.pos[0])}: ${e.message.split('\n')[0]}`);
    throw invalid(lines);
  }
  const data: unknown = doc.toJS() ?? {};
  const parsed = configSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  const lines: string[] = [];
  for (const issue of parsed.error.issues) {
    const p = issue.path;
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const node = nodeAt(doc, [...p, key], true);
        lines.push(`${at(node?.range?.[0])}: ${showPath(p)}: unknown key "${key}"`);
      }
      continue;
    }
    const node = nodeAt(doc, p);
    lines.push(`${at(node?.range?.[0])}: ${showPath(p)}: ${issue.message}`);
  }
  throw invalid(lines);
}

function invalid(lines: string[]): ConfigError {
  return new ConfigError(
    'CONFIG_INVALID',
    `${CONFIG_FILE} is invalid:\n${lines.map((l) => `  ${l}`).join('\n')}`,
    'Fix the lines above; every key is listed in the README under "tiers.yaml".',
  );
}

/** The line of each `ignore:` entry of tiers.yaml text, in order (null where the YAML does not say). */
export function ignoreEntryLines(text: string): (number | null)[] {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false });
  const data = doc.toJS() as { ignore?: unknown[] } | null;
  return (Array.isArray(data?.ignore) ? data!.ignore : []).map((_, i) => {
    const node = nodeAt(doc, ['ignore', i]);
    return node?.range ? lc.linePos(node.range[0]).line : null;
  });
}
