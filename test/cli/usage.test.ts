import { execa } from 'execa';
import { existsSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { Io } from '../../src/cli/io.js';
import { plainStyle } from '../../src/ui/style.js';
import { cli, PROJECT } from './run.js';

// Usage errors, the reset confirmation, --timeout, and help that tells the truth.

/** A kubeconfig whose contexts (tiers.yaml's dev one, and `prod`) point at a port where nothing listens. */
function deadKubeconfig(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'standup-usage-'));
  const file = path.join(dir, 'kubeconfig');
  writeFileSync(file, `apiVersion: v1
kind: Config
clusters: [{name: t, cluster: {server: "https://127.0.0.1:9", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: standup-testbed, context: {cluster: t, user: u}}, {name: prod, context: {cluster: t, user: u}}]
current-context: standup-testbed
`);
  return file;
}

describe('usage errors exit 2 (not 1, "a step failed")', () => {
  it.each([
    ['a misspelled flag', ['plan', '--clutser', 'dev']],
    ['an extra argument', ['crds', 'extra']],
    ['a flag without its value', ['status', '--kubeconfig']],
    ['a global flag without its value', ['plan', '--cluster']],
    ['an unknown command', ['stand-up']],
  ])('%s', async (_n, args) => {
    const r = await cli(...args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/error: /);
  });
});

describe('--timeout', () => {
  it.each([['0s'], ['0m'], ['-5m'], ['soon']])('refuses %s with exit 2 before it connects', async (t) => {
    const r = await cli('resume', '--cluster', 'dev', '--kubeconfig', deadKubeconfig(), '--timeout', t);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--timeout|not a duration/);
  });
});

describe('the reset confirmation', () => {
  const io = (answer: string | null): { io: Io; out: () => string } => {
    let err = '';
    return {
      io: { out: () => {}, err: (t) => void (err += t), style: plainStyle, errStyle: plainStyle, isTTY: false, env: {}, cwd: PROJECT, ask: async () => answer },
      out: () => err,
    };
  };

  it('answered n: exit 4 ("refused"), nothing changed, and no cluster is contacted', async () => {
    const x = io('n');
    const code = await runCli(['reset', '--cluster', 'dev', '--kubeconfig', deadKubeconfig()], x.io);
    expect(code).toBe(4);
    expect(x.out()).toContain('nothing changed');
  });

  it('on a real terminal too (a pty: answer n, exit 4)', async () => {
    const r = await execa('script', ['-qec', `${process.execPath} --import tsx ${path.join(PROJECT, 'src/cli/main.ts')} reset --cluster dev --kubeconfig ${deadKubeconfig()}`, '/dev/null'], { cwd: PROJECT, input: 'n\n', reject: false, env: { NO_COLOR: '1', CI: '' } });
    expect(r.stdout).toContain('[y/N]');
    expect(r.stdout).toContain('nothing changed');
    expect(r.exitCode).toBe(4);
  });
});

describe('help', () => {
  it.each([['plan'], ['status'], ['up'], ['reset'], ['check']])('%s --help lists the global flags', async (cmd) => {
    const r = await cli(cmd, '--help');
    expect(r.code).toBe(0);
    for (const flag of ['--repo <dir>', '--cluster <name>', '--path <dir>']) expect(r.stdout).toContain(flag);
  });

  const sections = (help: string) => ({ own: help.split('\nOptions:\n')[1]!.split('\n\n')[0]!, global: help.split('\nGlobal Options:\n')[1]?.split('\n\n')[0] ?? '' });
  it.each([['check', ['text', 'sarif', 'github', 'markdown']], ['graph', ['text', 'mermaid', 'dot', 'json']], ['status', ['text', 'wide', 'json']]])(
    '%s --help lists -o among its own flags with its own formats, apart from the global flags', async (cmd, formats) => {
      const { own, global } = sections((await cli(cmd, '--help')).stdout);
      expect(own).toMatch(/-o, --output <format>\s+output format: /);
      const line = own.slice(own.indexOf('-o, --output')).split(/\n  -/)[0]!.replace(/\s+/g, ' ');
      for (const f of formats) expect(line).toContain(f);
      // Another command's formats are not offered here, and -o, -V are not global flags of a command.
      expect(line).not.toMatch(cmd === 'graph' ? /sarif/ : /mermaid/);
      expect(global).not.toMatch(/--output|--version/);
      expect(global).toMatch(/--repo <dir>/);
      expect(own).not.toMatch(/--repo/);
    });

  it('a command that reads no repository lists none of the repository flags; the program\'s own help keeps them all', async () => {
    for (const cmd of ['explain', 'version', 'completion']) {
      const { global } = sections((await cli(cmd, '--help')).stdout);
      expect(global, cmd).not.toMatch(/--repo|--cluster|--path|--no-cache/);
      expect(global, cmd).toMatch(/--verbose/);
    }
    const top = (await cli('--help')).stdout;
    for (const flag of ['-V, --version', '--repo <dir>', '-o, --output <format>']) expect(top).toContain(flag);
  });

  it('status --help describes its own --timeout, not per-tier timeouts', async () => {
    const r = await cli('status', '--help');
    expect(r.stdout).not.toMatch(/per-tier|each tier also has its own timeout/);
    expect(r.stdout).toMatch(/--timeout <duration>\s+how long to wait for the API server/);
  });

  // Every example of the commands that need no cluster runs as written from the project root (fix renders each
  // repository twice, once more for its re-check, hence the long limit on a shared machine; cluster commands'
  // examples run against the testbed: test/integration/help-examples.test.ts; completion's write into the shell's
  // own directories, so they are not run here).
  it('every example of plan, graph, check, fix, diff and version runs as written from the project root', async () => {
    const bin = mkdtempSync(path.join(tmpdir(), 'standup-bin-'));
    writeFileSync(path.join(bin, 'standup'), `#!/bin/sh\nexec ${process.execPath} --import tsx ${path.join(PROJECT, 'src/cli/main.ts')} "$@"\n`);
    chmodSync(path.join(bin, 'standup'), 0o755);
    const created = ['graph.mmd', 'graph.dot', 'standup.sarif', '.standup-baseline.json', 'fix.patch', 'order.txt'].map((f) => path.join(PROJECT, f));
    expect(created.filter(existsSync)).toEqual([]);
    const failures: string[] = [];
    try {
      for (const cmd of ['plan', 'graph', 'check', 'fix', 'diff', 'version']) {
        const help = (await cli(cmd, '--help')).stdout;
        const examples = help.split('Examples:\n')[1]!.split('\n\n')[0]!.split('\n').filter((l) => l.startsWith('  standup ')).map((l) => l.trim().split(/\s{2,}/)[0]!);
        expect(examples.length, cmd).toBeGreaterThan(0);
        expect(examples.filter((e) => /examples\/|test\/fixtures/.test(e)), `${cmd}: an example that runs only here`).toEqual([]);
        for (const ex of examples) {
          // No cluster here: version reports it cannot reach one and still exits 0, as its help says.
          const r = await execa('bash', ['-c', ex], { cwd: PROJECT, reject: false, env: { PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1', KUBECONFIG: deadKubeconfig() } });
          // diff --exit-code exits 1 when the graph changed; anything else is 0 (test/corpus/help-examples.test.ts runs
          // the same examples on other repositories).
          const ok = ex.includes('--exit-code') ? [0, 1].includes(r.exitCode!) : r.exitCode === 0;
          if (!ok) failures.push(`${ex} -> exit ${r.exitCode}: ${r.stderr.split('\n')[0]}`);
        }
      }
    } finally {
      for (const f of created) rmSync(f, { force: true });
      rmSync(bin, { recursive: true, force: true });
    }
    expect(failures).toEqual([]);
    // About 25 examples, each a process that loads the example repository (check --base twice): minutes on a busy 2-core machine.
  }, 480_000);
});

describe('an API server that refuses connections (the lead\'s case)', () => {
  it('status says so at once and exits 1, instead of printing nothing for a minute', async () => {
    const t0 = Date.now();
    const r = await cli('status', '--cluster', 'dev', '--kubeconfig', deadKubeconfig());
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('cannot reach the API server of context standup-testbed (https://127.0.0.1:9)');
    expect(Date.now() - t0).toBeLessThan(10_000);
  }, 70_000);

  it.each([['up'], ['resume'], ['crds']])('%s says so in its preflight and exits 1', async (cmd) => {
    const r = await cli(cmd, '--cluster', 'dev', '--kubeconfig', deadKubeconfig());
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('cannot reach the API server of context standup-testbed');
    // One message per fact: the server and its error said once, no "unreachable since ..., retrying" from a server
    // that never answered, right before the error that ends the run.
    expect(r.stderr.split('\n').filter((l) => l.startsWith('✗ cannot reach') || l.startsWith('cannot reach'))).toEqual(['✗ cannot reach the API server of context standup-testbed (https://127.0.0.1:9): ECONNREFUSED']);
    expect(r.stderr).not.toContain('retrying');
  });
});
