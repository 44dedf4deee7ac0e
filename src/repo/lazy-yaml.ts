// YAML parsing on demand. A warm load (everything from the render cache and the parse memo) never parses YAML, so the
// yaml library loads on first use (model/yaml-library.ts), and each parse goes through a TextMemo that remembers what
// a text gave before (cache/parse-memo.ts keeps one across runs).
import { yamlLibrary } from '../model/yaml-library.js';

/** The yaml library (its CommonJS build, the same one `import 'yaml'` gives on Node). */
export const yaml = yamlLibrary;

/**
 * What parsing a text one way gave before, by the exact text and how (`how` names the parse). Results are plain
 * data; each use gets its own copy.
 */
export interface TextMemo {
  /** What `parse` gives for `text`, from the memo when this text was parsed this way before. */
  get<T>(how: string, text: string, parse: () => T): T;
  /** What parsing `text` this way gave before, or undefined. */
  peek<T>(how: string, text: string): T | undefined;
  /** Keeps what parsing `text` this way gave. */
  put(how: string, text: string, value: unknown): void;
}

/** A TextMemo that remembers nothing: every text is parsed again. */
export const noMemo: TextMemo = {
  get: (_how, _text, parse) => parse(),
  peek: () => undefined,
  put: () => {},
};
