// `standup completion bash|zsh|fish`: shell scripts generated from the command tree itself, so a new command or flag
// completes without anyone editing a script. Values: -o per command, --cluster and --context asked from standup
// (`standup __complete clusters|contexts`, which read tiers.yaml and the kubeconfig, never a cluster), paths for
// the flags that take files or directories.

/** One flag of one command as the completion scripts need it. */
export interface FlagSpec {
  short?: string;
  long?: string;
  /** Takes a value (`--cluster NAME`); false for switches. */
  value: boolean;
  description: string;
}

export interface CommandSpec {
  name: string;
  description: string;
  flags: FlagSpec[];
  /** What -o accepts here (empty: the command has no -o). */
  formats: string[];
  /** Words for the first positional argument (completion's shells). */
  words: string[];
}

export interface CompletionSpec {
  program: string;
  globals: FlagSpec[];
  commands: CommandSpec[];
}

/** How a flag's value completes. */
type ValueKind = 'formats' | 'clusters' | 'contexts' | 'dirs' | 'files' | 'none';

const VALUE_KINDS: Record<string, ValueKind> = {
  '--output': 'formats',
  '--cluster': 'clusters',
  '--context': 'contexts',
  '--repo': 'dirs',
  '--path': 'dirs',
  '--kubeconfig': 'files',
  '--record': 'files',
  '--legacy-order': 'files',
};

const valueKind = (f: FlagSpec): ValueKind => (f.long ? VALUE_KINDS[f.long] : undefined) ?? 'none';
const names = (f: FlagSpec): string[] => [f.short, f.long].filter((x): x is string => !!x);
/** Single quotes for any shell here: the text is ours (help strings), but a quote in it must not end the string. */
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

export function completionScript(shell: 'bash' | 'zsh' | 'fish', spec: CompletionSpec): string {
  return shell === 'bash' ? bash(spec) : shell === 'zsh' ? zsh(spec) : fish(spec);
}

function bash(spec: CompletionSpec): string {
  const p = spec.program;
  const fn = `_${p.replace(/[^A-Za-z0-9_]/g, '_')}_complete`;
  const valueFlags = (flags: FlagSpec[]) => flags.filter((f) => f.value).flatMap(names);
  const allValueFlags = [...new Set([...valueFlags(spec.globals), ...spec.commands.flatMap((c) => valueFlags(c.flags))])];
  const byKind = (kind: ValueKind) => [...new Set([...spec.globals, ...spec.commands.flatMap((c) => c.flags)].filter((f) => valueKind(f) === kind).flatMap(names))].join('|');
  const cmdCases = spec.commands
    .map((c) => `    ${c.name}) flags=${sq(c.flags.flatMap(names).join(' '))}; formats=${sq(c.formats.join(' '))}; words=${sq(c.words.join(' '))} ;;`)
    .join('\n');
  return `# ${p} completion for bash. Load it in this shell:   source <(${p} completion bash)
# or for every shell:  ${p} completion bash > ~/.local/share/bash-completion/completions/${p}
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local commands=${sq(spec.commands.map((c) => c.name).join(' '))}
  local cmd="" i word skip=0
  # The command is the first word that is not a flag or a flag's value.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$word" in
      ${allValueFlags.join('|')}) skip=1 ;;
      -*) ;;
      *) if [[ -z "$cmd" ]]; then cmd="$word"; fi ;;
    esac
  done
  local flags=${sq(spec.globals.flatMap(names).join(' '))} formats="" words=""
  case "$cmd" in
${cmdCases}
  esac
  case "$prev" in
    ${byKind('formats')}) COMPREPLY=($(compgen -W "$formats" -- "$cur")); return ;;
    ${byKind('clusters')}) COMPREPLY=($(compgen -W "$(${p} __complete clusters 2>/dev/null)" -- "$cur")); return ;;
    ${byKind('contexts')}) COMPREPLY=($(compgen -W "$(${p} __complete contexts 2>/dev/null)" -- "$cur")); return ;;
    ${byKind('dirs')}) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")); return ;;
    ${byKind('files')}) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")); return ;;
    ${allValueFlags.join('|')}) COMPREPLY=(); return ;;
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$flags" -- "$cur")); return; fi
  if [[ -z "$cmd" ]]; then COMPREPLY=($(compgen -W "$commands" -- "$cur")); return; fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F ${fn} ${p}
`;
}

function zsh(spec: CompletionSpec): string {
  const p = spec.program;
  const action = (f: FlagSpec, formats: string[]): string => {
    switch (valueKind(f)) {
      case 'formats': return formats.length ? `:format:(${formats.join(' ')})` : ':format: ';
      case 'clusters': return `:cluster:{compadd -- $(${p} __complete clusters 2>/dev/null)}`;
      case 'contexts': return `:context:{compadd -- $(${p} __complete contexts 2>/dev/null)}`;
      case 'dirs': return ':directory:_files -/';
      case 'files': return ':file:_files';
      default: return f.value ? ':value: ' : '';
    }
  };
  // `'(-o --output)'{-o,--output}'[description]:format:(text json)'`: the exclusion list, both names, then the action.
  const arg = (f: FlagSpec, formats: string[]) => {
    const rest = `[${oneLine(f.description).replace(/[[\]:\\]/g, '\\$&')}]${action(f, formats)}`;
    const ns = names(f);
    // A repeatable flag (--cluster) is offered again after its first use.
    if (f.long === '--cluster') return `    ${sq(`*${ns[0]!}${rest}`)}`;
    return ns.length > 1 ? `    '(${ns.join(' ')})'{${ns.join(',')}}${sq(rest)}` : `    ${sq(ns[0]! + rest)}`;
  };
  const commands = spec.commands.map((c) => `    ${sq(`${c.name}:${oneLine(c.description).replace(/:/g, '\\:')}`)}`).join('\n');
  const cases = spec.commands.map((c) => {
    const words = c.words.length ? ` \\\n    ${sq(`1:argument:(${c.words.join(' ')})`)}` : '';
    return `  (${c.name})\n    _arguments -s \\\n${c.flags.map((f) => arg(f, c.formats)).join(' \\\n')}${words} \\\n    '*:: :_default'\n    ;;`;
  }).join('\n');
  return `#compdef ${p}
# ${p} completion for zsh. Load it in this shell:   source <(${p} completion zsh)
# or install it:  ${p} completion zsh > "\${fpath[1]}/_${p}"   (then restart zsh)
_${p}() {
  local -a commands
  commands=(
${commands}
  )
  local curcontext="$curcontext" state line
  _arguments -C -A '-*' \\
${spec.globals.map((f) => arg(f, [])).join(' \\\n')} \\
    '1: :->command' \\
    '*:: :->args'
  case $state in
  (command) _describe -t commands '${p} command' commands ;;
  (args)
    case $line[1] in
${cases.replace(/^/gm, '    ')}
    esac
    ;;
  esac
}
if [[ "\${funcstack[1]}" == "_${p}" ]]; then _${p} "$@"; else compdef _${p} ${p}; fi
`;
}

function fish(spec: CompletionSpec): string {
  const p = spec.program;
  const lines = [
    `# ${p} completion for fish. Load it in this shell:   ${p} completion fish | source`,
    `# or install it:  ${p} completion fish > ~/.config/fish/completions/${p}.fish`,
    `complete -c ${p} -f`,
  ];
  const flag = (f: FlagSpec, cond: string, formats: string[]) => {
    const parts = [`complete -c ${p}`, cond];
    if (f.short) parts.push(`-s ${f.short.slice(1)}`);
    if (f.long) parts.push(`-l ${f.long.slice(2)}`);
    const kind = valueKind(f);
    // -x: takes a value and offers no file names unless asked (-F); -r -F: a file.
    if (f.value) parts.push(kind === 'files' ? '-r' : '-x');
    if (kind === 'formats') parts.push(`-a ${sq(formats.join(' '))}`);
    if (kind === 'clusters') parts.push(`-a '(${p} __complete clusters 2>/dev/null)'`);
    if (kind === 'contexts') parts.push(`-a '(${p} __complete contexts 2>/dev/null)'`);
    if (kind === 'dirs') parts.push(`-a '(__fish_complete_directories)'`);
    if (kind === 'files') parts.push('-F');
    parts.push(`-d ${sq(oneLine(f.description))}`);
    return parts.join(' ');
  };
  const subs = spec.commands.map((c) => c.name).join(' ');
  for (const c of spec.commands) lines.push(`complete -c ${p} -n "not __fish_seen_subcommand_from ${subs}" -a ${c.name} -d ${sq(oneLine(c.description))}`);
  const top = `-n "not __fish_seen_subcommand_from ${subs}"`;
  for (const f of spec.globals) lines.push(flag(f, top, []));
  for (const c of spec.commands) {
    const cond = `-n "__fish_seen_subcommand_from ${c.name}"`;
    for (const f of c.flags) lines.push(flag(f, cond, c.formats));
    if (c.words.length) lines.push(`complete -c ${p} ${cond} -a ${sq(c.words.join(' '))}`);
  }
  return lines.join('\n') + '\n';
}
