// The parse tree of text/template (text/template/parse/node.go): the node kinds the executor walks, and their
// String() forms, which Go's execution errors quote (`at <.foo.bar>`).

export type Node =
  | { type: 'text'; pos: number; text: string }
  | { type: 'comment'; pos: number }
  | { type: 'action'; pos: number; line: number; pipe: PipeNode }
  | { type: 'if' | 'with' | 'range'; pos: number; line: number; pipe: PipeNode; list: ListNode; elseList: ListNode | null }
  | { type: 'break' | 'continue'; pos: number; line: number }
  | { type: 'template'; pos: number; line: number; name: string; pipe: PipeNode | null }
  | ListNode;

export interface ListNode {
  type: 'list';
  pos: number;
  nodes: Node[];
}

export interface PipeNode {
  type: 'pipe';
  pos: number;
  line: number;
  isAssign: boolean;
  decl: VariableNode[];
  cmds: CommandNode[];
}

export interface CommandNode {
  type: 'command';
  pos: number;
  args: ArgNode[];
}

export interface VariableNode {
  type: 'variable';
  pos: number;
  /** `$x.a.b` is ['$x', 'a', 'b']. */
  ident: string[];
}

export type ArgNode =
  | { type: 'field'; pos: number; ident: string[] }
  | VariableNode
  | { type: 'identifier'; pos: number; ident: string }
  | { type: 'chain'; pos: number; node: ArgNode; field: string[] }
  | { type: 'dot'; pos: number }
  | { type: 'nil'; pos: number }
  | { type: 'bool'; pos: number; value: boolean }
  | NumberNode
  | { type: 'string'; pos: number; quoted: string; text: string }
  | PipeNode;

export interface NumberNode {
  type: 'number';
  pos: number;
  text: string;
  isInt: boolean;
  isFloat: boolean;
  int: number;
  float: number;
}

/** Node.String() as Go prints it. */
export function nodeString(n: Node | ArgNode | CommandNode): string {
  switch (n.type) {
    case 'text':
      return JSON.stringify(n.text);
    case 'comment':
      return '{{/* */}}';
    case 'action':
      return `{{${nodeString(n.pipe)}}}`;
    case 'if':
    case 'with':
    case 'range': {
      const e = n.elseList ? `{{else}}${nodeString(n.elseList)}` : '';
      return `{{${n.type} ${nodeString(n.pipe)}}}${nodeString(n.list)}${e}{{end}}`;
    }
    case 'break':
      return '{{break}}';
    case 'continue':
      return '{{continue}}';
    case 'template':
      return n.pipe ? `{{template ${JSON.stringify(n.name)} ${nodeString(n.pipe)}}}` : `{{template ${JSON.stringify(n.name)}}}`;
    case 'list':
      return n.nodes.map(nodeString).join('');
    case 'pipe': {
      const decl = n.decl.length > 0 ? `${n.decl.map(nodeString).join(', ')} ${n.isAssign ? '=' : ':='} ` : '';
      return decl + n.cmds.map(nodeString).join(' | ');
    }
    case 'command':
      return n.args.map((a) => (a.type === 'pipe' ? `(${nodeString(a)})` : nodeString(a))).join(' ');
    case 'field':
      return n.ident.map((i) => `.${i}`).join('');
    case 'variable':
      return n.ident.join('.');
    case 'identifier':
      return n.ident;
    case 'chain': {
      const inner = n.node.type === 'pipe' ? `(${nodeString(n.node)})` : nodeString(n.node);
      return inner + n.field.map((f) => `.${f}`).join('');
    }
    case 'dot':
      return '.';
    case 'nil':
      return 'nil';
    case 'bool':
      return n.value ? 'true' : 'false';
    case 'number':
      return n.text;
    case 'string':
      return n.quoted;
  }
}
