import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The design's own rule (issue 11, structure): the CLI reads everything, the runner talks only to the cluster, and
// only src/cli/main.ts ends the process.

const SRC = path.resolve(import.meta.dirname, '../src');
const files = (dir: string): string[] => readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f));

describe('structure', () => {
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
