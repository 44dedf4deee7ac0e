// The executor of text/template (text/template/exec.go) over the values of values.ts: fields of maps, variables,
// pipelines with the previous value as the final argument, if/with/range (maps in sorted key order, integers),
// break/continue, and the `missingkey=error` option. Errors carry Go's words and context:
// `template: NAME:LINE:COL: executing "NAME" at <NODE>: MESSAGE`.
import { canBeNil, FuncError, UnsupportedFunctionError, type GoFunc, type ParamType } from './func.js';
import { lineCounter } from './lex.js';
import type { ArgNode, CommandNode, ListNode, Node, PipeNode } from './nodes.js';
import { nodeString } from './nodes.js';
import { formatValue, GoInt, isMap, isTrue, typeName } from './values.js';
import { idealConstant, MISSING, TemplateExecError, validateType, type ExecOptions } from './exec-args.js';

export { TemplateExecError, type ExecOptions };

type Val = unknown;

class BreakSignal {}
class ContinueSignal {}


export function execute(root: ListNode, data: Val, o: ExecOptions): string {
  return new State(o, data).run(root);
}

class State {
  private out: string[] = [];
  /**
   * Each variable, and whether its value sits in an interface{} (an element of a map or slice), which Go's "can't
   * evaluate field" message names instead of the concrete type.
   */
  private vars: { name: string; value: Val; iface: boolean }[];
  /** Whether dot sits in an interface{} (range elements do; with's value and the data do not). */
  private dotIface = false;
  private node: Node | ArgNode | CommandNode | null = null;
  private readonly lineAt: (pos: number) => number;
  private ops = 0;

  constructor(
    private readonly o: ExecOptions,
    private readonly data: Val,
  ) {
    this.vars = [{ name: '$', value: data, iface: false }];
    this.lineAt = lineCounter(o.text);
  }

  run(root: ListNode): string {
    this.walk(this.data, root);
    return this.out.join('');
  }

  private at(n: Node | ArgNode | CommandNode): void {
    this.node = n;
  }

  private readonly fail = (msg: string): never => this.errorf(msg);

  private errorf(msg: string): never {
    if (!this.node) throw new TemplateExecError(`template: ${this.o.name}: ${msg}`);
    const pos = this.node.pos;
    const before = this.o.text.slice(0, pos);
    const nl = before.lastIndexOf('\n');
    const col = nl < 0 ? pos : pos - (nl + 1);
    let context = nodeString(this.node);
    if (context.length > 20) context = `${context.slice(0, 20)}...`;
    throw new TemplateExecError(`template: ${this.o.name}:${this.lineAt(pos)}:${col}: executing "${this.o.name}" at <${context}>: ${msg}`);
  }

  private tick(): void {
    if (++this.ops > 10_000_000) this.errorf('template too large to execute (standup stops after ten million steps)');
  }

  // --- walking

  private walk(dot: Val, node: Node): void {
    this.tick();
    this.at(node);
    switch (node.type) {
      case 'action': {
        const v = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.out.push(formatValue(v));
        return;
      }
      case 'break':
        throw new BreakSignal();
      case 'continue':
        throw new ContinueSignal();
      case 'comment':
        return;
      case 'if':
      case 'with':
        return this.walkIfOrWith(node.type, dot, node.pipe, node.list, node.elseList);
      case 'list':
        for (const n of node.nodes) this.walk(dot, n);
        return;
      case 'range':
        return this.walkRange(dot, node.pipe, node.list, node.elseList);
      case 'text':
        this.out.push(node.text);
        return;
      case 'template':
        this.errorf('{{template}} is not supported');
    }
  }

  private walkIfOrWith(kind: 'if' | 'with', dot: Val, pipe: PipeNode, list: ListNode, elseList: ListNode | null): void {
    const mark = this.vars.length;
    try {
      const val = this.evalPipeline(dot, pipe);
      if (isTrue(val) && kind === 'with') this.walkWithDot(val, false, list);
      else if (isTrue(val)) this.walk(dot, list);
      else if (elseList) this.walk(dot, elseList);
    } finally {
      this.vars.length = mark;
    }
  }

  private walkRange(dot: Val, pipe: PipeNode, list: ListNode, elseList: ListNode | null): void {
    this.at(pipe);
    const mark = this.vars.length;
    try {
      const val = this.evalPipeline(dot, pipe);
      // Elements of slices and maps are interface{} values; a range over an integer gives ints.
      const elemIface = !(val instanceof GoInt);
      const oneIteration = (index: Val, elem: Val): boolean => {
        if (pipe.decl.length > 0) {
          if (pipe.isAssign) {
            if (pipe.decl.length > 1) this.setVar(pipe.decl[0]!.ident[0]!, index);
            this.setVar(pipe.decl[pipe.decl.length - 1]!.ident[0]!, elem, elemIface);
          } else {
            // The pipeline pushed the declarations: the top one gets the element, the one below it the index (or key).
            this.setTopVar(1, elem, elemIface);
            if (pipe.decl.length > 1) this.setTopVar(2, index);
          }
        }
        const inner = this.vars.length;
        try {
          this.walkWithDot(elem, elemIface, list);
        } catch (e) {
          if (e instanceof BreakSignal) return false;
          if (!(e instanceof ContinueSignal)) throw e;
        } finally {
          this.vars.length = inner;
        }
        return true;
      };
      if (Array.isArray(val)) {
        if (val.length === 0) return this.rangeElse(dot, elseList);
        for (let i = 0; i < val.length; i++) if (!oneIteration(new GoInt(i), val[i])) break;
        return;
      }
      if (isMap(val)) {
        const keys = Object.keys(val).sort();
        if (keys.length === 0) return this.rangeElse(dot, elseList);
        for (const k of keys) if (!oneIteration(k, val[k])) break;
        return;
      }
      if (val instanceof GoInt) {
        if (pipe.decl.length > 1) this.errorf(`can't use ${formatValue(val)} to iterate over more than one variable`);
        if (val.v <= 0) return this.rangeElse(dot, elseList);
        for (let i = 0; i < val.v; i++) if (!oneIteration(new GoInt(i), new GoInt(i))) break;
        return;
      }
      if (val === undefined || val === null) return this.rangeElse(dot, elseList);
      this.errorf(`range can't iterate over ${formatValue(val)}`);
    } finally {
      this.vars.length = mark;
    }
  }

  private walkWithDot(dot: Val, iface: boolean, node: Node): void {
    const saved = this.dotIface;
    this.dotIface = iface;
    try {
      this.walk(dot, node);
    } finally {
      this.dotIface = saved;
    }
  }

  private rangeElse(dot: Val, elseList: ListNode | null): void {
    if (elseList) this.walk(dot, elseList);
  }

  // --- variables

  private setVar(name: string, value: Val, iface = false): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i]!.name === name) {
        this.vars[i]!.value = value;
        this.vars[i]!.iface = iface;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  /** Sets the n-th variable from the top of the stack (the range's declarations were pushed by its pipeline). */
  private setTopVar(n: number, value: Val, iface = false): void {
    this.vars[this.vars.length - n]!.value = value;
    this.vars[this.vars.length - n]!.iface = iface;
  }

  private variable(name: string): { value: Val; iface: boolean } {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i]!.name === name) return this.vars[i]!;
    this.errorf(`undefined variable: ${name}`);
  }

  // --- pipelines and commands

  private evalPipeline(dot: Val, pipe: PipeNode): Val {
    this.at(pipe);
    let value: Val = MISSING;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd, value);
      // An interface holding nil digs down to no value at all (Go: reflect.ValueOf(value.Interface())).
      if (value === null) value = undefined;
    }
    for (const v of pipe.decl) {
      if (pipe.isAssign) this.setVar(v.ident[0]!, value);
      else this.vars.push({ name: v.ident[0]!, value, iface: false });
    }
    return value;
  }

  private evalCommand(dot: Val, cmd: CommandNode, final: Val): Val {
    const first = cmd.args[0]!;
    switch (first.type) {
      case 'field':
        this.at(first);
        return this.evalFieldChain(dot, this.dotIface, first.ident, cmd.args, final);
      case 'chain':
        return this.evalChainNode(dot, first, cmd.args, final);
      case 'identifier':
        return this.evalFunction(dot, first, cmd, cmd.args, final);
      case 'pipe':
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case 'variable':
        return this.evalVariableNode(dot, first, cmd.args, final);
    }
    this.at(first);
    this.notAFunction(cmd.args, final);
    switch (first.type) {
      case 'bool':
        return first.value;
      case 'dot':
        return dot;
      case 'nil':
        this.errorf('nil is not a command');
      // eslint-disable-next-line no-fallthrough
      case 'number':
        return idealConstant(first);
      case 'string':
        return first.text;
    }
    this.errorf(`can't evaluate command ${JSON.stringify(nodeString(first))}`);
  }

  private notAFunction(args: ArgNode[], final: Val): void {
    if (args.length > 1 || final !== MISSING) this.errorf(`can't give argument to non-function ${nodeString(args[0]!)}`);
  }

  private evalChainNode(dot: Val, chain: Extract<ArgNode, { type: 'chain' }>, args: ArgNode[], final: Val): Val {
    this.at(chain);
    if (chain.node.type === 'nil') this.errorf(`indirection through explicit nil in ${nodeString(chain)}`);
    const pipe = this.evalArg(dot, 'value', chain.node);
    // A function's result is an interface{} (`inputs`); a parenthesized pipeline's is unwrapped.
    return this.evalFieldChain(pipe, chain.node.type !== 'pipe', chain.field, args, final);
  }

  private evalVariableNode(dot: Val, v: Extract<ArgNode, { type: 'variable' }>, args: ArgNode[], final: Val): Val {
    this.at(v);
    const { value, iface } = this.variable(v.ident[0]!);
    if (v.ident.length === 1) {
      this.notAFunction(args, final);
      return value;
    }
    return this.evalFieldChain(value, iface, v.ident.slice(1), args, final);
  }

  private evalFieldChain(receiver: Val, iface: boolean, ident: string[], args: ArgNode[], final: Val): Val {
    let r = receiver;
    // Every step after the first reads a map element, which is an interface{}.
    for (let i = 0; i < ident.length - 1; i++) r = this.evalField(ident[i]!, [], MISSING, r, i === 0 ? iface : true);
    return this.evalField(ident[ident.length - 1]!, args, final, r, ident.length === 1 ? iface : true);
  }

  private evalField(fieldName: string, args: ArgNode[], final: Val, receiver: Val, iface: boolean): Val {
    if (receiver === undefined) {
      if (this.o.missingKeyError) this.errorf(`nil data; no entry for key ${JSON.stringify(fieldName)}`);
      return undefined;
    }
    if (receiver === null) this.errorf(`nil pointer evaluating interface {}.${fieldName}`);
    if (isMap(receiver)) {
      if (args.length > 1 || final !== MISSING) this.errorf(`${fieldName} is not a method but has arguments`);
      if (Object.prototype.hasOwnProperty.call(receiver, fieldName)) return receiver[fieldName];
      if (this.o.missingKeyError) this.errorf(`map has no entry for key ${JSON.stringify(fieldName)}`);
      return undefined;
    }
    this.errorf(`can't evaluate field ${fieldName} in type ${iface ? 'interface {}' : typeName(receiver)}`);
  }

  /** `cmd` is the command (or the argument) the call is: an error in the function names it as its context. */
  private evalFunction(dot: Val, node: Extract<ArgNode, { type: 'identifier' }>, cmd: ArgNode | CommandNode, args: ArgNode[], final: Val): Val {
    this.at(node);
    const f = this.o.funcs.get(node.ident);
    if (!f) this.errorf(`${JSON.stringify(node.ident)} is not a defined function`);
    return this.evalCall(dot, f, cmd, node.ident, args, final);
  }

  private evalCall(dot: Val, f: GoFunc, node: ArgNode | CommandNode, name: string, allArgs: ArgNode[], final: Val): Val {
    const args = allArgs.slice(1);
    let numIn = args.length;
    if (final !== MISSING) numIn++;
    const numFixed = f.params.length;
    if (f.variadic) {
      if (numIn < numFixed) this.errorf(`wrong number of args for ${name}: want at least ${numFixed} got ${args.length}`);
    } else if (numIn !== numFixed) {
      this.errorf(`wrong number of args for ${name}: want ${numFixed} got ${numIn}`);
    }
    const typeAt = (i: number): ParamType => (i < numFixed ? f.params[i]! : f.variadic!);
    if (f.lazy) {
      // and/or: stop at the first argument that decides.
      const values = [...args.map((a) => () => this.evalArg(dot, 'value', a)), ...(final !== MISSING ? [() => final] : [])];
      let v: Val = undefined;
      for (const get of values) {
        v = get();
        if (isTrue(v) === (f.lazy === 'or')) return v;
      }
      return v;
    }
    const argv: Val[] = args.map((a, i) => this.evalArg(dot, typeAt(i), a));
    if (final !== MISSING) argv.push(validateType(this.fail, final, typeAt(argv.length)));
    try {
      return f.fn(...argv);
    } catch (e) {
      this.at(node);
      if (e instanceof TemplateExecError) throw e;
      if (e instanceof UnsupportedFunctionError) {
        try {
          this.errorf(e.message);
        } catch (wrapped) {
          (wrapped as TemplateExecError).unsupportedFunction = e.fn;
          throw wrapped;
        }
      }
      const msg = e instanceof FuncError ? e.message : e instanceof Error ? e.message : String(e);
      this.errorf(`error calling ${name}: ${msg}`);
    }
  }

  /** An argument, converted to the parameter type as Go's evalArg does (literals are checked against it). */
  private evalArg(dot: Val, t: ParamType, n: ArgNode): Val {
    this.at(n);
    switch (n.type) {
      case 'dot':
        return validateType(this.fail, dot, t);
      case 'nil':
        if (canBeNil(t)) return null;
        this.errorf(`cannot assign nil to ${t}`);
      // eslint-disable-next-line no-fallthrough
      case 'field':
        return validateType(this.fail, this.evalFieldChain(dot, this.dotIface, n.ident, [n], MISSING), t);
      case 'variable':
        return validateType(this.fail, this.evalVariableNode(dot, n, [n], MISSING), t);
      case 'pipe':
        return validateType(this.fail, this.evalPipeline(dot, n), t);
      case 'identifier':
        return validateType(this.fail, this.evalFunction(dot, n, n, [n], MISSING), t);
      case 'chain':
        return validateType(this.fail, this.evalChainNode(dot, n, [], MISSING), t);
    }
    switch (t) {
      case 'bool':
        if (n.type === 'bool') return n.value;
        this.errorf(`expected bool; found ${nodeString(n)}`);
      // eslint-disable-next-line no-fallthrough
      case 'float64':
        if (n.type === 'number' && n.isFloat) return n.float;
        this.errorf(`expected float; found ${nodeString(n)}`);
      // eslint-disable-next-line no-fallthrough
      case 'int':
      case 'int64':
        if (n.type === 'number' && n.isInt) return new GoInt(n.int, t);
        this.errorf(`expected integer; found ${nodeString(n)}`);
      // eslint-disable-next-line no-fallthrough
      case 'string':
        if (n.type === 'string') return n.text;
        this.errorf(`expected string; found ${nodeString(n)}`);
      // eslint-disable-next-line no-fallthrough
      case 'any':
      case 'value':
        if (n.type === 'bool') return n.value;
        if (n.type === 'string') return n.text;
        if (n.type === 'number') return idealConstant(n);
    }
    this.errorf(`can't handle ${nodeString(n)} for arg of type ${t}`);
  }
}
