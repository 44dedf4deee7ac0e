// slim-sprig v3.0.0's string, math and conversion functions (functions.go, strings.go, numeric.go, crypto.go),
// with their Go parameter types so that a wrong argument fails with Go's words.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fn, FuncError, type GoFunc } from './func.js';
import { strslice, strval, toFloat64, toInt64 } from './sprig-conv.js';
import { quoteGo } from './unquote.js';
import { GoInt, TypedSlice } from './values.js';

const int64 = (n: number) => new GoInt(n, 'int64');
const int = (n: number) => new GoInt(n, 'int');
const ints = (xs: number[]) => TypedSlice.of2('int', xs.map(int));
const strs = (xs: string[]) => TypedSlice.of2('string', xs);
const iv = (v: unknown) => (v as GoInt).v;

/** Go's strings.Title: the first letter of each word upper-cased. */
function title(s: string): string {
  let prev = ' ';
  let out = '';
  for (const ch of s) {
    const sep = !/[\p{L}\p{N}_]/u.test(prev);
    out += sep ? ch.toUpperCase() : ch;
    prev = ch;
  }
  return out;
}

/** Go's strings.Trim with a cutset. */
function trimCutset(s: string, cutset: string, left = true, right = true): string {
  const set = new Set(cutset);
  const chars = [...s];
  let a = 0;
  let b = chars.length;
  while (left && a < b && set.has(chars[a]!)) a++;
  while (right && b > a && set.has(chars[b - 1]!)) b--;
  return chars.slice(a, b).join('');
}

/** Go's byte-indexed string slicing (s[a:b]) for ASCII-heavy templates; multi-byte text is sliced by bytes too. */
function byteSlice(s: string, a: number, b?: number): string {
  const buf = Buffer.from(s, 'utf8');
  return buf.subarray(a, b).toString('utf8');
}
const byteLen = (s: string) => Buffer.byteLength(s, 'utf8');

function adler32(s: string): number {
  let a = 1;
  let b = 0;
  for (const byte of Buffer.from(s, 'utf8')) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}
export const adler32String = (s: string): string => String(adler32(s));

function round(a: unknown, p: GoInt, ...rOpt: unknown[]): number {
  const roundOn = rOpt.length > 0 ? toFloat64(rOpt[0]) : 0.5;
  const val = toFloat64(a);
  const pow = 10 ** p.v;
  const digit = pow * val;
  const div = digit - Math.trunc(digit);
  const r = div >= roundOn ? Math.ceil(digit) : Math.floor(digit);
  return r / pow;
}

export const STRING_FUNCS: Record<string, GoFunc> = {
  hello: fn([], () => 'Hello!'),
  trunc: fn(['int', 'string'], (c: GoInt, s: string) => {
    const n = byteLen(s);
    if (c.v < 0 && n + c.v > 0) return byteSlice(s, n + c.v);
    if (c.v >= 0 && n > c.v) return byteSlice(s, 0, c.v);
    return s;
  }),
  trim: fn(['string'], (s: string) => s.replace(/^[\s\u0085\u00a0]+|[\s\u0085\u00a0]+$/gu, '')),
  upper: fn(['string'], (s: string) => s.toUpperCase()),
  lower: fn(['string'], (s: string) => s.toLowerCase()),
  title: fn(['string'], title),
  substr: fn(['int', 'int', 'string'], (start: GoInt, end: GoInt, s: string) => {
    if (start.v < 0) return byteSlice(s, 0, end.v);
    if (end.v < 0 || end.v > byteLen(s)) return byteSlice(s, start.v);
    if (start.v > end.v) throw new FuncError(`slice bounds out of range [${start.v}:${end.v}]`);
    return byteSlice(s, start.v, end.v);
  }),
  repeat: fn(['int', 'string'], (count: GoInt, s: string) => {
    if (count.v < 0) throw new FuncError('strings: negative Repeat count');
    return s.repeat(count.v);
  }),
  trimall: fn(['string', 'string'], (a: string, b: string) => trimCutset(b, a)),
  trimAll: fn(['string', 'string'], (a: string, b: string) => trimCutset(b, a)),
  trimSuffix: fn(['string', 'string'], (a: string, b: string) => (a !== '' && b.endsWith(a) ? b.slice(0, b.length - a.length) : b)),
  trimPrefix: fn(['string', 'string'], (a: string, b: string) => (b.startsWith(a) ? b.slice(a.length) : b)),
  contains: fn(['string', 'string'], (sub: string, s: string) => s.includes(sub)),
  hasPrefix: fn(['string', 'string'], (sub: string, s: string) => s.startsWith(sub)),
  hasSuffix: fn(['string', 'string'], (sub: string, s: string) => s.endsWith(sub)),
  quote: fn([], (...xs: unknown[]) => xs.filter((x) => x !== null && x !== undefined).map((x) => quoteGo(strval(x))).join(' '), 'any'),
  squote: fn([], (...xs: unknown[]) => xs.filter((x) => x !== null && x !== undefined).map((x) => `'${strval(x)}'`).join(' '), 'any'),
  cat: fn([], (...xs: unknown[]) => xs.filter((x) => x !== null && x !== undefined).map(strval).join(' '), 'any'),
  indent: fn(['int', 'string'], (n: GoInt, v: string) => ' '.repeat(Math.max(0, n.v)) + v.replace(/\n/g, `\n${' '.repeat(Math.max(0, n.v))}`)),
  nindent: fn(['int', 'string'], (n: GoInt, v: string) => `\n${' '.repeat(Math.max(0, n.v))}${v.replace(/\n/g, `\n${' '.repeat(Math.max(0, n.v))}`)}`),
  replace: fn(['string', 'string', 'string'], (old: string, nu: string, src: string) => (old === '' ? goReplaceEmpty(src, nu) : src.split(old).join(nu))),
  plural: fn(['string', 'string', 'int'], (one: string, many: string, count: GoInt) => (count.v === 1 ? one : many)),
  sha1sum: fn(['string'], (s: string) => createHash('sha1').update(s, 'utf8').digest('hex')),
  sha256sum: fn(['string'], (s: string) => createHash('sha256').update(s, 'utf8').digest('hex')),
  adler32sum: fn(['string'], (s: string) => adler32String(s)),
  toString: fn(['any'], strval),
  atoi: fn(['string'], (s: string) => int(/^[+-]?\d+$/.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) : 0)),
  int64: fn(['any'], (v: unknown) => int64(toInt64(v))),
  int: fn(['any'], (v: unknown) => int(toInt64(v))),
  float64: fn(['any'], toFloat64),
  seq: fn([], (...p: unknown[]) => seq(p.map(iv)), 'int'),
  toDecimal: fn(['any'], (v: unknown) => {
    const s = strval(v);
    return int64(/^[+-]?[0-7]+$/.test(s) ? parseInt(s, 8) : 0);
  }),
  split: fn(['string', 'string'], (sep: string, orig: string) => Object.fromEntries(goSplit(orig, sep).map((p, i) => [`_${i}`, p]))),
  splitList: fn(['string', 'string'], (sep: string, orig: string) => strs(goSplit(orig, sep))),
  splitn: fn(['string', 'int', 'string'], (sep: string, n: GoInt, orig: string) => Object.fromEntries(goSplit(orig, sep, n.v).map((p, i) => [`_${i}`, p]))),
  toStrings: fn(['any'], (v: unknown) => strs(strslice(v))),
  until: fn(['int'], (count: GoInt) => ints(untilStep(0, count.v, count.v < 0 ? -1 : 1))),
  untilStep: fn(['int', 'int', 'int'], (a: GoInt, b: GoInt, c: GoInt) => ints(untilStep(a.v, b.v, c.v))),
  add1: fn(['any'], (v: unknown) => int64(toInt64(v) + 1)),
  add: fn([], (...xs: unknown[]) => int64(xs.reduce<number>((s, x) => s + toInt64(x), 0)), 'any'),
  sub: fn(['any', 'any'], (a: unknown, b: unknown) => int64(toInt64(a) - toInt64(b))),
  div: fn(['any', 'any'], (a: unknown, b: unknown) => {
    if (toInt64(b) === 0) throw new FuncError('runtime error: integer divide by zero');
    return int64(Math.trunc(toInt64(a) / toInt64(b)));
  }),
  mod: fn(['any', 'any'], (a: unknown, b: unknown) => {
    if (toInt64(b) === 0) throw new FuncError('runtime error: integer divide by zero');
    return int64(toInt64(a) % toInt64(b));
  }),
  mul: fn(['any'], (a: unknown, ...xs: unknown[]) => int64(xs.reduce<number>((s, x) => s * toInt64(x), toInt64(a))), 'any'),
  biggest: fn(['any'], (a: unknown, ...xs: unknown[]) => int64(Math.max(toInt64(a), ...xs.map(toInt64))), 'any'),
  max: fn(['any'], (a: unknown, ...xs: unknown[]) => int64(Math.max(toInt64(a), ...xs.map(toInt64))), 'any'),
  min: fn(['any'], (a: unknown, ...xs: unknown[]) => int64(Math.min(toInt64(a), ...xs.map(toInt64))), 'any'),
  maxf: fn(['any'], (a: unknown, ...xs: unknown[]) => Math.max(toFloat64(a), ...xs.map(toFloat64)), 'any'),
  minf: fn(['any'], (a: unknown, ...xs: unknown[]) => Math.min(toFloat64(a), ...xs.map(toFloat64)), 'any'),
  ceil: fn(['any'], (a: unknown) => Math.ceil(toFloat64(a))),
  floor: fn(['any'], (a: unknown) => Math.floor(toFloat64(a))),
  round: fn(['any', 'int'], round, 'float64'),
  join: fn(['string', 'any'], (sep: string, v: unknown) => strslice(v).join(sep)),
  sortAlpha: fn(['any'], (v: unknown) => strs(strslice(v).sort())),
  base: fn(['string'], (p: string) => path.posix.basename(p) || (p === '' ? '.' : '/')),
  dir: fn(['string'], (p: string) => path.posix.dirname(p)),
  clean: fn(['string'], (p: string) => (p === '' ? '.' : path.posix.normalize(p).replace(/(.)\/$/, '$1'))),
  ext: fn(['string'], (p: string) => path.posix.extname(p)),
  isAbs: fn(['string'], (p: string) => p.startsWith('/')),
  b64enc: fn(['string'], (s: string) => Buffer.from(s, 'utf8').toString('base64')),
  b64dec: fn(['string'], (s: string) => (/^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0 ? Buffer.from(s, 'base64').toString('utf8') : 'illegal base64 data at input byte 0')),
};

/** Go's strings.Split (n < 0: all) and SplitN. */
function goSplit(s: string, sep: string, n = -1): string[] {
  if (n === 0) return [];
  if (sep === '') {
    const chars = [...s];
    if (n > 0 && chars.length > n) return [...chars.slice(0, n - 1), chars.slice(n - 1).join('')];
    return chars;
  }
  const parts = s.split(sep);
  if (n > 0 && parts.length > n) return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
  return parts;
}

/** strings.Replace with an empty old string inserts `nu` around every rune. */
function goReplaceEmpty(s: string, nu: string): string {
  return nu + [...s].join(nu) + (s.length > 0 ? nu : '');
}

function untilStep(start: number, stop: number, step: number): number[] {
  const out: number[] = [];
  if (step === 0) return out;
  if (stop < start) {
    if (step >= 0) return out;
    for (let i = start; i > stop; i += step) out.push(i);
    return out;
  }
  if (step <= 0) return out;
  for (let i = start; i < stop; i += step) out.push(i);
  return out;
}

/** sprig's seq: like GNU seq, space-separated. */
function seq(p: number[]): string {
  let [start, step, end] = [1, 1, 0];
  if (p.length === 0) return '';
  if (p.length === 1) end = p[0]!;
  else if (p.length === 2) {
    [start, end] = [p[0]!, p[1]!];
    step = end < start ? -1 : 1;
  } else if (p.length === 3) [start, step, end] = [p[0]!, p[1]!, p[2]!];
  else return '';
  if (end < start && step > 0) return '';
  if (end > start && step < 0) return '';
  const out: number[] = [];
  if (step === 0) return '';
  const last = end + (step > 0 ? 1 : -1);
  for (let i = start; step > 0 ? i < last : i > last; i += step) out.push(i);
  return out.join(' ');
}

