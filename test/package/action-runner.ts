import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { parse } from 'yaml';

// Runs a composite action's shell steps the way a GitHub runner does, as far as this machine allows: each `run:` is
// written to a file and run with `bash --noprofile --norc -eo pipefail FILE` (the runner's `shell: bash`), with the
// variables a runner sets (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP, GITHUB_ACTION_PATH, GITHUB_EVENT_PATH...),
// `env:` and `working-directory:` evaluated from the inputs, and step outputs read back from GITHUB_OUTPUT. `uses:`
// steps (actions/setup-node) are not run: Node is already here. Expressions beyond the few an action needs
// (`inputs.x`, `steps.id.outputs.y`, `github.token`, `github.sha`, `runner.os`, `always()`, `inputs.x != ''`) make it throw, so a change to
// action.yml that this cannot evaluate fails the test instead of passing untested.

interface Step {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  'working-directory'?: string;
  with?: Record<string, string>;
}

export interface Action {
  inputs: Record<string, { default?: string; description: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

export interface StepResult {
  name: string;
  status: 'success' | 'failure' | 'skipped' | 'not-a-shell-step';
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** A `uses:` step's `with:`, evaluated (what actions/cache would be given). */
  with?: Record<string, string>;
}

export interface ActionRun {
  steps: StepResult[];
  outputs: Record<string, string>;
  /** Everything the steps appended to their GITHUB_STEP_SUMMARY. */
  summary: string;
  /** Workflow commands on stdout that become annotations: `::error file=f,line=1,title=t::message`. */
  annotations: { level: string; props: Record<string, string>; message: string }[];
  failed: boolean;
}

export const readAction = (file: string): Action => parse(readFileSync(file, 'utf8')) as Action;

export interface RunOptions {
  inputs: Record<string, string>;
  /** The job's working directory (GITHUB_WORKSPACE). */
  workspace: string;
  /** PATH and whatever else the job has (npm config, a fake gh). */
  env: Record<string, string>;
  /** The event payload (GITHUB_EVENT_PATH); a pull_request event when it has `pull_request`. */
  event?: Record<string, unknown>;
  /** Where RUNNER_TEMP and the step files go (a new directory inside it); the caller removes it. */
  scratch: string;
}

export async function runAction(actionFile: string, o: RunOptions): Promise<ActionRun> {
  const action = readAction(actionFile);
  if (action.runs.using !== 'composite') throw new Error(`not a composite action: ${action.runs.using}`);
  const temp = mkdtempSync(path.join(o.scratch, 'runner-temp-'));
  const inputs: Record<string, string> = {};
  const ctx = { inputs, steps: {} as Record<string, { outputs: Record<string, string> }>, token: 'ghs_test_token' };
  for (const [k, v] of Object.entries(action.inputs)) inputs[k] = o.inputs[k] ?? evaluate(v.default ?? '', ctx);
  for (const k of Object.keys(o.inputs)) if (!(k in action.inputs)) throw new Error(`action.yml has no input "${k}"`);
  const eventPath = path.join(temp, 'event.json');
  writeFileSync(eventPath, JSON.stringify(o.event ?? {}));
  const runnerEnv = {
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: o.workspace,
    GITHUB_ACTION_PATH: path.dirname(actionFile),
    GITHUB_EVENT_NAME: o.event?.pull_request ? 'pull_request' : 'push',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: 'octo/fleet',
    GITHUB_RUN_ID: '4242',
    GITHUB_SHA: '0'.repeat(40),
    RUNNER_TEMP: temp,
    RUNNER_OS: 'Linux',
    ...(o.event?.pull_request
      ? { GITHUB_BASE_REF: String((o.event.pull_request as { base?: { ref?: string } }).base?.ref ?? 'main'), GITHUB_HEAD_REF: 'feature' }
      : {}),
  };
  const results: StepResult[] = [];
  let summary = '';
  const annotations: ActionRun['annotations'] = [];
  let failed = false;
  for (const [i, step] of action.runs.steps.entries()) {
    const name = step.name ? evaluate(step.name, ctx) : step.uses ?? `step ${i}`;
    if (!condition(step.if, failed, ctx)) {
      results.push({ name, status: 'skipped', exitCode: null, stdout: '', stderr: '' });
      continue;
    }
    if (step.uses) {
      // The inputs it would get must evaluate.
      const given = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, evaluate(String(v), ctx)]));
      results.push({ name, status: 'not-a-shell-step', exitCode: null, stdout: '', stderr: '', with: given });
      continue;
    }
    if (step.shell !== 'bash') throw new Error(`step "${name}": shell ${step.shell}, not bash`);
    const dir = path.join(temp, `step-${i}`);
    mkdirSync(dir);
    const files = { GITHUB_OUTPUT: path.join(dir, 'output'), GITHUB_STEP_SUMMARY: path.join(dir, 'summary'), GITHUB_ENV: path.join(dir, 'env'), GITHUB_PATH: path.join(dir, 'path') };
    for (const f of Object.values(files)) writeFileSync(f, '');
    const script = path.join(dir, 'script.sh');
    writeFileSync(script, step.run!);
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, evaluate(String(v), ctx)]));
    const cwd = path.resolve(o.workspace, step['working-directory'] ? evaluate(step['working-directory'], ctx) : '.');
    const r = await execa('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
      cwd,
      reject: false,
      extendEnv: false,
      env: { HOME: process.env.HOME ?? '/root', ...o.env, ...runnerEnv, ...files, GITHUB_ACTION: step.id ?? `__step${i}`, ...stepEnv },
    });
    const outputs = readOutputs(readFileSync(files.GITHUB_OUTPUT, 'utf8'));
    if (step.id) ctx.steps[step.id] = { outputs };
    summary += readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
    for (const m of r.stdout.matchAll(/^::(error|warning|notice)( [^:]*)?::(.*)$/gm)) {
      const props = Object.fromEntries((m[2] ?? '').trim().split(',').filter(Boolean).map((kv) => kv.split('=') as [string, string]));
      annotations.push({ level: m[1]!, props, message: m[3]! });
    }
    const ok = r.exitCode === 0;
    if (!ok) failed = true;
    results.push({ name, status: ok ? 'success' : 'failure', exitCode: r.exitCode ?? null, stdout: r.stdout, stderr: r.stderr });
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([k, v]) => [k, evaluate(v.value, ctx)]));
  return { steps: results, outputs, summary, annotations, failed };
}

type Ctx = { inputs: Record<string, string>; steps: Record<string, { outputs: Record<string, string> }>; token: string };

/** `${{ expr }}` in a string, for the expressions an action like this one needs; anything else throws. */
function evaluate(text: string, ctx: Ctx): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_m, expr: string) => {
    let m: RegExpExecArray | null;
    if ((m = /^inputs\.([\w-]+)$/.exec(expr))) return ctx.inputs[m[1]!] ?? '';
    if ((m = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr))) return ctx.steps[m[1]!]?.outputs[m[2]!] ?? '';
    if (expr === 'github.token') return ctx.token;
    if (expr === 'github.sha') return '0'.repeat(40);
    if (expr === 'runner.os') return 'Linux';
    throw new Error(`expression the test runner cannot evaluate: ${expr}`);
  });
}

function condition(expr: string | undefined, failed: boolean, ctx: Ctx): boolean {
  if (expr === undefined) return !failed;
  if (expr === 'always()') return true;
  const m = /^inputs\.([\w-]+) (!=|==) '([^']*)'$/.exec(expr.trim());
  if (m) return !failed && ((ctx.inputs[m[1]!] ?? '') === m[3]) === (m[2] === '==');
  throw new Error(`if: the test runner cannot evaluate ${expr}`);
}

/** GITHUB_OUTPUT's `name=value` lines and `name<<DELIMITER` blocks. */
function readOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([\w-]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      out[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) {
      out[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return out;
}
