// Every example in the help of the commands that read a repository (plan, graph, check, fix, diff) runs as written
// on repositories other than the bundled example: copies of corpus entries made into git repositories (a branch
// `main` with two commits, for --base and --from HEAD~1), with `standup` on PATH running the source.
import { execa } from 'execa';
import { chmodSync, cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusRoot, projectRoot } from './corpus.js';

const COMMANDS = ['plan', 'graph', 'check', 'fix', 'diff'];
// Entries check finds no error in, so every example's documented exit code is 0 (diff --exit-code: 0 or 1).
const REPOSITORIES = ['fluxcd__flux2-kustomize-helm-example', 'controlplaneio-fluxcd__d1-fleet'];

let bin: string;
const dirs: string[] = [];
const env = () => ({ PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1', CI: 'true', HOME: process.env.HOME ?? os.tmpdir() });

beforeAll(() => {
  bin = mkdtempSync(path.join(os.tmpdir(), 'standup-bin-'));
  dirs.push(bin);
  writeFileSync(path.join(bin, 'standup'), `#!/bin/sh\nexec ${process.execPath} --import ${path.join(projectRoot, 'node_modules/tsx/dist/esm/index.mjs')} ${path.join(projectRoot, 'src/cli/main.ts')} "$@"\n`);
  chmodSync(path.join(bin, 'standup'), 0o755);
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The example lines of a command's help, each without its comment (two spaces or more end the command). */
async function examplesOf(cmd: string): Promise<string[]> {
  const help = (await execa(path.join(bin, 'standup'), [cmd, '--help'], { env: env() })).stdout;
  return help.split('Examples:\n')[1]!.split('\n\n')[0]!.split('\n').filter((l) => l.startsWith('  standup ')).map((l) => l.trim().split(/\s{2,}/)[0]!);
}

async function gitCopy(entry: string): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `standup-help-${entry}-`));
  dirs.push(dir);
  cpSync(path.join(corpusRoot, entry), dir, { recursive: true, filter: (src) => path.basename(src) !== '.git' });
  const git = (...args: string[]) => execa('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: dir });
  await git('init', '-q', '-b', 'main');
  await git('add', '-A');
  await git('commit', '-qm', 'the entry');
  await git('commit', '-q', '--allow-empty', '-m', 'a second commit');
  return dir;
}

describe.each(REPOSITORIES)('the help examples on %s', (entry) => {
  it('every example of plan, graph, check, fix and diff runs as written, with its documented exit code', async () => {
    const dir = await gitCopy(entry);
    const failures: string[] = [];
    let ran = 0;
    for (const cmd of COMMANDS) {
      const examples = await examplesOf(cmd);
      expect(examples.length, cmd).toBeGreaterThan(0);
      // No example may name what only the bundled example has.
      expect(examples.filter((e) => /examples\/|test\/fixtures|--cluster (dev|prod)\b/.test(e)), cmd).toEqual([]);
      for (const ex of examples) {
        const r = await execa('bash', ['-c', ex], { cwd: dir, reject: false, env: env() });
        ran++;
        const ok = ex.includes('--exit-code') ? [0, 1].includes(r.exitCode!) : r.exitCode === 0;
        if (!ok) failures.push(`${ex} -> exit ${r.exitCode}: ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
      }
    }
    expect(failures).toEqual([]);
    expect(ran).toBeGreaterThan(20);
    // What the examples say they write, they wrote.
    for (const f of ['graph.mmd', 'graph.dot', 'standup.sarif', '.standup-baseline.json', 'fix.patch', 'order.txt']) expect(existsSync(path.join(dir, f)), f).toBe(true);
  }, 600_000);
});
