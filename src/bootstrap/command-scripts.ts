// Bootstraps written as commands rather than a helmfile: a justfile or *.just module, a Taskfile, a shell script. A
// file counts when it is a bootstrap step (its path says bootstrap, or it installs Flux: `flux bootstrap`,
// `flux install`, the flux-operator or flux-instance chart, gotk-components). Its commands with literal arguments
// are read: `kubectl apply|create -f/-k FILE|URL` (the CRDs in it), `kubectl wait crd/NAME`, `helm install|upgrade
// --install NAME CHART` and `helm template NAME CHART` (the chart, looked up in the chart table). An argument that
// is still a variable after the runner's own built-ins (Task's {{.ROOT_DIR}}, just's justfile_directory()) cannot be
// read statically: a `bootstrap-unreadable` note with file:line says so.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { BootstrapInstall } from '../model/bootstrap.js';
import type { Problem } from '../model/problem.js';
import type { TextMemo } from '../repo/lazy-yaml.js';
import { appliedGroups } from './crd-groups.js';

const SKIP_DIRS = new Set(['.git', 'node_modules', '.github', 'charts', 'vendor']);

/** justfile, *.just, Taskfile.yaml (and any YAML of a .taskfiles/ folder), *.sh: the command files of a repository. */
export function commandFiles(root: string): string[] {
  const out: string[] = [];
  const go = (dir: string, depth: number, inTaskfiles: boolean) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        const tasks = e.name === '.taskfiles' || e.name === '.just';
        if (depth < 6 && !SKIP_DIRS.has(e.name) && (!e.name.startsWith('.') || tasks)) go(p, depth + 1, inTaskfiles || tasks);
      } else if (e.isFile() && isCommandFile(e.name, inTaskfiles)) {
        out.push(p);
      }
    }
  };
  go(root, 0, false);
  return out;
}

const isCommandFile = (name: string, inTaskfiles: boolean): boolean =>
  /^(\.?justfile|Justfile)$/.test(name) || /\.just$/.test(name) || /^[Tt]askfile(\.dist)?\.ya?ml$/.test(name) || (inTaskfiles && /\.ya?ml$/.test(name)) || /\.(sh|bash)$/.test(name);

const BOOTSTRAPS_FLUX = /\bflux\s+(bootstrap|install)\b|flux-operator|flux-instance|gotk-components|fluxcd\/flux2\/.*install/;

/** Adds what a command file installs before Flux to `installs`; unreadable commands become notes in `problems`. */
export function readCommandFile(file: string, root: string, rel: (abs: string) => string, installs: BootstrapInstall[], problems: Problem[], memo: TextMemo): void {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  if (!/(^|\/)bootstrap/i.test(rel(file)) && !BOOTSTRAPS_FLUX.test(text)) return;
  const dir = path.dirname(file);
  const builtins = (s: string) =>
    s
      .replace(/\{\{\s*\.(ROOT_DIR|ROOT_TASKFILE_DIR)\s*\}\}/g, root)
      .replace(/\{\{\s*\.TASKFILE_DIR\s*\}\}/g, dir)
      .replace(/\{\{\s*justfile_directory\(\)\s*\}\}/g, dir)
      .replace(/\{\{\s*source_directory\(\)\s*\}\}/g, dir);
  const vars = shellVariables(text, root, dir);
  for (const { line, words } of commands(text)) {
    const cmd = readCommand(words.map((w) => expandVariables(builtins(w), vars)));
    if (!cmd) continue;
    const at = { file: rel(file), line };
    if (cmd.unreadable) {
      problems.push({
        code: 'bootstrap-unreadable',
        severity: 'info',
        message:
          `${rel(file)}:${line} runs \`${words.join(' ').slice(0, 120)}\` before Flux, but ${cmd.unreadable} is a variable standup cannot resolve ` +
          `statically: what it installs is not known. If it installs CRDs the tiers use, declare them in tiers.yaml (externalCrds).`,
        ...at,
        object: null,
        cluster: null,
      });
      continue;
    }
    for (const target of cmd.applied) {
      // A relative path is the runner's working directory's: the file's own folder (Task, just), else the root.
      const abs = /^[a-z]+:\/\//.test(target) || path.isAbsolute(target) ? target : existsSync(path.resolve(dir, target)) ? path.resolve(dir, target) : path.resolve(root, target);
      const groups = appliedGroups(abs, target, memo);
      if (groups.length) installs.push({ name: path.basename(target), namespace: null, kind: 'hook-apply', chart: null, groups, ...at });
    }
    cmd.waited = [...new Set(cmd.waited)];
    if (cmd.waited.length) installs.push({ name: `kubectl wait ${cmd.waited.join(', ')}`, namespace: null, kind: 'hook-apply', chart: null, groups: cmd.waited, ...at });
    if (cmd.chart) installs.push({ name: cmd.chart.release, namespace: cmd.chart.namespace, kind: 'chart-install', chart: cmd.chart.chart, groups: [], ...at });
  }
}

/**
 * A shell script's variables that hold one literal value: assigned once (or always the same), to a literal, to the
 * script's own folder (`$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)`, `$(dirname "$0")`) or to the repository root
 * (`$(git rev-parse --show-toplevel)`), possibly built from such variables. Anything else stays a variable.
 */
export function shellVariables(text: string, root: string, dir: string): Map<string, string> {
  const seen = new Map<string, string | null>();
  for (const m of text.matchAll(/^[ \t]*(?:export[ \t]+|readonly[ \t]+|local[ \t]+|declare[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=(\S.*?)[ \t]*(?:[ \t]#.*)?$/gm)) {
    const [, name, raw] = m as unknown as [string, string, string];
    const value = literalValue(raw, root, dir, seen);
    seen.set(name, seen.has(name) && seen.get(name) !== value ? null : value);
  }
  return new Map([...seen].filter((e): e is [string, string] => e[1] !== null));
}

const SCRIPT_DIR = /^\$\((?:cd\s+)?"?\$\(\s*dirname\s+"?(?:\$\{BASH_SOURCE(?:\[0\])?\}|\$BASH_SOURCE|\$\{0\}|\$0)"?\s*\)"?(?:\s*(?:&&|;)\s*pwd(?:\s+-P)?)?\s*\)$|^\$\(\s*dirname\s+"?(?:\$\{BASH_SOURCE(?:\[0\])?\}|\$BASH_SOURCE|\$\{0\}|\$0)"?\s*\)$/;
const REPO_ROOT = /^\$\(\s*git\s+rev-parse\s+--show-toplevel\s*\)$/;

function literalValue(raw: string, root: string, dir: string, known: Map<string, string | null>): string | null {
  const v = /^"(.*)"$/.test(raw) ? raw.slice(1, -1) : /^'(.*)'$/.test(raw) ? raw.slice(1, -1) : raw;
  if (SCRIPT_DIR.test(v)) return dir;
  if (REPO_ROOT.test(v)) return root;
  if (/[`(]|\$\{[^}]*[:#%/]/.test(v) || /\s/.test(v)) return null;
  const expanded = expandVariables(v, new Map([...known].filter((e): e is [string, string] => e[1] !== null)));
  return /\$/.test(expanded) ? null : expanded;
}

/** `$NAME` and `${NAME}` replaced by the values `vars` knows; others left as they are. */
export const expandVariables = (word: string, vars: ReadonlyMap<string, string>): string =>
  vars.size === 0 ? word : word.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (all, a?: string, b?: string) => vars.get((a ?? b)!) ?? all);

interface Command {
  applied: string[];
  waited: string[];
  chart?: { release: string; chart: string; namespace: string | null };
  /** The argument that is a variable, when the command cannot be read. */
  unreadable?: string;
}

/** One logical line per command (backslash continuations joined; `&&`, `;` and `|` split), as words. */
function commands(text: string): { line: number; words: string[] }[] {
  const out: { line: number; words: string[] }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let l = lines[i]!;
    while (/\\\s*$/.test(l) && i + 1 < lines.length) l = l.replace(/\\\s*$/, ' ') + lines[++i]!;
    l = l.replace(/^\s*(-\s+(cmd:\s*)?|cmd:\s*|[@-]+)/, '').replace(/(^|\s)#.*$/, '');
    for (const part of l.split(/&&|\|\||;|\|/)) {
      const words = part.match(/"[^"]*"|'[^']*'|\S+/g)?.map((w) => w.replace(/^["']|["']$/g, '')) ?? [];
      if (words.length) out.push({ line: start + 1, words });
    }
  }
  return out;
}

const HELM_VALUE_FLAGS = new Set(['-n', '--namespace', '--version', '-f', '--values', '--set', '--set-string', '--set-file', '--set-json', '--repo', '--timeout', '--kube-context', '--kubeconfig', '--post-renderer', '--description', '--username', '--password']);
const isVar = (s: string) => /\$|\{\{/.test(s);

function readCommand(words: string[]): Command | null {
  const i = words.findIndex((w) => /(^|\/)(kubectl|helm)$/.test(w));
  if (i < 0) return null;
  const tool = path.basename(words[i]!);
  const args = words.slice(i + 1);
  const out: Command = { applied: [], waited: [] };
  if (tool === 'kubectl') {
    const sub = args.find((a) => !a.startsWith('-'));
    if (sub === 'wait') {
      for (const a of args) {
        const m = /^(?:crd|customresourcedefinition)s?(?:\.apiextensions\.k8s\.io)?\/[a-z0-9-]+\.(.+)$/.exec(a);
        if (m) out.waited.push(m[1]!);
      }
      return out.waited.length ? out : null;
    }
    if (sub !== 'apply' && sub !== 'create') return null;
    for (let j = 0; j < args.length; j++) {
      const a = args[j]!;
      const eq = /^--(?:filename|kustomize)=(.+)$/.exec(a);
      const t = eq ? eq[1]! : (a === '-f' || a === '-k' || a === '--filename' || a === '--kustomize') && args[j + 1] ? args[++j]! : null;
      if (t === null || t === '-') continue;
      if (isVar(t)) return { ...out, unreadable: t };
      out.applied.push(t);
    }
    return out.applied.length ? out : null;
  }
  const sub = args[0];
  const upsert = sub === 'install' || (sub === 'upgrade' && args.includes('--install')) || sub === 'template';
  if (!upsert) return null;
  const positional: string[] = [];
  let namespace: string | null = null;
  for (let j = 1; j < args.length; j++) {
    const a = args[j]!;
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, null];
    if (HELM_VALUE_FLAGS.has(flag)) {
      const v = inline ?? args[++j] ?? '';
      if (flag === '-n' || flag === '--namespace') namespace = v;
    } else if (!a.startsWith('-')) {
      positional.push(a);
    }
  }
  const [release, chart] = positional;
  if (!release || !chart) return null;
  if (isVar(chart)) return { ...out, unreadable: chart };
  return { ...out, chart: { release: isVar(release) ? chart.split('/').pop()! : release, chart, namespace: namespace && !isVar(namespace) ? namespace : null } };
}
