// A Go text/template in TypeScript: parse with chosen delimiters and functions, execute over data. Errors are Go's
// words (TemplateParseError, TemplateExecError); a function slim-sprig has but this engine does not implement (dates,
// randomness, URLs) is an UnsupportedFunctionError naming it, never a silent empty string.
import { BUILTINS } from './builtins.js';
import { execute, TemplateExecError } from './exec.js';
import { UnsupportedFunctionError, type GoFunc } from './func.js';
import type { ListNode } from './nodes.js';
import { parseTemplate, TemplateParseError } from './parse.js';
import { DATA_FUNCS } from './sprig-data.js';
import { STRING_FUNCS } from './sprig-strings.js';

export { TemplateExecError, TemplateParseError };
export { fn, FuncError, UnsupportedFunctionError, type GoFunc, type ParamType } from './func.js';


/**
 * slim-sprig v3.0.0's hermetic text functions (HermeticTxtFuncMap) that are implemented here: every one of its
 * string, list, dict, default, conversion, JSON, reflection, regex, path, encoding, math and flow functions.
 */
export const HERMETIC_SPRIG: Readonly<Record<string, GoFunc>> = { ...STRING_FUNCS, ...DATA_FUNCS };

/** slim-sprig's hermetic functions not implemented here, with why; calling one is an UnsupportedFunctionError. */
export const UNSUPPORTED_SPRIG: Readonly<Record<string, string>> = Object.fromEntries([
  ...['ago', 'duration', 'durationRound', 'toDate', 'mustToDate', 'unixEpoch', 'must_date_modify', 'mustDateModify'].map((n) => [n, 'time and dates depend on when the operator renders'] as const),
  ['randInt', 'a random number differs on every render'],
  ...['urlParse', 'urlJoin'].map((n) => [n, 'URL parsing is not implemented'] as const),
  ...['b32enc', 'b32dec'].map((n) => [n, 'base32 is not implemented'] as const),
  ...['osBase', 'osClean', 'osDir', 'osExt', 'osIsAbs'].map((n) => [n, 'OS file paths depend on the operator\'s platform'] as const),
  ['call', 'Go function values do not occur in ResourceSet inputs'],
]);

export interface TemplateOptions {
  /** Template name, in error messages (`template: NAME:LINE: ...`). */
  name: string;
  leftDelim?: string;
  rightDelim?: string;
  /** Functions added to the builtins and to slim-sprig's (they override both, as Template.Funcs does). */
  funcs?: Record<string, GoFunc>;
  /** Option("missingkey=error"). */
  missingKeyError?: boolean;
  /** Include slim-sprig's hermetic functions (default true). */
  sprig?: boolean;
}

export class GoTemplate {
  private readonly root: ListNode;
  private readonly funcs: Map<string, GoFunc>;

  /** Parses `text`; throws TemplateParseError with Go's message. */
  constructor(
    private readonly text: string,
    private readonly o: TemplateOptions,
  ) {
    this.funcs = new Map(Object.entries({ ...BUILTINS, ...(o.sprig === false ? {} : HERMETIC_SPRIG), ...(o.funcs ?? {}) }));
    if (o.sprig !== false) {
      for (const [name, why] of Object.entries(UNSUPPORTED_SPRIG)) {
        if (!this.funcs.has(name)) {
          this.funcs.set(name, {
            params: [],
            variadic: 'value',
            fn: () => {
              throw new UnsupportedFunctionError(name, why);
            },
          });
        }
      }
    }
    this.root = parseTemplate(text, {
      name: o.name,
      leftDelim: o.leftDelim ?? '{{',
      rightDelim: o.rightDelim ?? '}}',
      hasFunction: (n) => this.funcs.has(n),
    });
  }

  /** Executes over `data` (undefined: Execute(w, nil)); throws TemplateExecError (unsupportedFunction set for one). */
  execute(data?: unknown): string {
    return execute(this.root, data, { name: this.o.name, text: this.text, funcs: this.funcs, missingKeyError: this.o.missingKeyError ?? false });
  }
}
