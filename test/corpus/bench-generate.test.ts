// The up benchmark runs real graphs made inert (scripts/bench/up): for each of its corpus entries, `standup plan -o
// json` on the generated repository must give the same Kustomizations, dependsOn edges, nesting and levels as on the
// corpus entry itself, and `standup check` must find no error in it (a cold start would refuse one).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { CORPUS_GRAPHS, corpusGraph, type CorpusGraphName } from '../../scripts/bench/up/corpus-graph.js';
import { BENCH_CLUSTER, generateRepository, nameProblems, writeFiles } from '../../scripts/bench/up/generate.js';
import { releaseCount, specProblems } from '../../scripts/bench/up/graph-spec.js';
import { corpusRoot, projectRoot } from './corpus.js';

interface PlanJson {
  clusters: { levels: string[][]; tiers: string[]; kustomizations: { key: string; dependsOn: string[]; parent: string | null; level: number | null }[] }[];
}

const standup = async (args: string[]) => {
  const r = await execa(process.execPath, [path.join(projectRoot, 'bin/standup.js'), ...args], { cwd: projectRoot, reject: false, env: { ...process.env, CI: 'true', NO_COLOR: '1' } });
  return r;
};
const plan = async (args: string[]): Promise<PlanJson['clusters'][number]> => {
  const r = await standup(['plan', ...args, '-o', 'json']);
  return (JSON.parse(r.stdout) as PlanJson).clusters[0]!;
};
const edges = (p: PlanJson['clusters'][number]) => p.kustomizations.flatMap((k) => k.dependsOn.map((d) => `${k.key} -> ${d}`)).sort();
const parents = (p: PlanJson['clusters'][number]) => p.kustomizations.map((k) => `${k.key} <- ${k.parent}`).sort();

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe.each(Object.keys(CORPUS_GRAPHS) as CorpusGraphName[])('the generated %s', (name) => {
  it('has the corpus entry\'s graph: keys, dependsOn edges, parents, levels, TIER_ORDER', async () => {
    const g = await corpusGraph(name);
    expect(specProblems(g)).toEqual([]);
    expect(nameProblems(g)).toEqual([]);
    expect(releaseCount(g)).toBeGreaterThan(50);
    const dir = mkdtempSync(path.join(os.tmpdir(), `standup-bench-${name}-`));
    dirs.push(dir);
    writeFiles(dir, generateRepository(g, { gitUrl: (r) => `http://127.0.0.1:9/${r}.git`, chartUrl: 'http://127.0.0.1:9/charts/bench', seed: 1, context: 'standup-testbed' }).files);
    const c = CORPUS_GRAPHS[name];
    const [real, generated] = await Promise.all([plan(['--repo', path.join(corpusRoot, c.dir), '--path', c.entry]), plan(['--repo', dir, '--cluster', BENCH_CLUSTER])]);
    expect(generated.kustomizations.map((k) => k.key).sort()).toEqual(real.kustomizations.map((k) => k.key).sort());
    expect(edges(generated)).toEqual(edges(real));
    expect(parents(generated)).toEqual(parents(real));
    expect(generated.levels).toEqual(real.levels);
    expect(generated.tiers).toEqual(real.tiers);
    // The counts INDEX.md gives for these entries.
    expect({ ks: real.kustomizations.length, edges: edges(real).length }).toEqual({ sulibot: { ks: 135, edges: 340 }, joryirving: { ks: 160, edges: 60 }, 'bjw-s': { ks: 93, edges: 63 } }[name]);

    const check = await standup(['check', '--repo', dir, '--cluster', BENCH_CLUSTER, '-o', 'json']);
    const problems = (JSON.parse(check.stdout) as { problems: { severity: string; code: string; message: string }[] }).problems;
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(check.exitCode).toBe(0);
  });
});
