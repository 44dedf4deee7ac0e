// What the executor checks and makes of a value before a call takes it (text/template/exec.go's validateType and
// idealConstant), and the error and options of an execution.
import { assignable, canBeNil, type GoFunc, type ParamType } from './func.js';
import type { NumberNode } from './nodes.js';
import { GoInt, typeName } from './values.js';

export class TemplateExecError extends Error {
  /** Set when the error is a call of a function this engine does not implement. */
  unsupportedFunction?: string;
}

export interface ExecOptions {
  name: string;
  text: string;
  funcs: ReadonlyMap<string, GoFunc>;
  missingKeyError: boolean;
}

/** No final argument (Go's missingVal). */
export const MISSING = Symbol('missing');

/** A value as a parameter of type `t` takes it (nil for a missing one where t can be nil), else Go's error. */
export function validateType(fail: (msg: string) => never, value: unknown, t: ParamType): unknown {
  if (value === undefined || value === MISSING) {
    if (t === 'value') return undefined;
    if (canBeNil(t)) return null;
    fail(`invalid value; expected ${t}`);
  }
  if (assignable(value, t)) return value;
  if (value === null) fail(`wrong type for value; expected ${t}; got interface {}`);
  return fail(`wrong type for value; expected ${t}; got ${typeName(value)}`);
}

/** A number literal as an untyped constant: a float64 when written as one, else an int. */
export function idealConstant(n: NumberNode): unknown {
  const hexInt = /^[+-]?0[xX]/.test(n.text) && !/[pP]/.test(n.text);
  if (n.isFloat && !hexInt && !n.text.startsWith("'") && /[.eEpP]/.test(n.text)) return n.float;
  return n.isInt ? new GoInt(n.int) : n.float;
}
