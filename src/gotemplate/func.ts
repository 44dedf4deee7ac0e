// How a template function is described to the executor: its Go parameter types (so arguments are checked and
// converted as reflect does, with Go's error words) and its body. A body throws FuncError for the error a Go
// function returns; the executor words it "error calling NAME: ...".
import { GoInt, TypedSlice, isMap, typeName } from './values.js';

/**
 * Go parameter types the functions use: `any` is interface{}; `value` a reflect.Value (builtins that take any value
 * but see an invalid one as is).
 */
export type ParamType = 'any' | 'value' | 'string' | 'int' | 'int64' | 'float64' | 'bool' | '[]string' | '[]interface {}' | 'map[string]interface {}';

export interface GoFunc {
  params: ParamType[];
  /** The element type of a final variadic parameter. */
  variadic?: ParamType;
  fn: (...args: unknown[]) => unknown;
  /** `and`/`or`: arguments are evaluated one by one, and the first deciding one is the result. */
  lazy?: 'and' | 'or';
}

export class FuncError extends Error {}

/** Thrown by a function that exists in Go but not in this engine: the executor keeps its name for the caller. */
export class UnsupportedFunctionError extends Error {
  constructor(
    readonly fn: string,
    readonly why: string,
  ) {
    super(`function "${fn}" is not supported by standup (${why})`);
  }
}

export const fn = (params: ParamType[], body: (...args: never[]) => unknown, variadic?: ParamType): GoFunc => ({
  params,
  variadic,
  fn: body as (...args: unknown[]) => unknown,
});

/** Whether a nil (zero) value of this type exists: interfaces, maps and slices. */
export const canBeNil = (t: ParamType): boolean => t === 'any' || t === 'value' || t === 'map[string]interface {}' || t === '[]string' || t === '[]interface {}';

/** The zero value of a parameter type, passed for a missing (invalid) argument that can be nil. */
export function zeroOf(t: ParamType): unknown {
  switch (t) {
    case 'string':
      return '';
    case 'int':
    case 'int64':
      return new GoInt(0, t);
    case 'float64':
      return 0;
    case 'bool':
      return false;
    default:
      return null;
  }
}

/** reflect's AssignableTo for the values the engine makes. */
export function assignable(v: unknown, t: ParamType): boolean {
  switch (t) {
    case 'any':
    case 'value':
      return true;
    case 'string':
      return typeof v === 'string';
    case 'bool':
      return typeof v === 'boolean';
    case 'float64':
      return typeof v === 'number';
    case 'int':
    case 'int64':
      return v instanceof GoInt && v.type === t;
    case '[]string':
      return v instanceof TypedSlice && v.elem === 'string';
    case '[]interface {}':
      return Array.isArray(v) && !(v instanceof TypedSlice && v.elem !== 'interface {}');
    case 'map[string]interface {}':
      return isMap(v);
  }
}

export { typeName };
