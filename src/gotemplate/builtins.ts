// text/template's predefined functions (text/template/funcs.go): and, or, not, len, index, slice, print, printf,
// println, eq, ne, lt, le, gt, ge, html, js, urlquery. `call` needs Go functions as data and is left out.
import { fn, FuncError, type GoFunc } from './func.js';
import { sprint, sprintf, sprintln } from './fmt.js';
import { formatValue, GoInt, isMap, isTrue, typeName } from './values.js';

type Kind = 'bool' | 'int' | 'float' | 'string' | 'other';

function basicKind(v: unknown): Kind {
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof GoInt) return 'int';
  if (typeof v === 'number') return 'float';
  if (typeof v === 'string') return 'string';
  return 'other';
}

const scalar = (v: unknown): unknown => (v instanceof GoInt ? v.v : v);

function eq(a: unknown, ...rest: unknown[]): boolean {
  if (rest.length === 0) throw new FuncError('missing argument for comparison');
  const k1 = basicKind(a);
  for (const b of rest) {
    const k2 = basicKind(b);
    if (k1 !== k2) {
      if (a !== undefined && a !== null && b !== undefined && b !== null) throw new FuncError(`incompatible types for comparison: ${typeName(a)} and ${typeName(b)}`);
      if ((a ?? null) === (b ?? null)) return true;
      continue;
    }
    if (k1 === 'other') {
      const nil = (x: unknown) => x === undefined || x === null;
      if (nil(a) || nil(b)) {
        if (nil(a) === nil(b)) return true;
        continue;
      }
      if (Array.isArray(a) !== Array.isArray(b)) throw new FuncError(`non-comparable types ${formatValue(a, false)}: ${typeName(a)}, ${typeName(b)}: ${formatValue(b, false)}`);
      throw new FuncError(`non-comparable type ${formatValue(b, false)}: ${typeName(b)}`);
    }
    if (scalar(a) === scalar(b)) return true;
  }
  return false;
}

function lt(a: unknown, b: unknown): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 === 'other' || k2 === 'other') throw new FuncError('invalid type for comparison');
  if (k1 !== k2) throw new FuncError(`incompatible types for comparison: ${typeName(a)} and ${typeName(b)}`);
  if (k1 === 'bool') throw new FuncError('invalid type for comparison');
  return (scalar(a) as number | string) < (scalar(b) as number | string);
}

function length(v: unknown): GoInt {
  if (v === undefined || v === null) throw new FuncError('len of nil pointer');
  if (typeof v === 'string') return new GoInt(Buffer.byteLength(v, 'utf8'));
  if (Array.isArray(v)) return new GoInt(v.length);
  if (isMap(v)) return new GoInt(Object.keys(v).length);
  throw new FuncError(`len of type ${typeName(v)}`);
}

function indexArg(i: unknown, cap: number): number {
  if (!(i instanceof GoInt)) throw new FuncError(`cannot index slice/array with type ${typeName(i)}`);
  if (i.v < 0 || i.v >= cap) throw new FuncError(`index out of range: ${i.v}`);
  return i.v;
}

function index(item: unknown, ...indexes: unknown[]): unknown {
  let v = item;
  if (v === undefined || v === null) throw new FuncError('index of untyped nil');
  for (const i of indexes) {
    if (Array.isArray(v)) v = v[indexArg(i, v.length)];
    else if (typeof v === 'string') v = new GoInt(Buffer.from(v, 'utf8')[indexArg(i, Buffer.byteLength(v, 'utf8'))]!, 'int');
    else if (isMap(v)) {
      if (typeof i !== 'string') throw new FuncError(`value has type ${typeName(i)}; should be string`);
      v = Object.prototype.hasOwnProperty.call(v, i) ? v[i] : null;
    } else if (v === null || v === undefined) throw new FuncError('index of nil pointer');
    else throw new FuncError(`can't index item of type ${typeName(v)}`);
  }
  return v;
}

function slice(item: unknown, ...idx: unknown[]): unknown {
  if (item === undefined || item === null) throw new FuncError('slice of untyped nil');
  if (idx.length > 3) throw new FuncError(`too many slice indexes: ${idx.length}`);
  const len = typeof item === 'string' ? item.length : Array.isArray(item) ? item.length : -1;
  if (len < 0) throw new FuncError(`can't slice item of type ${typeName(item)}`);
  if (typeof item === 'string' && idx.length === 3) throw new FuncError('cannot 3-index slice a string');
  const n = idx.map((i) => {
    if (!(i instanceof GoInt)) throw new FuncError(`cannot index slice/array with type ${typeName(i)}`);
    if (i.v < 0 || i.v > len) throw new FuncError(`index out of range: ${i.v}`);
    return i.v;
  });
  const from = n[0] ?? 0;
  const to = n[1] ?? len;
  if (from > to) throw new FuncError(`invalid slice index: ${from} > ${to}`);
  return typeof item === 'string' ? item.slice(from, to) : (item as unknown[]).slice(from, to);
}

const htmlEscape = (s: string) =>
  s.replace(/[&'<>"\u0000]/g, (c) => ({ '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '"': '&#34;', '\u0000': '\uFFFD' })[c]!);

function jsEscape(s: string): string {
  return s.replace(/[\\'"<>&=\n\r\t\u0000-\u001f]/g, (c) => {
    switch (c) {
      case '\\':
        return '\\\\';
      case "'":
        return "\\'";
      case '"':
        return '\\"';
      case '<':
        return '\\u003C';
      case '>':
        return '\\u003E';
      case '&':
        return '\\u0026';
      case '=':
        return '\\u003D';
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      default:
        return `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    }
  });
}

/** The escapers' argument: one string as is, else Sprint of the arguments. */
const evalArgs = (args: unknown[]): string => (args.length === 1 && typeof args[0] === 'string' ? args[0] : sprint(args));

export const BUILTINS: Record<string, GoFunc> = {
  and: { ...fn(['value'], () => null, 'value'), lazy: 'and' },
  or: { ...fn(['value'], () => null, 'value'), lazy: 'or' },
  not: fn(['value'], (v: unknown) => !isTrue(v)),
  len: fn(['value'], length),
  index: fn(['value'], index, 'value'),
  slice: fn(['value'], slice, 'value'),
  print: fn([], (...a: unknown[]) => sprint(a), 'any'),
  printf: fn(['string'], (f: string, ...a: unknown[]) => sprintf(f, a), 'any'),
  println: fn([], (...a: unknown[]) => sprintln(a), 'any'),
  eq: fn(['value'], eq, 'value'),
  ne: fn(['value', 'value'], (a: unknown, b: unknown) => !eq(a, b)),
  lt: fn(['value', 'value'], lt),
  le: fn(['value', 'value'], (a: unknown, b: unknown) => lt(a, b) || eq(a, b)),
  gt: fn(['value', 'value'], (a: unknown, b: unknown) => !(lt(a, b) || eq(a, b))),
  ge: fn(['value', 'value'], (a: unknown, b: unknown) => !lt(a, b)),
  html: fn([], (...a: unknown[]) => htmlEscape(evalArgs(a)), 'any'),
  js: fn([], (...a: unknown[]) => jsEscape(evalArgs(a)), 'any'),
  urlquery: fn([], (...a: unknown[]) => encodeURIComponent(evalArgs(a)).replace(/%20/g, '+').replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`), 'any'),
};
