// A multi-document YAML text's documents, parsed once per text. The bootstrap reader looks at one file several ways
// (is it a HelmRelease, a helmfile, the objects to apply), and a Flux install (gotk-components.yaml, 240 KB) took
// ~350 ms of CPU to parse on a cold start, three times over, after the repository had loaded. With the load's memo
// the file is parsed once, and a later run reads the result back as JSON.
import { noMemo, yaml, type TextMemo } from './lazy-yaml.js';

/** One document: its value (null when empty), or its first error, with its line and column when the parser has them. */
export type YamlDocument = { value: unknown } | { error: string; line?: number; col?: number };

/**
 * The documents of `text`. Give `memo` only for text read from the repository: a memo is kept on disk, so text that
 * is not already there in the same form (decrypted secrets, helm's output) is parsed without one.
 */
export function yamlDocuments(text: string, memo: TextMemo = noMemo): YamlDocument[] {
  return memo.get('yaml-documents 1', text, () =>
    yaml()
      .parseAllDocuments(text, { prettyErrors: true })
      .map((doc): YamlDocument => {
        const err = doc.errors[0];
        if (err) {
          const at = err.linePos?.[0];
          return { error: err.message.split('\n')[0] ?? '', ...(at ? { line: at.line, col: at.col } : {}) };
        }
        try {
          return { value: (doc.toJS() as unknown) ?? null };
        } catch (e) {
          // An alias bomb (more aliases than the library resolves) is an error of this document, not of the reader.
          return { error: e instanceof Error ? e.message : String(e) };
        }
      }),
  );
}
