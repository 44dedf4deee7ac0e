import { ConfigError } from '../model/errors.js';

/** The flags every command takes (DESIGN.md: they follow kubectl and flux). */
export interface GlobalOptions {
  repo?: string;
  cluster: string[];
  path?: string;
  /** The root sync's source, KIND/NAMESPACE/NAME (--source). */
  source?: string;
  /** false with --no-cache: render everything again, and neither read nor write the render cache. */
  cache?: boolean;
  output?: string;
  verbose?: boolean;
}

/** Validates `-o` against what a command can print; the error lists the choices. */
export function outputFormat<T extends string>(value: string | undefined, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new ConfigError('BAD_FLAG', `unknown output format "${value}"`, `Use one of: ${choices.join(', ')}.`);
}

/**
 * `-o` as kubectl takes it: `-o json`, `-ojson`, `--output=json` and also `-o=json` (commander hands the short form
 * over as "=json").
 */
export const parseOutput = (value: string): string => value.replace(/^=/, '');

export { DATA_FORMATS, isDataFormat, renderDocument, renderStreamDocument, type DataFormat } from '../ui/document.js';

export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
