// slim-sprig's conversions (github.com/go-task/slim-sprig/v3 v3.0.0, strings.go, numeric.go, defaults.go): how a
// value becomes a string, an int64 or a float64, what counts as empty, and Go's encoding/json for toJson.
import { formatValue, GoInt, isMap, TypedSlice } from './values.js';

/** sprig's strval: a string as is, anything else as %v. */
export const strval = (v: unknown): string => (typeof v === 'string' ? v : formatValue(v, false));

/** sprig's strslice: a list's elements as strings (nil elements dropped), nil as [], anything else as [strval]. */
export function strslice(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (v instanceof TypedSlice && v.elem === 'string') return [...(v as unknown as string[])];
  if (Array.isArray(v)) return v.filter((x) => x !== null && x !== undefined).map(strval);
  return [strval(v)];
}

/** sprig's toInt64: ints, truncated floats, decimal strings (else 0), bools as 0/1, anything else 0. */
export function toInt64(v: unknown): number {
  if (typeof v === 'string') {
    if (!/^[+-]?\d+$/.test(v)) return 0;
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : 0;
  }
  if (v instanceof GoInt) return v.v;
  if (typeof v === 'number') return Math.trunc(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return 0;
}

/** sprig's toFloat64: numbers, strings parsed as floats (else 0), bools as 0/1, anything else 0. */
export function toFloat64(v: unknown): number {
  if (typeof v === 'string') {
    const t = v.trim() === v ? v : '';
    const n = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) || /^[+-]?(inf|infinity|nan)$/i.test(t) ? Number(t.replace(/inf(inity)?/i, 'Infinity')) : NaN;
    return Number.isNaN(n) && !/nan/i.test(t) ? 0 : n;
  }
  if (v instanceof GoInt) return v.v;
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return 0;
}

/** sprig's empty: nil, zero numbers, false, and empty strings, lists and maps. */
export function empty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v === 'string') return v.length === 0;
  if (typeof v === 'boolean') return !v;
  if (typeof v === 'number') return v === 0;
  if (v instanceof GoInt) return v.v === 0;
  if (Array.isArray(v)) return v.length === 0;
  return Object.keys(v as object).length === 0;
}

/** Go's encoding/json Marshal of a value (maps with sorted keys; <, > and & escaped unless `raw`). */
export function goJson(v: unknown, o: { indent?: string; raw?: boolean } = {}): string {
  const esc = (s: string) => {
    let j = JSON.stringify(s).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
    if (!o.raw) j = j.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
    return j;
  };
  const enc = (x: unknown, ind: string): string => {
    if (x === undefined || x === null) return 'null';
    if (typeof x === 'string') return esc(x);
    if (typeof x === 'boolean') return String(x);
    if (x instanceof GoInt) return String(x.v);
    if (typeof x === 'number') return jsonFloat(x);
    const next = o.indent ? ind + o.indent : '';
    const nl = o.indent ? `\n${next}` : '';
    const close = o.indent ? `\n${ind}` : '';
    const sep = o.indent ? ': ' : ':';
    if (Array.isArray(x)) return x.length === 0 ? '[]' : `[${nl}${x.map((e) => enc(e, next)).join(`,${nl}`)}${close}]`;
    if (isMap(x)) {
      const keys = Object.keys(x).sort();
      return keys.length === 0 ? '{}' : `{${nl}${keys.map((k) => `${esc(k)}${sep}${enc(x[k], next)}`).join(`,${nl}`)}${close}}`;
    }
    return 'null';
  };
  return enc(v, '');
}

/** encoding/json's float64: shortest digits, exponent form below 1e-6 and from 1e21. */
function jsonFloat(f: number): string {
  const abs = Math.abs(f);
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) {
    return f.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  }
  return String(f);
}
