// Reads tiers.yaml at the repository root. Its parser (tiers-yaml-parser.ts: zod, and the yaml library) loads only
// for a configuration that is not in the parse memo, so a warm load of an unchanged configuration never loads it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { StandupConfig } from '../model/config.js';
import { ConfigError } from '../model/errors.js';
import { noMemo, type TextMemo } from './lazy-yaml.js';

export const CONFIG_FILE = 'tiers.yaml';

export interface LoadedConfig {
  config: StandupConfig;
  /** Absolute path of tiers.yaml, or null when the repository has none. */
  file: string | null;
}

/**
 * The text of `<root>/tiers.yaml`, or null when the repository has none (its clusters are then discovered). Throws
 * ConfigError when the file is there but cannot be read.
 */
export function readTiersText(root: string): string | null {
  try {
    return readFileSync(path.join(root, CONFIG_FILE), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError('CONFIG_INVALID', `${CONFIG_FILE}: cannot read: ${(e as Error).message}`, undefined, { cause: e });
  }
}

/** Reads `<root>/tiers.yaml`; a repository without one gets the empty configuration (clusters are discovered). */
export function readConfig(root: string): Promise<LoadedConfig> {
  return readTiers(root, readTiersText(root), noMemo);
}

/**
 * tiers.yaml from its text (readTiersText), validated; from the parse memo when this text was validated before. A
 * configuration error is never kept.
 */
export async function readTiers(root: string, text: string | null, memo: TextMemo): Promise<LoadedConfig> {
  const how = text === null ? 'tiers.yaml absent' : 'tiers.yaml';
  let config = memo.peek<StandupConfig>(how, text ?? '');
  if (config === undefined) {
    config = text === null ? (await import('../model/config.js')).emptyConfig() : (await import('./tiers-yaml-parser.js')).parseConfig(text, CONFIG_FILE);
    memo.put(how, text ?? '', config);
  }
  return { config, file: text === null ? null : path.join(root, CONFIG_FILE) };
}
