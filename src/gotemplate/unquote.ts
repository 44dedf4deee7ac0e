// Go's strconv.Unquote for double-quoted literals, and strconv.Quote (sprig's `quote` uses %q, which is Quote).

const SIMPLE: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', '"': '"', "'": "'" };

/** The string a Go "..." literal denotes, or null when the literal is malformed. */
export function unquoteGo(lit: string): string | null {
  if (lit.length < 2 || lit[0] !== '"' || lit[lit.length - 1] !== '"') return null;
  const body = lit.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '"' || c === '\n') return null;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    if (e === undefined) return null;
    if (e in SIMPLE && e !== "'") {
      out += SIMPLE[e];
      continue;
    }
    const hex = (n: number) => {
      const h = body.slice(i + 1, i + 1 + n);
      if (h.length !== n || !/^[0-9a-fA-F]+$/.test(h)) return null;
      i += n;
      return parseInt(h, 16);
    };
    if (e === 'x') {
      const v = hex(2);
      if (v === null) return null;
      out += String.fromCharCode(v);
    } else if (e === 'u' || e === 'U') {
      const v = hex(e === 'u' ? 4 : 8);
      if (v === null || v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) return null;
      out += String.fromCodePoint(v);
    } else if (e >= '0' && e <= '7') {
      const o = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(o) || parseInt(o, 8) > 255) return null;
      out += String.fromCharCode(parseInt(o, 8));
      i += 2;
    } else {
      return null;
    }
  }
  return out;
}

/** strconv.Quote: a double-quoted Go literal, printable Unicode kept as is. */
export function quoteGo(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\x07') out += '\\a';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\v') out += '\\v';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp === 0xfffd && ch !== '\ufffd') out += '\\ufffd';
    else if (/[\p{L}\p{M}\p{N}\p{P}\p{S}\u0020]/u.test(ch)) out += ch;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}
