import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { specOf } from '../../src/cli/commands/completion.js';
import { buildProgram } from '../../src/cli/program.js';
import { plainStyle } from '../../src/ui/style.js';
import { readAction } from './action-runner.js';

// What a user copies must work with this version: the README's workflow and pre-commit snippet, the hook manifest.
const PROJECT = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(PROJECT, 'package.json'), 'utf8')) as { name: string; version: string };
const readme = readFileSync(path.join(PROJECT, 'README.md'), 'utf8');
const action = readAction(path.join(PROJECT, 'action.yml'));
const yamlBlocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
const workflow = parse(yamlBlocks.find((b) => b.includes('jobs:'))!) as { on: unknown; jobs: Record<string, { steps: { uses?: string; with?: Record<string, string> }[] }> };
const program = specOf(buildProgram({ out: () => {}, err: () => {}, style: plainStyle, errStyle: plainStyle, isTTY: false, env: {}, cwd: PROJECT }, () => {}), () => []);

describe('the README\'s GitHub Actions workflow', () => {
  const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
  const ours = steps.filter((s) => s.uses?.startsWith('standup-cli/standup@'));

  it('runs on pull requests and uses this action at this version', () => {
    expect(workflow.on).toHaveProperty('pull_request');
    expect(ours.length).toBeGreaterThan(0);
    for (const s of ours) expect(s.uses).toBe(`standup-cli/standup@v${pkg.version}`);
  });

  it('passes only inputs the action has, and commands with flags those commands take', () => {
    for (const s of ours) {
      for (const k of Object.keys(s.with ?? {})) expect(Object.keys(action.inputs)).toContain(k);
      const [command, ...args] = (s.with?.command ?? action.inputs.command!.default!).split(' ');
      const spec = program.commands.find((c) => c.name === command);
      expect(spec, `standup ${command}`).toBeDefined();
      const flags = new Set(spec!.flags.flatMap((f) => [f.short, f.long]));
      for (const a of args.filter((x) => x.startsWith('-'))) expect(flags, `standup ${command} ${a}`).toContain(a);
    }
  });

  it('documents every input of action.yml with its default', () => {
    for (const [name, input] of Object.entries(action.inputs).filter(([n]) => n !== 'github-token')) {
      const row = new RegExp(`^\\| \`${name}\` \\| ${input.default ? `\`${input.default.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\`` : "''"}? \\|`, 'm');
      expect(readme, `README row for input ${name}`).toMatch(row);
    }
  });
});

describe('pre-commit', () => {
  const hooks = parse(readFileSync(path.join(PROJECT, '.pre-commit-hooks.yaml'), 'utf8')) as { id: string; entry: string; language: string; pass_filenames: boolean; files: string }[];

  it('the hook runs check from this version of the package, once per commit, on YAML and kustomization changes', () => {
    const [hook] = hooks;
    expect(hook).toMatchObject({ id: 'standup-check', entry: `npx --yes ${pkg.name}@${pkg.version} check`, language: 'system', pass_filenames: false });
    const files = new RegExp(hook!.files);
    for (const f of ['clusters/dev/apps.yaml', 'tiers.yml', 'apps/Kustomization', 'apps/kustomization']) expect(files.test(f) || files.test(f.toLowerCase()), f).toBe(true);
    expect(files.test('README.md')).toBe(false);
  });

  it('the README\'s snippet names the hook and this version', () => {
    const config = parse(yamlBlocks.find((b) => b.includes('repos:'))!) as { repos: { repo: string; rev: string; hooks: { id: string }[] }[] };
    expect(config.repos[0]).toEqual({ repo: 'https://github.com/standup-cli/standup', rev: `v${pkg.version}`, hooks: [{ id: hooks[0]!.id }] });
  });
});
