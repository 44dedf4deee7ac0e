// Reads tiers.yaml at the repository root. Its parser (tiers-yaml-parser.ts: yaml and zod, ~130 ms to import) loads
// only for a configuration that is not in the parse memo, so a warm load of an unchanged configuration never loads it.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { StandupConfig } from '../model/config.js';
import { ConfigError } from '../model/errors.js';
import type { TextMemo } from './lazy-yaml.js';

export const CONFIG_FILE = 'tiers.yaml';

export interface LoadedConfig {
  config: StandupConfig;
  /** Absolute path of tiers.yaml, or null when the repository has none. */
  file: string | null;
}

/** Reads `<root>/tiers.yaml`; a repository without one gets the empty configuration (clusters are discovered). */
export async function readConfig(root: string): Promise<LoadedConfig> {
  const file = path.join(root, CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { config: (await import('../model/config.js')).emptyConfig(), file: null };
    throw new ConfigError('CONFIG_INVALID', `${CONFIG_FILE}: cannot read: ${(e as Error).message}`, undefined, { cause: e });
  }
  return { config: (await import('./tiers-yaml-parser.js')).parseConfig(text, CONFIG_FILE), file };
}

/**
 * tiers.yaml, validated; from the parse memo when this text was validated before. A configuration error is never
 * kept.
 */
export async function readTiers(root: string, memo: TextMemo): Promise<LoadedConfig> {
  const file = path.join(root, CONFIG_FILE);
  let text: string | null;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return readConfig(root);
    text = null;
  }
  const how = text === null ? 'tiers.yaml absent' : 'tiers.yaml';
  let config = memo.peek<StandupConfig>(how, text ?? '');
  if (config === undefined) {
    config = text === null ? (await import('../model/config.js')).emptyConfig() : (await import('./tiers-yaml-parser.js')).parseConfig(text, CONFIG_FILE);
    memo.put(how, text ?? '', config);
  }
  return { config, file: text === null ? null : file };
}
