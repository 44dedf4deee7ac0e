// The parser of text/template (text/template/parse/parse.go): actions, pipelines, if/with/range with else chains,
// break/continue, variables and their scopes, and the parse-time check that every function exists. Errors carry
// Go's words and its `template: NAME:LINE: ` prefix. `define`, `block` and `template` are not supported (a
// ResourceSet is one template); they are a parse error that says so.
import { lex, type Item, type ItemType } from './lex.js';
import type { ArgNode, CommandNode, ListNode, Node, NumberNode, PipeNode } from './nodes.js';
import { nodeString } from './nodes.js';
import { unquoteGo } from './unquote.js';

export class TemplateParseError extends Error {}

export interface ParseOptions {
  name: string;
  leftDelim: string;
  rightDelim: string;
  /** Whether a function of this name exists (Go checks at parse time). */
  hasFunction: (name: string) => boolean;
}

export function parseTemplate(text: string, o: ParseOptions): ListNode {
  return new Parser(text, o).parse();
}

class Parser {
  private readonly items: Item[];
  private i = 0;
  /** The last token read, for the error's line. */
  private token: Item;
  private vars: string[] = ['$'];
  private rangeDepth = 0;

  constructor(
    text: string,
    private readonly o: ParseOptions,
  ) {
    this.items = lex(text, o.leftDelim, o.rightDelim);
    this.token = this.items[0]!;
  }

  parse(): ListNode {
    const list: ListNode = { type: 'list', pos: 0, nodes: [] };
    while (this.peek().type !== 'eof') {
      if (this.peek().type === 'leftDelim') {
        const mark = this.i;
        this.next();
        if (this.nextNonSpace().type === 'define') this.errorf('{{define}} is not supported by standup\'s template engine');
        this.i = mark;
      }
      const n = this.textOrAction();
      if (n.type === 'else' || n.type === 'end') this.errorf(`unexpected ${n.type === 'else' ? '{{else}}' : '{{end}}'}`);
      list.nodes.push(n as Node);
    }
    return list;
  }

  // --- tokens

  private next(): Item {
    const it = this.items[this.i] ?? this.items[this.items.length - 1]!;
    if (this.i < this.items.length) this.i++;
    this.token = it;
    if (it.type === 'error') this.fail(it.line, it.val);
    return it;
  }
  private backup(): void {
    this.i--;
  }
  private peek(): Item {
    const it = this.items[this.i] ?? this.items[this.items.length - 1]!;
    if (it.type === 'error') this.fail(it.line, it.val);
    return it;
  }
  private nextNonSpace(): Item {
    let t: Item;
    do t = this.next();
    while (t.type === 'space');
    return t;
  }
  private peekNonSpace(): Item {
    const t = this.nextNonSpace();
    this.backup();
    return t;
  }

  private fail(line: number, msg: string): never {
    throw new TemplateParseError(`template: ${this.o.name}:${line}: ${msg}`);
  }
  private errorf(msg: string): never {
    this.fail(this.token.line, msg);
  }
  private expect(type: ItemType, context: string): Item {
    const t = this.nextNonSpace();
    if (t.type !== type) this.unexpected(t, context);
    return t;
  }
  private unexpected(t: Item, context: string): never {
    if (t.type === 'error') this.errorf(t.val);
    this.errorf(`unexpected ${itemString(t)} in ${context}`);
  }

  // --- structure

  private itemList(): { list: ListNode; next: { type: 'else' | 'end'; item: Item } } {
    const list: ListNode = { type: 'list', pos: this.peekNonSpace().pos, nodes: [] };
    while (this.peekNonSpace().type !== 'eof') {
      const n = this.textOrAction();
      if (n.type === 'else' || n.type === 'end') return { list, next: n as { type: 'else' | 'end'; item: Item } };
      list.nodes.push(n as Node);
    }
    this.errorf('unexpected EOF');
  }

  private textOrAction(): Node | { type: 'else' | 'end'; item: Item } {
    const t = this.nextNonSpace();
    switch (t.type) {
      case 'text':
        return { type: 'text', pos: t.pos, text: t.val };
      case 'leftDelim':
        return this.action();
      case 'comment':
        return { type: 'comment', pos: t.pos };
      default:
        this.unexpected(t, 'input');
    }
  }

  private action(): Node | { type: 'else' | 'end'; item: Item } {
    const t = this.nextNonSpace();
    switch (t.type) {
      case 'block':
      case 'template':
        this.errorf(`{{${t.type}}} is not supported by standup's template engine`);
      // eslint-disable-next-line no-fallthrough
      case 'break':
      case 'continue': {
        if (this.rangeDepth === 0) this.errorf(`{{${t.type}}} outside {{range}}`);
        const end = this.nextNonSpace();
        if (end.type !== 'rightDelim') this.unexpected(end, `{{${t.type}}}`);
        return { type: t.type, pos: t.pos, line: t.line };
      }
      case 'else':
        return this.elseControl(t);
      case 'end': {
        this.expect('rightDelim', 'end');
        return { type: 'end', item: t };
      }
      case 'if':
      case 'range':
      case 'with':
        return this.control(t.type, t);
    }
    this.backup();
    const tok = this.peek();
    return { type: 'action', pos: tok.pos, line: tok.line, pipe: this.pipeline('command', 'rightDelim') };
  }

  private elseControl(t: Item): { type: 'else'; item: Item } {
    const peek = this.peekNonSpace();
    // `else if` / `else with`: the rest is parsed as a nested control by control() below.
    if (peek.type === 'if' || peek.type === 'with') return { type: 'else', item: { ...t, val: peek.type } };
    this.expect('rightDelim', 'else');
    return { type: 'else', item: t };
  }

  private control(context: 'if' | 'range' | 'with', start: Item): Node {
    const mark = this.vars.length;
    const pipe = this.pipeline(context, 'rightDelim');
    if (context === 'range') this.rangeDepth++;
    let { list, next } = this.itemList();
    if (context === 'range') this.rangeDepth--;
    let elseList: ListNode | null = null;
    if (next.type === 'else') {
      const kw = this.peek().type;
      if ((context === 'if' && kw === 'if') || (context === 'with' && kw === 'with')) {
        // {{else if X}}...{{end}} is {{else}}{{if X}}...{{end}}{{end}}: one {{end}} closes both.
        const t = this.next();
        const nested = this.control(context, t);
        elseList = { type: 'list', pos: next.item.pos, nodes: [nested] };
      } else {
        const r = this.itemList();
        if (r.next.type !== 'end') this.errorf('expected end; found {{else}}');
        elseList = r.list;
      }
    }
    this.vars.length = mark;
    return { type: context, pos: pipe.pos, line: start.line, pipe, list, elseList };
  }

  // --- pipelines

  private pipeline(context: string, end: ItemType): PipeNode {
    const token = this.peekNonSpace();
    const pipe: PipeNode = { type: 'pipe', pos: token.pos, line: token.line, isAssign: false, decl: [], cmds: [] };
    // Declarations: `$x :=`, `$x =`, and in range `$i, $e :=`.
    for (;;) {
      const mark = this.i;
      const v = this.peekNonSpace();
      if (v.type !== 'variable') break;
      this.nextNonSpace();
      const next = this.peekNonSpace();
      if (next.type === 'assign' || next.type === 'declare') {
        this.nextNonSpace();
        pipe.isAssign = next.type === 'assign';
        pipe.decl.push({ type: 'variable', pos: v.pos, ident: [v.val] });
        this.vars.push(v.val);
        break;
      }
      if (next.type === 'char' && next.val === ',') {
        this.nextNonSpace();
        pipe.decl.push({ type: 'variable', pos: v.pos, ident: [v.val] });
        this.vars.push(v.val);
        if (context === 'range' && pipe.decl.length < 2) {
          const n2 = this.peekNonSpace().type;
          if (n2 === 'variable' || n2 === 'rightDelim' || n2 === 'rightParen') continue;
          this.errorf('range can only initialize variables');
        }
        this.errorf(`too many declarations in ${context}`);
      }
      // Not a declaration: the variable is an operand.
      this.i = mark;
      break;
    }
    for (;;) {
      const t = this.nextNonSpace();
      if (t.type === end) {
        this.checkPipeline(pipe, context);
        return pipe;
      }
      switch (t.type) {
        case 'bool':
        case 'charConstant':
        case 'dot':
        case 'field':
        case 'identifier':
        case 'number':
        case 'nil':
        case 'rawString':
        case 'string':
        case 'variable':
        case 'leftParen':
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(t, context);
      }
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    pipe.cmds.slice(1).forEach((c, i) => {
      const first = c.args[0]!.type;
      if (['bool', 'dot', 'nil', 'number', 'string'].includes(first)) this.errorf(`non executable command in pipeline stage ${i + 2}`);
    });
  }

  private command(): CommandNode {
    const cmd: CommandNode = { type: 'command', pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) cmd.args.push(operand);
      const t = this.next();
      switch (t.type) {
        case 'space':
          continue;
        case 'rightDelim':
        case 'rightParen':
          this.backup();
          break;
        case 'pipe':
          break;
        default:
          this.unexpected(t, 'operand');
      }
      break;
    }
    if (cmd.args.length === 0) this.errorf('empty command');
    return cmd;
  }

  private operand(): ArgNode | null {
    const node = this.term();
    if (!node) return null;
    if (this.peek().type !== 'field') return node;
    // The node takes the position of the chain, the first field after the term (Go's newChain(t.peek().pos, ...)).
    const pos = this.peek().pos;
    const fields: string[] = [];
    while (this.peek().type === 'field') fields.push(this.next().val.slice(1));
    switch (node.type) {
      case 'field':
        return { type: 'field', pos, ident: [...node.ident, ...fields] };
      case 'variable':
        return { type: 'variable', pos, ident: [...node.ident, ...fields] };
      case 'bool':
      case 'string':
      case 'number':
      case 'nil':
      case 'dot':
        this.errorf(`unexpected . after term "${nodeString(node)}"`);
      // eslint-disable-next-line no-fallthrough
      default:
        return { type: 'chain', pos, node, field: fields };
    }
  }

  private term(): ArgNode | null {
    const t = this.nextNonSpace();
    switch (t.type) {
      case 'identifier':
        if (!this.o.hasFunction(t.val)) this.errorf(`function "${t.val}" not defined`);
        return { type: 'identifier', pos: t.pos, ident: t.val };
      case 'dot':
        return { type: 'dot', pos: t.pos };
      case 'nil':
        return { type: 'nil', pos: t.pos };
      case 'variable':
        if (!this.vars.includes(t.val)) this.errorf(`undefined variable "${t.val}"`);
        return { type: 'variable', pos: t.pos, ident: [t.val] };
      case 'field':
        return { type: 'field', pos: t.pos, ident: [t.val.slice(1)] };
      case 'bool':
        return { type: 'bool', pos: t.pos, value: t.val === 'true' };
      case 'charConstant':
      case 'number':
        return this.number(t);
      case 'leftParen':
        return this.pipeline('parenthesized pipeline', 'rightParen');
      case 'string':
      case 'rawString': {
        const text = t.type === 'rawString' ? t.val.slice(1, -1) : unquoteGo(t.val);
        if (text === null) this.errorf(`invalid syntax`);
        return { type: 'string', pos: t.pos, quoted: t.val, text };
      }
    }
    this.backup();
    return null;
  }

  private number(t: Item): NumberNode {
    const text = t.val;
    if (t.type === 'charConstant') {
      const s = unquoteGo(`"${text.slice(1, -1).replace(/"/g, '\\"')}"`);
      const cp = s === null ? NaN : (s.codePointAt(0) ?? NaN);
      if (Number.isNaN(cp) || [...(s ?? '')].length !== 1) this.errorf(`malformed character constant: ${text}`);
      return { type: 'number', pos: t.pos, text, isInt: true, isFloat: true, int: cp, float: cp };
    }
    if (text.endsWith('i')) this.errorf(`complex numbers are not supported by standup's template engine: ${text}`);
    const clean = text.replace(/_/g, '');
    const intVal = parseGoInt(clean);
    const isHexFloat = /^[+-]?0[xX]/.test(clean) && /[pP.]/.test(clean);
    const floatVal = isHexFloat ? NaN : /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(clean) ? Number(clean) : intVal ?? NaN;
    if (intVal === null && Number.isNaN(floatVal)) this.errorf(`illegal number syntax: "${text}"`);
    // As Go: an integral float is also an int, and an int is also a float.
    const isInt = intVal !== null || (Number.isInteger(floatVal) && Math.abs(floatVal) <= Number.MAX_SAFE_INTEGER);
    return { type: 'number', pos: t.pos, text, isInt, isFloat: !Number.isNaN(floatVal), int: intVal ?? floatVal, float: Number.isNaN(floatVal) ? (intVal ?? NaN) : floatVal };
  }
}

/** strconv.ParseInt(s, 0, 64), within what a JavaScript number holds exactly; null when it is not an integer. */
function parseGoInt(s: string): number | null {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return null;
  const body = m[2]!;
  let v: number;
  if (/^0[xX]/.test(body)) v = parseInt(body.slice(2), 16);
  else if (/^0[oO]/.test(body)) v = parseInt(body.slice(2), 8);
  else if (/^0[bB]/.test(body)) v = parseInt(body.slice(2), 2);
  else if (body.length > 1 && body.startsWith('0')) v = parseInt(body, 8);
  else v = parseInt(body, 10);
  return m[1] === '-' ? -v : v;
}

function itemString(t: Item): string {
  switch (t.type) {
    case 'eof':
      return 'EOF';
    case 'error':
      return t.val;
    case 'rightDelim':
    case 'leftDelim':
      return `"${t.val}"`;
    default:
      if (['block', 'break', 'continue', 'define', 'else', 'end', 'if', 'range', 'nil', 'template', 'with'].includes(t.type)) return `<${t.val}>`;
      return t.val.length > 10 ? `"${t.val.slice(0, 10)}"...` : `"${t.val}"`;
  }
}
