// Go's fmt.Sprintf, Sprint and Sprintln over the engine's values: the verbs templates use (%v %s %d %q %f %e %g %x
// %X %o %b %t %c %T %%), flags, width and precision, and fmt's wording for a verb that does not fit
// (`%!d(string=abc)`), a missing argument (`%!s(MISSING)`) and extra ones (`%!(EXTRA string=x)`).
import { quoteGo } from './unquote.js';
import { formatFloatG, formatValue, GoInt, isMap, typeName } from './values.js';

interface Spec {
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width: number | null;
  prec: number | null;
}

export function sprintf(format: string, args: unknown[]): string {
  let out = '';
  let argi = 0;
  let i = 0;
  while (i < format.length) {
    const c = format[i]!;
    if (c !== '%') {
      out += c;
      i++;
      continue;
    }
    i++;
    const spec: Spec = { minus: false, plus: false, sharp: false, space: false, zero: false, width: null, prec: null };
    for (; i < format.length; i++) {
      const f = format[i];
      if (f === '-') spec.minus = true;
      else if (f === '+') spec.plus = true;
      else if (f === '#') spec.sharp = true;
      else if (f === ' ') spec.space = true;
      else if (f === '0') spec.zero = true;
      else break;
    }
    const num = (): number | null => {
      if (format[i] === '*') {
        i++;
        const a = args[argi++];
        return a instanceof GoInt ? a.v : null;
      }
      const m = /^\d+/.exec(format.slice(i));
      if (!m) return null;
      i += m[0].length;
      return Number(m[0]);
    };
    spec.width = num();
    if (format[i] === '.') {
      i++;
      spec.prec = num() ?? 0;
    }
    const verb = format[i];
    if (verb === undefined) {
      out += '%!(NOVERB)';
      break;
    }
    i++;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (argi >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    out += formatOne(verb, spec, args[argi++]);
  }
  if (argi < args.length) {
    out += `%!(EXTRA ${args.slice(argi).map((a) => `${typeName(a)}=${formatValue(a, false)}`).join(', ')})`;
  }
  return out;
}

function pad(s: string, spec: Spec, numeric = false): string {
  if (spec.width === null || s.length >= spec.width) return s;
  if (spec.minus) return s + ' '.repeat(spec.width - s.length);
  if (spec.zero && numeric) {
    const sign = /^[+-]/.test(s) ? s[0]! : '';
    return sign + '0'.repeat(spec.width - s.length) + s.slice(sign.length);
  }
  return ' '.repeat(spec.width - s.length) + s;
}

const bad = (verb: string, v: unknown) => `%!${verb}(${typeName(v)}=${formatValue(v, false)})`;

function formatOne(verb: string, spec: Spec, v: unknown): string {
  if (verb === 'T') return pad(typeName(v), spec);
  if (v === undefined || v === null) {
    if (verb === 'v' || verb === 's') return pad('<nil>', spec);
    return `%!${verb}(<nil>)`;
  }
  if (Array.isArray(v) && verb !== 'v' && verb !== 'T') {
    return `[${v.map((x) => formatOne(verb, { ...spec, width: null }, x)).join(' ')}]`;
  }
  if (isMap(v) && verb !== 'v') {
    return `map[${Object.keys(v).sort().map((k) => `${formatOne(verb, spec, k)}:${formatOne(verb, spec, v[k])}`).join(' ')}]`;
  }
  switch (verb) {
    case 'v':
      if (typeof v === 'number') return pad(withSign(formatFloatG(v), spec), spec, true);
      if (v instanceof GoInt) return pad(withSign(String(v.v), spec), spec, true);
      if (typeof v === 'string' && spec.sharp) return pad(quoteGo(v), spec);
      return pad(formatValue(v, false), spec);
    case 's':
      if (typeof v === 'string') return pad(spec.prec !== null ? [...v].slice(0, spec.prec).join('') : v, spec);
      if (typeof v === 'number' || v instanceof GoInt || typeof v === 'boolean') return bad(verb, v);
      return pad(formatValue(v, false), spec);
    case 'q':
      if (typeof v === 'string') return pad(quoteGo(v), spec);
      if (v instanceof GoInt) return pad(`'${String.fromCodePoint(v.v)}'`, spec);
      return bad(verb, v);
    case 't':
      return typeof v === 'boolean' ? pad(String(v), spec) : bad(verb, v);
    case 'd':
      if (v instanceof GoInt) return pad(withSign(String(v.v), spec), spec, true);
      return bad(verb, v);
    case 'c':
      return v instanceof GoInt ? pad(String.fromCodePoint(v.v), spec) : bad(verb, v);
    case 'x':
    case 'X':
    case 'o':
    case 'b': {
      const base = verb === 'o' ? 8 : verb === 'b' ? 2 : 16;
      if (v instanceof GoInt) {
        let s = Math.abs(v.v).toString(base);
        if (verb === 'X') s = s.toUpperCase();
        if (spec.sharp) s = (base === 16 ? (verb === 'X' ? '0X' : '0x') : base === 8 ? '0' : '') + s;
        return pad(withSign((v.v < 0 ? '-' : '') + s, spec), spec, true);
      }
      if (typeof v === 'string' && base === 16) {
        const hex = Buffer.from(v, 'utf8').toString('hex');
        return pad(verb === 'X' ? hex.toUpperCase() : hex, spec);
      }
      return bad(verb, v);
    }
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G': {
      if (typeof v !== 'number') return bad(verb, v);
      return pad(withSign(formatFloat(v, verb, spec.prec), spec), spec, true);
    }
    default:
      return `%!${verb}(${typeName(v)}=${formatValue(v, false)})`;
  }
}

const withSign = (s: string, spec: Spec) => (s.startsWith('-') ? s : spec.plus ? `+${s}` : spec.space ? ` ${s}` : s);

function formatFloat(f: number, verb: string, prec: number | null): string {
  if (!Number.isFinite(f)) return Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf';
  switch (verb) {
    case 'f':
    case 'F':
      return f.toFixed(prec ?? 6);
    case 'e':
    case 'E': {
      const s = f.toExponential(prec ?? 6).replace(/e([+-])(\d)$/, 'e$10$2');
      return verb === 'E' ? s.toUpperCase() : s;
    }
    default: {
      if (prec === null) return verb === 'G' ? formatFloatG(f).toUpperCase() : formatFloatG(f);
      const p = prec === 0 ? 1 : prec;
      const exp = f === 0 ? 0 : Math.floor(Math.log10(Math.abs(Number(f.toPrecision(p)))));
      let s: string;
      if (exp < -4 || exp >= p) s = Number(f.toPrecision(p)).toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
      else s = String(Number(f.toPrecision(p)));
      return verb === 'G' ? s.toUpperCase() : s;
    }
  }
}

/** fmt.Sprint: operands' %v, with a space between two operands when neither is a string. */
export function sprint(args: unknown[]): string {
  let out = '';
  args.forEach((a, i) => {
    if (i > 0 && typeof a !== 'string' && typeof args[i - 1] !== 'string') out += ' ';
    out += formatValue(a, false);
  });
  return out;
}

/** fmt.Sprintln: operands' %v separated by spaces, then a newline. */
export const sprintln = (args: unknown[]): string => `${args.map((a) => formatValue(a, false)).join(' ')}\n`;
