// The lexer of Go's text/template (text/template/parse/lex.go), with configurable delimiters: the same items, trim
// markers (`<<- ` and ` ->>`), comments, and error texts, so positions and messages match Go's.

export type ItemType =
  | 'error' | 'bool' | 'char' | 'charConstant' | 'comment' | 'assign' | 'declare' | 'eof' | 'field' | 'identifier'
  | 'leftDelim' | 'leftParen' | 'number' | 'pipe' | 'rawString' | 'rightDelim' | 'rightParen' | 'space' | 'string'
  | 'text' | 'variable'
  // keywords
  | 'block' | 'break' | 'continue' | 'dot' | 'define' | 'else' | 'end' | 'if' | 'range' | 'nil' | 'template' | 'with';

export interface Item {
  type: ItemType;
  /** Byte offset... here: the UTF-16 offset of the item in the input (the same for the ASCII templates in practice). */
  pos: number;
  val: string;
  line: number;
}

const KEYWORDS: Record<string, ItemType> = {
  '.': 'dot', block: 'block', break: 'break', continue: 'continue', define: 'define', else: 'else', end: 'end', if: 'if',
  range: 'range', nil: 'nil', template: 'template', with: 'with',
};

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isAlphaNumeric = (c: string | undefined) => c !== undefined && (c === '_' || /[\p{L}\p{Nd}]/u.test(c));
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** Tokenizes a template. Never throws: a lexing error is an 'error' item, as Go's lexer emits it. */
export function lex(input: string, leftDelim = '{{', rightDelim = '}}'): Item[] {
  const items: Item[] = [];
  let pos = 0;
  let start = 0;
  let parenDepth = 0;
  const lineAt = lineCounter(input);

  const emit = (type: ItemType) => {
    items.push({ type, pos: start, val: input.slice(start, pos), line: lineAt(start) });
    start = pos;
  };
  const ignore = () => {
    start = pos;
  };
  const next = (): string | undefined => (pos >= input.length ? undefined : input[pos++]);
  const backup = () => {
    pos--;
  };
  const peek = () => input[pos];
  const error = (msg: string): false => {
    items.push({ type: 'error', pos: start, val: msg, line: lineAt(start) });
    return false;
  };
  // A trim marker is any space, then '-', then the delimiter.
  const atRightTrim = (at: number) => isSpace(input[at]) && input[at + 1] === '-' && input.startsWith(rightDelim, at + 2);
  const atRightDelim = (): { delim: boolean; trim: boolean } => {
    if (atRightTrim(pos)) return { delim: true, trim: true };
    if (input.startsWith(rightDelim, pos)) return { delim: true, trim: false };
    return { delim: false, trim: false };
  };
  const atTerminator = () => {
    const c = peek();
    if (c === undefined || isSpace(c)) return true;
    if ('.,|:)('.includes(c)) return true;
    return input.startsWith(rightDelim, pos);
  };

  // Returns false when lexing stopped (EOF or error).
  const lexText = (): boolean => {
    const x = input.indexOf(leftDelim, pos);
    if (x < 0) {
      pos = input.length;
      if (pos > start) emit('text');
      items.push({ type: 'eof', pos, val: '', line: lineAt(pos) });
      return false;
    }
    const ldn = x;
    pos = x;
    let trimLen = 0;
    if (hasLeftTrimMarker(input.slice(x + leftDelim.length))) {
      trimLen = rightTrimLength(input.slice(start, x));
    }
    pos -= trimLen;
    if (pos > start) emit('text');
    pos += trimLen;
    ignore();
    pos = ldn;
    return lexLeftDelim();
  };

  const lexLeftDelim = (): boolean => {
    pos += leftDelim.length;
    const trim = hasLeftTrimMarker(input.slice(pos));
    const afterMarker = trim ? 2 : 0;
    if (input.startsWith('/*', pos + afterMarker)) {
      pos += afterMarker;
      ignore();
      return lexComment();
    }
    emit('leftDelim');
    pos += afterMarker;
    ignore();
    parenDepth = 0;
    return lexInsideAction();
  };

  const lexComment = (): boolean => {
    pos += 2;
    const x = input.indexOf('*/', pos);
    if (x < 0) return error('unclosed comment');
    pos = x + 2;
    const { delim, trim } = atRightDelim();
    if (!delim) return error('comment ends before closing delimiter');
    start = pos;
    pos += trim ? 2 + rightDelim.length : rightDelim.length;
    if (trim) pos += leftTrimLength(input.slice(pos));
    ignore();
    return true;
  };

  const lexRightDelim = (trim: boolean): boolean => {
    if (trim) {
      pos += 2; // the space and the minus
      ignore();
    }
    pos += rightDelim.length;
    emit('rightDelim');
    if (trim) {
      pos += leftTrimLength(input.slice(pos));
      ignore();
    }
    return true;
  };

  const lexInsideAction = (): boolean => {
    for (;;) {
      const { delim, trim } = atRightDelim();
      if (delim) {
        if (parenDepth === 0) return lexRightDelim(trim);
        return error('unclosed left paren');
      }
      const c = next();
      if (c === undefined) return error('unclosed action');
      if (isSpace(c)) {
        backup();
        lexSpaceRun();
        continue;
      }
      if (c === '=') emit('assign');
      else if (c === ':') {
        if (next() !== '=') return error('expected :=');
        emit('declare');
      } else if (c === '|') emit('pipe');
      else if (c === '"') {
        if (!lexQuote()) return false;
      } else if (c === '`') {
        if (!lexRawQuote()) return false;
      } else if (c === '$') {
        if (!lexFieldOrVariable('variable')) return false;
      } else if (c === "'") {
        if (!lexChar()) return false;
      } else if (c === '.') {
        if (pos < input.length && isDigit(input[pos])) {
          backup();
          if (!lexNumber()) return false;
        } else if (!lexFieldOrVariable('field')) return false;
      } else if (c === '+' || c === '-' || isDigit(c)) {
        backup();
        if (!lexNumber()) return false;
      } else if (isAlphaNumeric(c)) {
        backup();
        if (!lexIdentifier()) return false;
      } else if (c === '(') {
        emit('leftParen');
        parenDepth++;
      } else if (c === ')') {
        emit('rightParen');
        parenDepth--;
        if (parenDepth < 0) return error('unexpected right paren');
      } else if (c.charCodeAt(0) <= 0x7f && /[\x20-\x7e]/.test(c)) {
        emit('char');
      } else {
        return error(`unrecognized character in action: ${goRune(c)}`);
      }
    }
  };

  const lexSpaceRun = () => {
    let n = 0;
    while (isSpace(peek())) {
      next();
      n++;
    }
    // A space before a trim-marked closing delimiter belongs to the delimiter.
    if (atRightTrim(pos - 1)) {
      backup();
      if (n === 1) return;
    }
    emit('space');
  };

  const lexIdentifier = (): boolean => {
    while (isAlphaNumeric(peek())) next();
    const word = input.slice(start, pos);
    if (!atTerminator()) return error(`bad character ${goRune(peek() ?? '')}`);
    const kw = Object.prototype.hasOwnProperty.call(KEYWORDS, word) ? KEYWORDS[word] : undefined;
    if (kw && kw !== 'dot') emit(kw);
    else if (word === 'true' || word === 'false') emit('bool');
    else emit('identifier');
    return true;
  };

  const lexFieldOrVariable = (type: 'field' | 'variable'): boolean => {
    if (atTerminator()) {
      emit(type === 'variable' ? 'variable' : 'dot');
      return true;
    }
    while (isAlphaNumeric(peek())) next();
    if (!atTerminator()) return error(`bad character ${goRune(peek() ?? '')}`);
    emit(type);
    return true;
  };

  const lexChar = (): boolean => {
    for (;;) {
      const c = next();
      if (c === '\\') {
        const d = next();
        if (d !== undefined && d !== '\n') continue;
      }
      if (c === undefined || c === '\n') return error('unterminated character constant');
      if (c === "'") break;
    }
    emit('charConstant');
    return true;
  };

  const lexNumber = (): boolean => {
    const m = /^[+-]?(0[xX][0-9a-fA-F_]*(\.[0-9a-fA-F_]*)?([pP][+-]?[0-9_]+)?|0[oO][0-7_]*|0[bB][01_]*|[0-9_]*(\.[0-9_]*)?([eE][+-]?[0-9_]+)?)i?/.exec(input.slice(pos))!;
    pos += m[0].length;
    if (m[0] === '' || isAlphaNumeric(peek())) {
      next();
      return error(`bad number syntax: "${input.slice(start, pos)}"`);
    }
    emit('number');
    return true;
  };

  const lexQuote = (): boolean => {
    for (;;) {
      const c = next();
      if (c === '\\') {
        const d = next();
        if (d !== undefined && d !== '\n') continue;
        return error('unterminated quoted string');
      }
      if (c === undefined || c === '\n') return error('unterminated quoted string');
      if (c === '"') break;
    }
    emit('string');
    return true;
  };

  const lexRawQuote = (): boolean => {
    const x = input.indexOf('`', pos);
    if (x < 0) return error('unterminated raw quoted string');
    pos = x + 1;
    emit('rawString');
    return true;
  };

  while (lexText()) {
    /* each round lexes one text and one action */
  }
  return items;
}

/** pos -> 1-based line number. */
export function lineCounter(input: string): (pos: number) => number {
  const starts: number[] = [0];
  for (let i = 0; i < input.length; i++) if (input.charCodeAt(i) === 10) starts.push(i + 1);
  return (pos) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

const hasLeftTrimMarker = (s: string) => s.length >= 2 && s[0] === '-' && isSpace(s[1]);

/** How many trailing spaces `s` has (the text before a `<<-`). */
function rightTrimLength(s: string): number {
  let n = s.length;
  while (n > 0 && isSpace(s[n - 1])) n--;
  return s.length - n;
}

/** How many leading spaces `s` has (the text after a `->>`). */
function leftTrimLength(s: string): number {
  let n = 0;
  while (n < s.length && isSpace(s[n])) n++;
  return n;
}

/** Go's %#U of a rune: U+0040 '@'. */
export function goRune(c: string): string {
  const cp = c.codePointAt(0) ?? 0;
  const hex = cp.toString(16).toUpperCase().padStart(4, '0');
  return /\P{C}/u.test(c) ? `U+${hex} '${c}'` : `U+${hex}`;
}
