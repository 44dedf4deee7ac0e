// slim-sprig v3.0.0's lists, dicts, defaults, JSON, reflection, regex and flow control (list.go, dict.go,
// defaults.go, reflect.go, regex.go). Functions sprig lets panic on a bad argument throw, which the executor words
// "error calling NAME: ...", as Go's template recovers the panic.
import { fn, FuncError, type GoFunc } from './func.js';
import { empty, goJson, strslice, strval, toInt64 } from './sprig-conv.js';
import { GoInt, isMap, kindName, TypedSlice, typeName, type GoMap } from './values.js';

const asList = (v: unknown, what: string): unknown[] => {
  if (Array.isArray(v)) return v;
  throw new FuncError(what.includes('%s') ? what.replace('%s', kindName(v)) : `Cannot ${what} on type ${kindName(v)}`);
};
const copyList = (v: unknown[]): unknown[] => [...v];

function deepEqual(a: unknown, b: unknown): boolean {
  if (typeName(a) !== typeName(b)) return false;
  if (a instanceof GoInt && b instanceof GoInt) return a.v === b.v;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isMap(a) && isMap(b)) {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return ka.length === kb.length && ka.every((k, i) => k === kb[i] && deepEqual(a[k], b[k]));
  }
  return a === b;
}

function dict(...v: unknown[]): GoMap {
  const out: GoMap = {};
  for (let i = 0; i < v.length; i += 2) out[strval(v[i])] = i + 1 < v.length ? v[i + 1] : '';
  return out;
}

function dig(...ps: unknown[]): unknown {
  if (ps.length < 3) throw new FuncError('dig needs at least three arguments');
  const dictArg = ps[ps.length - 1];
  const def = ps[ps.length - 2];
  const keys = ps.slice(0, -2).map((k) => {
    if (typeof k !== 'string') throw new FuncError(`interface conversion: interface {} is ${typeName(k)}, not string`);
    return k;
  });
  let cur: unknown = dictArg;
  for (const k of keys) {
    if (!isMap(cur)) throw new FuncError(`interface conversion: interface {} is ${typeName(cur)}, not map[string]interface {}`);
    if (!Object.prototype.hasOwnProperty.call(cur, k)) return def;
    cur = cur[k];
  }
  return cur;
}

/** Go's regexp (RE2) in JavaScript: the syntax templates use is shared; a pattern JavaScript rejects is an error. */
function re(pattern: string, global = false): RegExp {
  try {
    return new RegExp(pattern.replace(/\(\?P</g, '(?<'), global ? 'gu' : 'u');
  } catch (e) {
    throw new FuncError(`error parsing regexp: ${(e as Error).message}`);
  }
}
/** Go's ${1} / $name expansion in a replacement, as JavaScript's $1 / $<name>. */
const goRepl = (r: string) => r.replace(/\$\{(\w+)\}|\$(\w+)/g, (_m, a: string | undefined, b: string | undefined) => {
  const name = a ?? b!;
  return /^\d+$/.test(name) ? `$${name}` : `$<${name}>`;
});

const strs = (xs: string[]) => TypedSlice.of2('string', xs);

/** slice and mustSlice (the same in slim-sprig: a bad bound is a runtime error either way). */
const sliceFunc = fn(['any'], (l: unknown, ...idx: unknown[]) => {
  const list = asList(l, 'list should be type of slice or array but %s');
  const from = idx.length > 0 ? toInt64(idx[0]) : 0;
  const to = idx.length > 1 ? toInt64(idx[1]) : list.length;
  if (from < 0 || to > list.length || from > to) throw new FuncError(`runtime error: slice bounds out of range [${from}:${to}]`);
  return list.slice(from, to);
}, 'any');

export const DATA_FUNCS: Record<string, GoFunc> = {
  default: fn(['any'], (d: unknown, ...given: unknown[]) => (given.length === 0 || empty(given[0]) ? d : given[0]), 'any'),
  empty: fn(['any'], empty),
  coalesce: fn([], (...v: unknown[]) => v.find((x) => !empty(x)) ?? null, 'any'),
  all: fn([], (...v: unknown[]) => v.every((x) => !empty(x)), 'any'),
  any: fn([], (...v: unknown[]) => v.some((x) => !empty(x)), 'any'),
  compact: fn(['any'], (l: unknown) => asList(l, 'compact').filter((x) => !empty(x))),
  mustCompact: fn(['any'], (l: unknown) => asList(l, 'compact').filter((x) => !empty(x))),
  ternary: fn(['any', 'any', 'bool'], (vt: unknown, vf: unknown, v: boolean) => (v ? vt : vf)),
  fromJson: fn(['string'], (s: string) => {
    try {
      return fromJsonValue(JSON.parse(s));
    } catch {
      return null;
    }
  }),
  mustFromJson: fn(['string'], (s: string) => {
    try {
      return fromJsonValue(JSON.parse(s));
    } catch (e) {
      throw new FuncError((e as Error).message);
    }
  }),
  toJson: fn(['any'], (v: unknown) => goJson(v)),
  mustToJson: fn(['any'], (v: unknown) => goJson(v)),
  toPrettyJson: fn(['any'], (v: unknown) => goJson(v, { indent: '  ' })),
  mustToPrettyJson: fn(['any'], (v: unknown) => goJson(v, { indent: '  ' })),
  toRawJson: fn(['any'], (v: unknown) => goJson(v, { raw: true })),
  mustToRawJson: fn(['any'], (v: unknown) => goJson(v, { raw: true })),
  typeOf: fn(['any'], (v: unknown) => typeName(v)),
  typeIs: fn(['string', 'any'], (t: string, v: unknown) => t === typeName(v)),
  typeIsLike: fn(['string', 'any'], (t: string, v: unknown) => t === typeName(v) || `*${t}` === typeName(v)),
  kindOf: fn(['any'], (v: unknown) => kindName(v)),
  kindIs: fn(['string', 'any'], (t: string, v: unknown) => t === kindName(v)),
  deepEqual: fn(['any', 'any'], deepEqual),
  tuple: fn([], (...v: unknown[]) => v, 'any'),
  list: fn([], (...v: unknown[]) => v, 'any'),
  dict: fn([], dict, 'any'),
  get: fn(['map[string]interface {}', 'string'], (d: GoMap | null, k: string) => (d && Object.prototype.hasOwnProperty.call(d, k) ? d[k] : '')),
  set: fn(['map[string]interface {}', 'string', 'any'], (d: GoMap | null, k: string, v: unknown) => {
    if (!d) throw new FuncError('assignment to entry in nil map');
    d[k] = v;
    return d;
  }),
  unset: fn(['map[string]interface {}', 'string'], (d: GoMap | null, k: string) => {
    if (d) delete d[k];
    return d;
  }),
  hasKey: fn(['map[string]interface {}', 'string'], (d: GoMap | null, k: string) => !!d && Object.prototype.hasOwnProperty.call(d, k)),
  pluck: fn(['string'], (k: string, ...ds: (GoMap | null)[]) => ds.filter((d) => d && Object.prototype.hasOwnProperty.call(d, k)).map((d) => d![k]), 'map[string]interface {}'),
  // Go's map order is random; standup sorts, so that two runs agree.
  keys: fn([], (...ds: (GoMap | null)[]) => strs(ds.flatMap((d) => Object.keys(d ?? {})).sort()), 'map[string]interface {}'),
  pick: fn(['map[string]interface {}'], (d: GoMap | null, ...ks: string[]) => Object.fromEntries(ks.filter((k) => d && Object.prototype.hasOwnProperty.call(d, k)).map((k) => [k, d![k]])), 'string'),
  omit: fn(['map[string]interface {}'], (d: GoMap | null, ...ks: string[]) => Object.fromEntries(Object.entries(d ?? {}).filter(([k]) => !ks.includes(k))), 'string'),
  values: fn(['map[string]interface {}'], (d: GoMap | null) => Object.keys(d ?? {}).sort().map((k) => d![k])),
  append: fn(['any', 'any'], (l: unknown, v: unknown) => [...asList(l, 'push'), v]),
  push: fn(['any', 'any'], (l: unknown, v: unknown) => [...asList(l, 'push'), v]),
  mustAppend: fn(['any', 'any'], (l: unknown, v: unknown) => [...asList(l, 'push'), v]),
  mustPush: fn(['any', 'any'], (l: unknown, v: unknown) => [...asList(l, 'push'), v]),
  prepend: fn(['any', 'any'], (l: unknown, v: unknown) => [v, ...asList(l, 'prepend')]),
  mustPrepend: fn(['any', 'any'], (l: unknown, v: unknown) => [v, ...asList(l, 'prepend')]),
  first: fn(['any'], (l: unknown) => asList(l, 'find first').at(0) ?? null),
  mustFirst: fn(['any'], (l: unknown) => asList(l, 'find first').at(0) ?? null),
  rest: fn(['any'], (l: unknown) => (asList(l, 'find rest').length === 0 ? null : copyList(asList(l, 'find rest')).slice(1))),
  mustRest: fn(['any'], (l: unknown) => (asList(l, 'find rest').length === 0 ? null : copyList(asList(l, 'find rest')).slice(1))),
  last: fn(['any'], (l: unknown) => asList(l, 'find last').at(-1) ?? null),
  mustLast: fn(['any'], (l: unknown) => asList(l, 'find last').at(-1) ?? null),
  initial: fn(['any'], (l: unknown) => (asList(l, 'find initial').length === 0 ? null : asList(l, 'find initial').slice(0, -1))),
  mustInitial: fn(['any'], (l: unknown) => (asList(l, 'find initial').length === 0 ? null : asList(l, 'find initial').slice(0, -1))),
  reverse: fn(['any'], (l: unknown) => copyList(asList(l, 'find reverse')).reverse()),
  mustReverse: fn(['any'], (l: unknown) => copyList(asList(l, 'find reverse')).reverse()),
  uniq: fn(['any'], (l: unknown) => asList(l, 'find uniq').filter((x, i, all) => all.findIndex((y) => deepEqual(x, y)) === i)),
  mustUniq: fn(['any'], (l: unknown) => asList(l, 'find uniq').filter((x, i, all) => all.findIndex((y) => deepEqual(x, y)) === i)),
  without: fn(['any'], (l: unknown, ...o: unknown[]) => asList(l, 'find without').filter((x) => !o.some((y) => deepEqual(x, y))), 'any'),
  mustWithout: fn(['any'], (l: unknown, ...o: unknown[]) => asList(l, 'find without').filter((x) => !o.some((y) => deepEqual(x, y))), 'any'),
  has: fn(['any', 'any'], (needle: unknown, hay: unknown) => (hay === null || hay === undefined ? false : asList(hay, 'find has').some((x) => deepEqual(x, needle)))),
  mustHas: fn(['any', 'any'], (needle: unknown, hay: unknown) => (hay === null || hay === undefined ? false : asList(hay, 'find has').some((x) => deepEqual(x, needle)))),
  slice: sliceFunc,
  mustSlice: sliceFunc,
  concat: fn([], (...ls: unknown[]) => ls.flatMap((l) => asList(l, 'Cannot concat type %s as list')), 'any'),
  dig: fn([], dig, 'any'),
  chunk: fn(['int', 'any'], (size: GoInt, l: unknown) => {
    const list = asList(l, 'Cannot chunk type %s');
    const out: unknown[][] = [];
    for (let i = 0; i < list.length; i += size.v) out.push(list.slice(i, i + size.v));
    return out;
  }),
  fail: fn(['string'], (msg: string) => {
    throw new FuncError(msg);
  }),
  regexMatch: fn(['string', 'string'], (r: string, s: string) => {
    try {
      return re(r).test(s);
    } catch {
      return false;
    }
  }),
  mustRegexMatch: fn(['string', 'string'], (r: string, s: string) => re(r).test(s)),
  regexFind: fn(['string', 'string'], (r: string, s: string) => re(r).exec(s)?.[0] ?? ''),
  mustRegexFind: fn(['string', 'string'], (r: string, s: string) => re(r).exec(s)?.[0] ?? ''),
  regexFindAll: fn(['string', 'string', 'int'], (r: string, s: string, n: GoInt) => strs([...s.matchAll(re(r, true))].map((m) => m[0]).slice(0, n.v < 0 ? undefined : n.v))),
  mustRegexFindAll: fn(['string', 'string', 'int'], (r: string, s: string, n: GoInt) => strs([...s.matchAll(re(r, true))].map((m) => m[0]).slice(0, n.v < 0 ? undefined : n.v))),
  regexReplaceAll: fn(['string', 'string', 'string'], (r: string, s: string, repl: string) => s.replace(re(r, true), goRepl(repl))),
  mustRegexReplaceAll: fn(['string', 'string', 'string'], (r: string, s: string, repl: string) => s.replace(re(r, true), goRepl(repl))),
  regexReplaceAllLiteral: fn(['string', 'string', 'string'], (r: string, s: string, repl: string) => s.replace(re(r, true), () => repl)),
  mustRegexReplaceAllLiteral: fn(['string', 'string', 'string'], (r: string, s: string, repl: string) => s.replace(re(r, true), () => repl)),
  regexSplit: fn(['string', 'string', 'int'], (r: string, s: string, n: GoInt) => strs(regexSplit(re(r, true), s, n.v))),
  mustRegexSplit: fn(['string', 'string', 'int'], (r: string, s: string, n: GoInt) => strs(regexSplit(re(r, true), s, n.v))),
  regexQuoteMeta: fn(['string'], (s: string) => s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&')),
  toStrings: fn(['any'], (v: unknown) => strs(strslice(v))),
};

/** JSON decoded as Go's encoding/json decodes into interface{}: numbers are float64. */
const fromJsonValue = (v: unknown): unknown => v;

function regexSplit(r: RegExp, s: string, n: number): string[] {
  if (n === 0) return [];
  const parts: string[] = [];
  let last = 0;
  for (const m of s.matchAll(r)) {
    if (n > 0 && parts.length === n - 1) break;
    if (m[0] === '' && m.index === 0) continue;
    parts.push(s.slice(last, m.index));
    last = m.index! + m[0].length;
  }
  parts.push(s.slice(last));
  return parts;
}
