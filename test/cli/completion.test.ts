import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, PROJECT } from './run.js';

// The bash script is run by bash, completing words as the shell would (COMP_WORDS/COMP_CWORD, then the function);
// `standup` on PATH is the source through tsx, for the words it is asked (--cluster). zsh and fish are not on every
// machine, so their scripts are checked for what they must offer; both were also tried by hand in those shells.
let bin: string;
let script: string;

beforeAll(async () => {
  bin = mkdtempSync(path.join(tmpdir(), 'standup-completion-'));
  const loader = import.meta.resolve('tsx');
  writeFileSync(path.join(bin, 'standup'), `#!/bin/sh\nexec "${process.execPath}" --import ${loader} "${path.join(PROJECT, 'src/cli/main.ts')}" "$@"\n`);
  chmodSync(path.join(bin, 'standup'), 0o755);
  script = (await cli('completion', 'bash')).stdout;
});

afterAll(() => rmSync(bin, { recursive: true, force: true }));

/** What bash offers for the last word of `line` (a trailing space starts a new, empty word). */
async function complete(line: string): Promise<string[]> {
  const words = line.split(' ');
  const program = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _standup_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = await execa('bash', ['--norc', '--noprofile', '-c', program], { cwd: PROJECT, env: { PATH: `${bin}:${process.env.PATH}` } });
  return r.stdout.split('\n').filter(Boolean).sort();
}

describe('standup completion bash', () => {
  it.each([
    ['standup pl', ['plan']],
    ['standup ', ['check', 'completion', 'crds', 'diff', 'explain', 'fix', 'graph', 'help', 'init', 'plan', 'reset', 'resume', 'status', 'up', 'version']],
    ['standup plan -o ', ['json', 'markdown', 'text', 'wide', 'yaml']],
    ['standup --repo . graph --output m', ['mermaid']],
    ['standup diff --ex', ['--exit-code']],
    ['standup completion ', ['bash', 'fish', 'zsh']],
    ['standup plan --cluster ', ['dev', 'prod']],
    ['standup --cluster dev status -o ', ['json', 'text', 'wide', 'yaml']],
    ['standup version --', ['--client', '--cluster', '--context', '--help', '--kubeconfig', '--local-source', '--no-cache', '--output', '--path', '--repo', '--request-timeout', '--source', '--verbose']],
  ])('%j', async (line, expected) => {
    expect(await complete(line)).toEqual(expected);
  });

  it('offers the program\'s --version before a command only', async () => {
    expect(await complete('standup --ver')).toEqual(['--verbose', '--version']);
    expect(await complete('standup plan --ver')).toEqual(['--verbose']);
  });

  it('is valid bash', async () => {
    await execa('bash', ['-n'], { input: script });
  });
});

describe('standup completion zsh and fish', () => {
  it('zsh: a #compdef function with every command and, per command, what -o takes', async () => {
    const zsh = (await cli('completion', 'zsh')).stdout;
    expect(zsh.startsWith('#compdef standup\n')).toBe(true);
    for (const c of ['plan', 'graph', 'check', 'fix', 'diff', 'up', 'resume', 'crds', 'status', 'reset', 'version', 'explain', 'init', 'completion']) {
      expect(zsh).toContain(`      (${c})\n`);
      expect(zsh).toMatch(new RegExp(`^    '${c}:`, 'm'));
    }
    const plan = zsh.slice(zsh.indexOf('      (plan)'), zsh.indexOf('      (graph)'));
    expect(plan).toContain(":format:(text wide json yaml markdown)'");
    expect(plan).toContain("'*--cluster[");
    expect(plan).toContain('{compadd -- $(standup __complete clusters 2>/dev/null)}');
    // Options after the command belong to the command, not to the program.
    expect(zsh).toContain("_arguments -C -A '-*'");
  });

  it('fish: subcommands, and each command\'s flags only after it', async () => {
    const fish = (await cli('completion', 'fish')).stdout;
    expect(fish).toContain('complete -c standup -n "not __fish_seen_subcommand_from plan graph check fix diff up resume crds status reset version explain init completion help" -a plan');
    expect(fish).toContain(`complete -c standup -n "__fish_seen_subcommand_from diff" -l exit-code -d 'exit 1 when the graph changed or a revision adds an error (as git diff --exit-code), 0 when neither'`);
    expect(fish).toContain(`complete -c standup -n "__fish_seen_subcommand_from plan" -s o -l output -x -a 'text wide json yaml markdown'`);
    expect(fish).toContain(`-l cluster -x -a '(standup __complete clusters 2>/dev/null)'`);
  });

  it('an unknown shell is exit 2 naming the choices', async () => {
    const r = await cli('completion', 'powershell');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no completion for shell "powershell"');
    expect(r.stderr).toContain('bash, zsh, fish');
  });

  it('__complete clusters lists tiers.yaml\'s clusters, or the discovered ones', async () => {
    expect((await cli('__complete', 'clusters')).stdout).toBe('dev\nprod\n');
    expect((await cli('__complete', 'clusters', '--repo', path.join(PROJECT, 'test/fixtures/repo/flux-rules'))).stdout).toBe('dev\n');
  });
});
