// sigs.k8s.io/yaml's JSONToYAML and Marshal (go.yaml.in/yaml/v2's encoder and emitter) for JSON-shaped values: the
// YAML text flux-operator templates for `resources[i]`, and what its `toYaml` prints. Keys in yaml.v2's natural
// order, scalars plain unless they would read back as another type (then double-quoted) or hold YAML indicators
// (then single-quoted), multi-line strings as literal blocks, long lines folded at 80 columns, 2-space indents and
// sequences compact under their key. What the template sees must be this text: `"<< inputs.n >>"` written quoted
// in the ResourceSet is emitted plain, so the value renders as a number.
import { formatFloatG, GoInt } from '../gotemplate/values.js';

const WIDTH = 80;

/** YAML text for a JSON value, as yaml.Marshal(jsonObj) prints it after JSONToYAML. */
export function goYaml(v: unknown): string {
  const e = new Emitter();
  e.node(v, -1, 'root');
  return e.out.endsWith('\n') ? e.out : `${e.out}\n`;
}

type Ctx = 'root' | 'mapValue' | 'seqItem';

class Emitter {
  out = '';
  private column = 0;

  private write(s: string): void {
    for (const ch of s) {
      if (ch === '\n') {
        this.out += '\n';
        this.column = 0;
      } else {
        this.out += ch;
        this.column++;
      }
    }
  }
  private newline(indent: number): void {
    // After a block scalar's last line break the emitter is at the start of a line already (yaml_emitter_write_indent).
    if (!(this.column === 0 && this.out.endsWith('\n'))) this.write('\n');
    this.write(' '.repeat(indent));
  }

  /** A node at `indent` (the indent of the collection holding it; -1 at the root). */
  node(v: unknown, indent: number, ctx: Ctx): void {
    if (Array.isArray(v)) return this.sequence(v, indent, ctx);
    if (v !== null && typeof v === 'object' && !(v instanceof GoInt)) return this.mapping(v as Record<string, unknown>, indent, ctx);
    this.scalar(v, indent < 0 ? 2 : indent + 2, ctx === 'root' ? 'root' : 'value');
  }

  private mapping(m: Record<string, unknown>, indent: number, ctx: Ctx): void {
    const keys = Object.keys(m).sort(naturalLess);
    if (keys.length === 0) {
      this.write(ctx === 'root' ? '{}' : ' {}');
      return;
    }
    const inner = indent < 0 ? 0 : indent + 2;
    keys.forEach((k, i) => {
      if (ctx === 'mapValue' || (ctx === 'root' && i > 0) || (ctx === 'seqItem' && i > 0)) this.newline(inner);
      if (ctx === 'seqItem' && i === 0) {
        /* the key follows "- " on the same line */
      }
      if (k.length > 128) throw new Error(`a mapping key longer than 128 characters is not supported (${k.slice(0, 20)}...)`);
      this.scalar(k, inner, 'key');
      this.write(':');
      const v = m[k];
      if (Array.isArray(v) && v.length > 0) this.sequence(v, inner, 'mapValue', true);
      else if (v !== null && typeof v === 'object' && !(v instanceof GoInt) && !Array.isArray(v)) this.mapping(v as Record<string, unknown>, inner, 'mapValue');
      else if (Array.isArray(v)) this.write(' []');
      else {
        this.write(' ');
        this.scalar(v, inner + 2, 'value');
      }
    });
  }

  /** `indentless`: a sequence under a mapping key puts its dashes at the key's indent. */
  private sequence(items: unknown[], indent: number, ctx: Ctx, indentless = false): void {
    if (items.length === 0) {
      this.write(ctx === 'root' ? '[]' : ' []');
      return;
    }
    const at = indent < 0 ? 0 : indentless ? indent : indent + 2;
    items.forEach((item, i) => {
      if (ctx === 'mapValue' || i > 0) this.newline(at);
      this.write('- ');
      if (Array.isArray(item) && item.length > 0) this.sequence(item, at, 'seqItem');
      else if (item !== null && typeof item === 'object' && !(item instanceof GoInt) && !Array.isArray(item) && Object.keys(item).length > 0) {
        this.mapping(item as Record<string, unknown>, at, 'seqItem');
      } else if (Array.isArray(item)) this.write('[]');
      else if (item !== null && typeof item === 'object' && !(item instanceof GoInt)) this.write('{}');
      else this.scalar(item, at + 2, 'value');
    });
  }

  /** A scalar; `indent` is where folded and block lines continue. */
  private scalar(v: unknown, indent: number, ctx: 'root' | 'value' | 'key'): void {
    if (v === null || v === undefined) return this.write('null');
    if (typeof v === 'boolean') return this.write(String(v));
    if (v instanceof GoInt) return this.write(String(v.v));
    if (typeof v === 'number') return this.write(yamlNumber(v));
    const s = String(v);
    const a = analyze(s);
    const canPlain = resolvesToString(s) && !isBase60Float(s);
    let style: 'plain' | 'single' | 'double' | 'literal' = s.includes('\n') ? 'literal' : canPlain ? 'plain' : 'double';
    const simpleKey = ctx === 'key';
    if (simpleKey && a.multiline) style = 'double';
    if (style === 'plain') {
      if (!a.blockPlainAllowed || (s.length === 0 && simpleKey)) style = 'single';
    }
    if (style === 'single' && !a.singleQuotedAllowed) style = 'double';
    if (style === 'literal' && (!a.blockAllowed || simpleKey)) style = 'double';
    const breaks = !simpleKey;
    switch (style) {
      case 'plain':
        return this.plain(s, indent, breaks);
      case 'single':
        return this.single(s, indent, breaks);
      case 'double':
        return this.double(s, indent, breaks);
      case 'literal':
        return this.literal(s, indent);
    }
  }

  private plain(s: string, indent: number, breaks: boolean): void {
    const chars = [...s];
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === ' ') {
        if (breaks && !spaces && this.column > WIDTH && chars[i + 1] !== ' ') this.newline(indent);
        else this.write(c);
        spaces = true;
      } else {
        this.write(c);
        spaces = false;
      }
    }
  }

  private single(s: string, indent: number, breaks: boolean): void {
    this.write("'");
    const chars = [...s];
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === ' ') {
        if (breaks && !spaces && this.column > WIDTH && i > 0 && i < chars.length - 1 && chars[i + 1] !== ' ') this.newline(indent);
        else this.write(c);
        spaces = true;
      } else {
        if (c === "'") this.write("'");
        this.write(c);
        spaces = false;
      }
    }
    this.write("'");
  }

  private double(s: string, indent: number, breaks: boolean): void {
    this.write('"');
    const chars = [...s];
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      const cp = c.codePointAt(0)!;
      if (!isPrintable(cp) || cp === 0xfeff || isBreak(c) || c === '"' || c === '\\') {
        this.write(`\\${escapeFor(cp)}`);
        spaces = false;
      } else if (c === ' ') {
        if (breaks && !spaces && this.column > WIDTH && i > 0 && i < chars.length - 1) {
          this.newline(indent);
          if (chars[i + 1] === ' ') this.write('\\');
        } else this.write(c);
        spaces = true;
      } else {
        this.write(c);
        spaces = false;
      }
    }
    this.write('"');
  }

  private literal(s: string, indent: number): void {
    this.write('|');
    if (s.startsWith(' ') || isBreak(s[0]!)) this.write('2');
    const last = s[s.length - 1]!;
    if (!isBreak(last)) this.write('-');
    else if (s.length === 1 || isBreak(s[s.length - 2]!)) this.write('+');
    let breaks = true;
    this.write('\n');
    for (const c of s) {
      if (isBreak(c)) {
        this.write('\n');
        breaks = true;
      } else {
        if (breaks) this.write(' '.repeat(indent));
        this.write(c);
        breaks = false;
      }
    }
  }
}

const isBreak = (c: string) => c === '\n' || c === '\r' || c === '\u0085' || c === '\u2028' || c === '\u2029';
const isSpaceCh = (c: string) => c === ' ';
const isBlank = (c: string | undefined) => c === ' ' || c === '\t';

/** yaml.v2's is_printable: what may appear unescaped (not tabs, not characters beyond the BMP). */
function isPrintable(cp: number): boolean {
  return cp === 0x0a || (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff);
}

function escapeFor(cp: number): string {
  const simple: Record<number, string> = { 0: '0', 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r', 27: 'e', 0x22: '"', 0x5c: '\\', 0x85: 'N', 0xa0: '_', 0x2028: 'L', 0x2029: 'P' };
  if (simple[cp] !== undefined) return simple[cp]!;
  if (cp <= 0xff) return `x${cp.toString(16).toUpperCase().padStart(2, '0')}`;
  if (cp <= 0xffff) return `u${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return `U${cp.toString(16).toUpperCase().padStart(8, '0')}`;
}

interface Analysis {
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

/** yaml_emitter_analyze_scalar, for the block context (flow style never occurs here). */
function analyze(s: string): Analysis {
  if (s.length === 0) return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  let blockIndicators = s.startsWith('---') || s.startsWith('...');
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWhitespace = true;
  let previousSpace = false;
  let previousBreak = false;
  const chars = [...s];
  chars.forEach((c, i) => {
    const followedByWhitespace = i + 1 >= chars.length || isBlank(chars[i + 1]) || isBreak(chars[i + 1]!);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) blockIndicators = true;
      else if ((c === '?' || c === ':') && followedByWhitespace) blockIndicators = true;
      else if (c === '-' && followedByWhitespace) blockIndicators = true;
    } else if (c === ':' && followedByWhitespace) blockIndicators = true;
    else if (c === '#' && precededByWhitespace) blockIndicators = true;
    const cp = c.codePointAt(0)!;
    if (!isPrintable(cp)) special = true;
    if (isSpaceCh(c)) {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlank(c) || isBreak(c);
  });
  let blockPlainAllowed = true;
  let singleQuotedAllowed = true;
  let blockAllowed = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlainAllowed = false;
  if (trailingSpace) blockAllowed = false;
  if (breakSpace) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
  }
  if (spaceBreak || special) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
    blockAllowed = false;
  }
  if (lineBreaks) blockPlainAllowed = false;
  if (blockIndicators) blockPlainAllowed = false;
  return { multiline: lineBreaks, blockPlainAllowed, singleQuotedAllowed, blockAllowed };
}

const RESOLVE_MAP = new Set([
  'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE',
  'off', 'Off', 'OFF', '', '~', 'null', 'Null', 'NULL', '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF',
  '-.inf', '-.Inf', '-.INF',
]);

/** yaml.v2's resolve(): whether a plain scalar of this text reads back as a string. */
export function resolvesToString(s: string): boolean {
  if (RESOLVE_MAP.has(s)) return false;
  const c = s[0]!;
  if (c === '.') return !isGoFloat(s);
  if (c === '+' || c === '-' || (c >= '0' && c <= '9')) {
    if (isTimestamp(s)) return false;
    const plain = s.replace(/_/g, '');
    if (isGoIntBase0(plain)) return false;
    if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(plain)) return false;
    if (/^0b[01]+$/.test(plain) || /^-0b[01]+$/.test(plain)) return false;
  }
  return true;
}

/** strconv.ParseInt/ParseUint(s, 0, 64): 0x, 0o, 0b prefixes, a leading 0 for octal, an optional sign. */
function isGoIntBase0(s: string): boolean {
  const m = /^[+-]?(.*)$/.exec(s)!;
  const body = m[1]!;
  if (/^0[xX][0-9a-fA-F]+$/.test(body) || /^0[oO][0-7]+$/.test(body) || /^0[bB][01]+$/.test(body)) return true;
  if (/^0[0-7]*$/.test(body)) return true;
  return /^[1-9][0-9]*$/.test(body) && BigInt(body) < 2n ** 64n;
}

/** strconv.ParseFloat for a text starting with '.'. */
const isGoFloat = (s: string) => /^\.[0-9](_?[0-9])*([eE][-+]?[0-9]+)?$/.test(s);

/** yaml.v2's parseTimestamp: four digits, '-', then one of its layouts. */
function isTimestamp(s: string): boolean {
  if (!/^\d{4}-/.test(s)) return false;
  return (
    /^\d{4}-\d{1,2}-\d{1,2}$/.test(s) ||
    /^\d{4}-\d{1,2}-\d{1,2}[Tt]\d{1,2}:\d{1,2}:\d{1,2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) ||
    /^\d{4}-\d{1,2}-\d{1,2} \d{1,2}:\d{1,2}:\d{1,2}(\.\d+)?$/.test(s)
  );
}

const isBase60Float = (s: string) => /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/.test(s);

/**
 * A number as it comes out of json.Marshal then yaml.v2: an integral value reads back as an int (printed whole), any
 * other as a float64 (strconv's shortest 'g').
 */
function yamlNumber(f: number): string {
  if (Number.isInteger(f) && Math.abs(f) < 1e21) return String(f);
  return formatFloatG(f);
}

/** yaml.v2's key order: numbers by value, then strings with digit runs compared as numbers. */
export function naturalLess(a: string, b: string): number {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = /\p{L}/u.test(ar[i]!);
    const bl = /\p{L}/u.test(br[i]!);
    if (al && bl) return ar[i]! < br[i]! ? -1 : 1;
    if (al || bl) return bl ? -1 : 1;
    let an = 0;
    let bn = 0;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && /\d/.test(ar[j]!); j--) {
        if (ar[j] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && /\d/.test(ar[ai]!); ai++) an = an * 10 + Number(ar[ai]);
    for (; bi < br.length && /\d/.test(br[bi]!); bi++) bn = bn * 10 + Number(br[bi]);
    if (an !== bn) return an < bn ? -1 : 1;
    if (ai !== bi) return ai < bi ? -1 : 1;
    return ar[i]! < br[i]! ? -1 : 1;
  }
  return ar.length - br.length;
}
