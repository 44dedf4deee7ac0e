// Go values as the template engine sees them. JSON data decoded by Go's encoding/json into `any` is made of
// map[string]interface {}, []interface {}, string, float64, bool and nil; Go code adds ints (template constants,
// len, sprig's arithmetic) and typed slices. In TypeScript: a plain object is a map, an array a slice, a `number` a
// float64, a GoInt an integer, `null` a nil interface and `undefined` the invalid reflect.Value (no value at all).

/** An integer-typed Go value (`int`, `int64`, `uint64`): JavaScript numbers are Go's float64. */
export class GoInt {
  constructor(
    readonly v: number,
    readonly type: 'int' | 'int64' | 'uint64' = 'int',
  ) {}
}

/** A slice whose Go element type is not interface{} (sprig's `splitList` gives []string). */
export class TypedSlice extends Array<unknown> {
  elem = 'interface {}';
  static of2(elem: string, items: unknown[]): TypedSlice {
    const s = new TypedSlice();
    s.elem = elem;
    s.push(...items);
    return s;
  }
}

/** A map keyed by something other than string (sprig's `split` gives map[string]string with keys _0, _1...). */
export type GoMap = Record<string, unknown>;

export const isMap = (v: unknown): v is GoMap => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoInt);
export const isSlice = (v: unknown): v is unknown[] => Array.isArray(v);
export const isInt = (v: unknown): v is GoInt => v instanceof GoInt;
export const isFloat = (v: unknown): v is number => typeof v === 'number';

/** The Go type name, as `%T` and the template's error messages print it. */
export function typeName(v: unknown): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'float64';
  if (v instanceof GoInt) return v.type;
  if (v instanceof TypedSlice) return `[]${v.elem}`;
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** reflect.Kind's name (sprig's kindOf). */
export function kindName(v: unknown): string {
  if (v === undefined || v === null) return 'invalid';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'float64';
  if (v instanceof GoInt) return v.type;
  if (Array.isArray(v)) return 'slice';
  return 'map';
}

/** text/template's truth: false, 0, nil and empty strings, slices and maps are false. */
export function isTrue(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (v instanceof GoInt) return v.v !== 0;
  if (Array.isArray(v)) return v.length > 0;
  return Object.keys(v as object).length > 0;
}

/** The numeric value of an int or a float64, else null. */
export const numberOf = (v: unknown): number | null => (typeof v === 'number' ? v : v instanceof GoInt ? v.v : null);

/** Go's strconv.FormatFloat(f, 'g', -1, 64), which fmt's %v uses: shortest digits, %e form when exp < -4 or >= 6. */
export function formatFloatG(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  // JavaScript's shortest round-trip digits are Go's (both: the shortest string that parses back to the same float).
  const [mant, expStr] = f.toExponential().split('e') as [string, string];
  const exp = Number(expStr);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  let out: string;
  if (exp < -4 || exp >= 6) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    out = `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  } else if (exp < 0) {
    out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  } else if (digits.length <= exp + 1) {
    out = digits + '0'.repeat(exp + 1 - digits.length);
  } else {
    out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  }
  return neg ? `-${out}` : out;
}

/** fmt's %v of a value (and Sprint's of one operand). */
export function formatValue(v: unknown, top = true): string {
  if (v === undefined) return top ? '<no value>' : '<nil>';
  if (v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return formatFloatG(v);
  if (v instanceof GoInt) return String(v.v);
  if (Array.isArray(v)) return `[${v.map((x) => formatValue(x, false)).join(' ')}]`;
  const m = v as GoMap;
  return `map[${Object.keys(m)
    .sort()
    .map((k) => `${k}:${formatValue(m[k], false)}`)
    .join(' ')}]`;
}
