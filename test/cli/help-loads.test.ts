import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// `standup --help` (and every command's --help) builds the whole command tree, so it loads every command file. What
// those files import before an action runs must stay small: an action imports the repository loader, the rules,
// the renderers or the cluster client when it runs (`await import()`), so help stays instant.

const SRC = path.resolve(import.meta.dirname, '../../src');

/** The modules `file` loads when it is loaded: static imports and re-exports, not `import type` nor `await import()`. */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^;'"]*?\bfrom\s*'([^']+)'|^\s*import\s*'([^']+)'/gm)].map((m) => (m[1] ?? m[2])!);
}

function closure(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts'));
      else packages.add(spec);
    }
  };
  visit(entry);
  return { files: [...files].map((f) => path.relative(SRC, f)).sort(), packages: [...packages].sort() };
}

describe('what the command tree loads', () => {
  const { files, packages } = closure(path.join(SRC, 'cli/main.ts'));

  it('every command file, and besides them only the CLI\'s own plumbing, the model and the load session', () => {
    expect(files).toEqual(expect.arrayContaining(['cli/commands/plan.ts', 'cli/commands/check.ts', 'cli/commands/up.ts', 'cli/commands/version.ts']));
    // runCli opens a load session for every command (node's own modules only); the loads themselves come later.
    const session = ['load/load-session.ts', 'cache/parse-memo.ts', 'cache/standup-build-id.ts'];
    const heavy = files.filter((f) => !/^(cli\/|model\/|ui\/(document|style)\.ts$)/.test(f) && !session.includes(f));
    expect(heavy).toEqual([]);
    expect(files.filter((f) => /^cli\/(load-and-plan|read-run-target|check-repository|run-command|secrets|completion-script)\.ts$/.test(f))).toEqual([]);
  });

  it('no package but commander', () => {
    expect(packages.filter((p) => !p.startsWith('node:'))).toEqual(['@commander-js/extra-typings']);
  });
});
