import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The design's own rules: the CLI reads everything, the runner talks only to the cluster, only src/cli/main.ts ends
// the process, and each folder imports only the folders beneath it (no folder cycles).

const SRC = path.resolve(import.meta.dirname, '../src');
const files = (dir: string): string[] => readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f));

/** Every relative module a file imports: `import ... from`, `export ... from`, `import '...'` and `await import('...')`. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [
    ...text.matchAll(/^\s*(?:import|export)\b[^;'"]*?\bfrom\s*'([^']+)'/gm),
    ...text.matchAll(/^\s*import\s*'([^']+)'/gm),
    ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
  ].map((m) => m[1]!);
  return specs.filter((s) => s.startsWith('.')).map((s) => path.resolve(path.dirname(file), s));
}

/**
 * What each folder of src/ may import besides itself: the layers from the pure core (model, graph, status, plan,
 * lint) to the edges (reading the repository, talking to the cluster, running, showing, parsing flags). A folder
 * not listed here fails the test, so a new one has to say where it sits.
 */
const LAYERS: Record<string, readonly string[]> = {
  model: [],
  graph: ['model'],
  status: ['model'],
  plan: ['model', 'graph'],
  lint: ['model', 'graph', 'plan'],
  // Repairs check's findings as file edits (standup fix): pure, the files handed in.
  fix: ['model', 'graph', 'plan', 'lint'],
  // Reading a repository, in stages: its files (git, tiers.yaml, YAML, kustomization files), the caches, the
  // clusters it holds, rendering them, what it installs before Flux, and the load that runs the stages.
  repo: ['model'],
  // Go's text/template and slim-sprig (pure), and flux-operator's ResourceSet expansion built on it.
  gotemplate: [],
  resourceset: ['model', 'repo', 'gotemplate'],
  cache: ['model', 'repo'],
  discover: ['model', 'repo', 'resourceset'],
  render: ['model', 'repo', 'cache', 'discover', 'resourceset'],
  bootstrap: ['model', 'repo'],
  load: ['model', 'repo', 'cache', 'discover', 'render', 'bootstrap'],
  cluster: ['model'],
  runner: ['model', 'graph', 'status', 'plan', 'cluster'],
  ui: ['model', 'graph', 'status', 'plan', 'lint', 'fix', 'runner'],
  cli: ['model', 'graph', 'status', 'plan', 'lint', 'fix', 'repo', 'cache', 'discover', 'render', 'bootstrap', 'load', 'cluster', 'runner', 'ui'],
};

const folderOf = (abs: string) => path.relative(SRC, abs).split(path.sep)[0]!;

describe('structure', () => {
  it('sees every import form: static, type-only, re-exports and await import()', () => {
    const dir = path.join(SRC, 'cli');
    const seen = importsOf(path.join(dir, 'main.ts')).concat(files(dir).flatMap(importsOf)).map(folderOf);
    // cli/main.ts loads the commands lazily; at least one dynamic import must be seen for the rule below to mean much.
    expect(readFileSync(path.join(dir, 'main.ts'), 'utf8') + files(dir).map((f) => readFileSync(f, 'utf8')).join('\n')).toMatch(/await import\('/);
    expect(new Set(seen).size).toBeGreaterThan(3);
  });

  it('each folder imports only the folders beneath it (the layer table is itself without cycles)', () => {
    const offenders: string[] = [];
    for (const f of files(SRC)) {
      const from = folderOf(f);
      if (!(from in LAYERS)) {
        offenders.push(`${path.relative(SRC, f)}: folder ${from} has no place in LAYERS`);
        continue;
      }
      for (const target of importsOf(f)) {
        const to = folderOf(target);
        if (to !== from && !LAYERS[from]!.includes(to)) offenders.push(`${path.relative(SRC, f)} -> ${path.relative(SRC, target)}`);
      }
    }
    expect(offenders).toEqual([]);
    // The table is a DAG: following allowed imports never comes back to the start.
    const reach = (from: string, seen = new Set<string>()): Set<string> => {
      for (const to of LAYERS[from] ?? []) if (!seen.has(to)) reach(to, seen.add(to));
      return seen;
    };
    expect(Object.keys(LAYERS).filter((f) => reach(f).has(f))).toEqual([]);
  });

  it('no module under src/runner imports node:fs, node:child_process, execa or src/repo', () => {
    const offenders = files(path.join(SRC, 'runner')).flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/^import[^;]*from '([^']+)'/gm)].map((m) => m[1]!).filter((m) => /^(node:)?(fs|child_process)(\/|$)|^execa$|\/repo\//.test(m)).map((m) => `${path.relative(SRC, f)}: ${m}`),
    );
    expect(offenders).toEqual([]);
  });

  it('process.exit appears nowhere but src/cli/main.ts', () => {
    const offenders = files(SRC).filter((f) => !f.endsWith(path.join('cli', 'main.ts')) && readFileSync(f, 'utf8').includes('process.exit'));
    expect(offenders.map((f) => path.relative(SRC, f))).toEqual([]);
  });

  it('src/cluster/node-client.ts and its parts are the only client-node importers that talk to the API', () => {
    const importers = files(SRC).filter((f) => /from '@kubernetes\/client-node'/.test(readFileSync(f, 'utf8'))).map((f) => path.relative(SRC, f)).sort();
    expect(importers).toEqual(['cluster/kubeconfig.ts', 'cluster/node-client.ts', 'cluster/node-errors.ts', 'cluster/raw-api.ts', 'cluster/watch-transport.ts']);
  });
});
