import type { Command } from '@commander-js/extra-typings';
import { ConfigError } from '../model/errors.js';

/** The program's own flags as commander hands them over (src/cli/program.ts declares them). */
export type ProgramOptions = {
  repo?: string;
  cluster?: string[];
  path?: string;
  source?: string;
  localSource?: string[];
  cache: boolean;
  output?: string;
  verbose?: true;
};

/** The program, typed by its flags: what every command is defined on. */
export type Program = Command<[], ProgramOptions>;

/** A command just created on the program: no arguments or flags of its own yet, the program's flags inherited. */
export type NewCommand = Command<[], {}, ProgramOptions>;

/** The flags every command takes (DESIGN.md: they follow kubectl and flux). */
export interface GlobalOptions {
  repo?: string;
  cluster: string[];
  path?: string;
  /** The root sync's source, KIND/NAMESPACE/NAME (--source). */
  source?: string;
  /** Sources read from a directory, KIND/NAMESPACE/NAME=DIR or URL=DIR (--local-source, repeatable). */
  localSource?: string[];
  /** false with --no-cache: render everything again, and neither read nor write the render cache. */
  cache?: boolean;
  output?: string;
  verbose?: boolean;
}

/**
 * A command's flags and the program's in one object (the command's own win: check has its own --verbose), with
 * --cluster as a list even when not given.
 */
export function flagsOf<O extends object, G extends { cluster?: string[] }>(own: O, cmd: { optsWithGlobals(): G }): G & O & { cluster: string[] } {
  const all = cmd.optsWithGlobals();
  return { ...all, cluster: all.cluster ?? [], ...own };
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
