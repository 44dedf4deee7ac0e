import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { execa } from 'execa';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Socket, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { describe as describeFlux } from '../testbed/flux-client.js';
import { connect, type TestbedClient } from '../testbed/harness.js';
import { PROJECT, standup, standupProcess, standupWithin } from './cli.js';
import { serveFixture, type RepoSpec } from './fixture-repo.js';
import { kube, ready, until, type Ks } from './kube.js';
import { cleanupNamespace, deploymentYaml, settled } from './namespaced.js';

/**
 * Done with what it was asked: a verdict (Ready True or False), not Unknown "Reconciliation in progress". A failed
 * Kustomization keeps Reconciling=True (ProgressingWithRetry) and its old observedGeneration, so neither says "busy".
 */
const settledKs = (k: Ks): boolean => ['True', 'False'].includes(k.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? '');

// The runner at 2 a.m., on the real testbed. Each test has its own namespace and repository, and removes
// what it made. The never-pulled image keeps a Deployment unready either way: without a node its pods are never scheduled,
// with one (the default) they stop at ErrImageNeverPull.

let tb: TestbedClient;
let k: ReturnType<typeof kube>;
const made: { ns: string; dirs: string[] }[] = [];

const deployment = (name: string, ns: string, image = 'ghcr.io/fluxcd/never-pulled:v0') => deploymentYaml(name, ns, image);

/** A repository served on the testbed and checked out: standup reads `dir`, Flux fetches `url`. */
async function fixture(name: string, spec: RepoSpec) {
  const f = await serveFixture(tb.git, name, spec);
  made.push({ ns: spec.ns, dirs: [f.dir] });
  const t = (cmd: string, ...extra: string[]) => [cmd, '--repo', f.dir, '--cluster', 't', '--kubeconfig', tb.kubeconfigPath, ...extra];
  return { ...f, t };
}

const events = (r: { events: Record<string, unknown>[] }, type: string) => r.events.filter((e) => e.type === type);
const endOf = (r: { events: Record<string, unknown>[] }, id: string) => r.events.find((e) => e.type === 'step-end' && e.id === id);

beforeAll(() => {
  tb = connect(inject('testbed'));
  k = kube(tb.kubeConfig());
});

afterAll(async () => {
  for (const m of made) {
    await cleanupNamespace(tb.kubeConfig(), m.ns);
    for (const d of m.dirs) rmSync(d, { recursive: true, force: true });
  }
}, 600_000);

describe.sequential('refuse what cannot converge, before any write (items 1 and 2)', () => {
  it('an entry that does not build: up and resume exit 2 with check\'s messages, and nothing is written', async () => {
    const ns = 'r-entry';
    const f = await fixture('r-entry', {
      ns,
      tiers: {
        a: {},
        // A malformed dependsOn: the namespace line is indented wrongly, so the entry's kustomize build fails.
        b: { raw: `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: b\n  namespace: ${ns}\nspec:\n  interval: 10m\n  path: ./b\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: src\n  dependsOn:\n    - name: a\n   namespace: ${ns}\n` },
      },
    });
    const check = await standup(['check', '--repo', f.dir]);
    expect(check.code).toBe(2);
    for (const cmd of ['up', 'resume']) {
      const r = await standup(f.t(cmd));
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('keep this cluster from converging; nothing was written');
      // the same findings as check, in check's words
      for (const line of check.stdout.split('\n').filter((l) => /\b(error|warning) (build-failed|yaml-invalid)\b/.test(l))) expect(r.stderr).toContain(line);
    }
    expect(await k.namespace(ns)).toBeNull();
    expect(await k.gitRepository('src', ns)).toBeNull();
    const plan = await standup(['plan', '--repo', f.dir]);
    expect(plan.code).toBe(2);
    expect(plan.stdout).not.toContain('TIER_ORDER=');
  });

  it('a dependsOn cycle: up exits 2 and writes nothing; plan prints no order; --force goes on and says so', async () => {
    const ns = 'r-cycle';
    const f = await fixture('r-cycle', { ns, tiers: { a: { dependsOn: ['b'] }, b: { dependsOn: ['a'] }, c: {} } });
    const r = await standup(f.t('up', '-o', 'json'));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`dependency cycle: ${ns}/a -> ${ns}/b -> ${ns}/a`);
    expect(events(r, 'change')).toEqual([]);
    expect(await k.namespace(ns)).toBeNull();
    expect((await standup(['plan', '--repo', f.dir])).code).toBe(2);

    const forced = await standup(f.t('up', '--force', '--timeout', '20s', '-o', 'json'));
    expect(events(forced, 'log').map((e) => e.message).join('\n')).toContain('--force: ignoring');
    expect(forced.code, forced.stderr).toBe(3);
    expect(endOf(forced, `tier:${ns}/c`)?.result).toBe('ok');
    expect(endOf(forced, `tier:${ns}/a`)?.result).toBe('not-run');
  });
});

describe.sequential('a mirror that holds (item 3)', () => {
  it('up --source-url: the root source stays on the mirror through the root sync\'s re-applies, two minutes later too', async () => {
    const ns = 'r-mirror';
    // git's own URL is dead: only the mirror serves the repository.
    const f = await fixture('r-mirror', { ns, gitUrl: 'http://127.0.0.1:9/gone.git', tiers: { a: {} } });
    const r = await standup(f.t('up', '--source-url', f.url, '-o', 'json'));
    expect(r.code, r.stderr).toBe(0);
    const api = tb.kubeConfig().makeApiClient(CustomObjectsApi);
    const urls = new Set<string>();
    const until2min = Date.now() + 120_000;
    let asked = 0;
    while (Date.now() < until2min) {
      // make the root sync re-apply gotk-sync.yaml from git, as its interval would
      if (Date.now() > asked + 20_000) {
        asked = Date.now();
        await api.patchNamespacedCustomObject({ group: 'kustomize.toolkit.fluxcd.io', version: 'v1', plural: 'kustomizations', namespace: ns, name: 'root', body: { metadata: { annotations: { 'reconcile.fluxcd.io/requestedAt': new Date().toISOString() } } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
      }
      urls.add(String((await k.gitRepository('src', ns))?.spec?.url));
      await new Promise((x) => setTimeout(x, 2000));
    }
    expect([...urls]).toEqual([f.url]);
    const root = (await k.kustomizations(ns)).find((x) => x.metadata.name === 'root')!;
    expect(ready(root)).toBe(true);
    expect(root.status?.lastHandledReconcileAt).toBeDefined();
  }, 240_000);
});

describe.sequential('Ctrl-C and the API server going away (items 4 and 5)', () => {
  const slow = (ns: string): RepoSpec => ({
    ns,
    // KC's health check holds the Kustomization (and its deletion) for its whole timeout: short, for the clean-up.
    tiers: { a: {}, slow: { dependsOn: ['a'], wait: true, timeout: '45s', files: { 'deploy.yaml': deployment('web', ns) } } },
  });

  it('SIGINT on a real terminal: exit 130, the summary, the record and the resume hint', async () => {
    const f = await fixture('r-tty', slow('r-tty'));
    const record = path.join(f.dir, 'record.json');
    const cmd = `stty cols 120 rows 40; ${process.execPath} --import tsx ${path.join(PROJECT, 'src/cli/main.ts')} ${f.t('up', '--record', record).join(' ')}`;
    const child = execa('script', ['-qfec', cmd, '/dev/null'], { cwd: PROJECT, reject: false, env: { CI: '', NO_COLOR: '1', TERM: 'xterm' }, stdin: 'pipe' });
    let screen = '';
    child.stdout!.on('data', (d: Buffer) => (screen += d.toString()));
    await until('the slow tier to be waited on', async () => screen.includes('r-tty/slow (level 1)'), 60_000, 200);
    child.stdin!.write('\u0003'); // Ctrl-C, through the terminal's line discipline
    const done = await settled(child, 30_000);
    expect(done.exitCode, screen).toBe(130);
    expect(screen).toMatch(/LEVEL\s+STEP\s+RESULT\s+DURATION/);
    expect(screen).toMatch(/r-tty\/slow\s+interrupted/);
    expect(screen).toContain('Run `standup resume` to finish the job');
    expect(screen).not.toContain('TypeError');
    const rec = JSON.parse(readFileSync(record, 'utf8'));
    expect(rec.exitCode).toBe(130);
    expect(rec.steps.find((s: { id: string }) => s.id === 'tier:r-tty/a').result).toBe('ok');
  });

  it('SIGINT in plain mode: the same', async () => {
    const f = await fixture('r-plain', slow('r-plain'));
    const record = path.join(f.dir, 'record.json');
    const child = standupProcess(f.t('up', '--record', record));
    let out = '';
    child.all!.on('data', (d: Buffer) => (out += d.toString()));
    await until('the slow tier to be waited on', async () => out.includes('► r-plain/slow'), 60_000, 200).catch((e) => {
      throw new Error(`${e.message}; output so far:\n${out}`);
    });
    child.kill('SIGINT');
    const done = await settled(child, 30_000);
    expect(done.exitCode, out).toBe(130);
    expect(done.all).toMatch(/r-plain\/slow\s+interrupted/);
    expect(done.all).toContain('Run `standup resume` to finish the job');
    expect(JSON.parse(readFileSync(record, 'utf8')).exitCode).toBe(130);
  });

  it('says within seconds that the cluster is unreachable, says when it is back, and a timeout names the outage', async () => {
    const f = await fixture('r-away', slow('r-away'));
    const server = new URL(tb.server);
    const proxy = await tcpProxy(server.hostname, Number(server.port));
    const kubeconfig = path.join(f.dir, 'kubeconfig');
    writeFileSync(kubeconfig, readFileSync(tb.kubeconfigPath, 'utf8').replace(tb.server, `https://${server.hostname}:${proxy.port}`));
    const args = ['up', '--repo', f.dir, '--cluster', 't', '--kubeconfig', kubeconfig, '--timeout', '60s', '-o', 'json'];
    const child = standupProcess(args);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await until('the slow tier to be waited on', async () => out.includes('"type":"step-start","id":"tier:r-away/slow"'), 60_000, 200).catch((e) => {
      throw new Error(`${e.message}; output so far:\n${out.trim().split('\n').slice(-15).join('\n')}`);
    });
    const away = Date.now();
    proxy.down();
    await until('the outage to be reported', async () => out.includes('cluster unreachable since'), 20_000, 200);
    const noticedIn = Date.now() - away;
    await new Promise((x) => setTimeout(x, 4000));
    proxy.up();
    await until('the cluster to be back', async () => out.includes('cluster reachable again'), 30_000, 200);
    proxy.down(); // for good: the run's --timeout ends while it is away
    const done = await child;
    await proxy.close();
    expect(noticedIn).toBeLessThan(10_000);
    expect(done.exitCode, done.stderr).toBe(3);
    const end = out.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.type === 'run-end');
    expect(end.message).toMatch(/--timeout 1m ran out .*the API server has been unreachable since \d\d:\d\d:\d\d/);
    // One message per fact: gone, back, gone, each said once however many requests failed meanwhile; "since" is the
    // server's last answer, which came before the proxy went down.
    const said = out.split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.type === 'log' && /cluster (unreachable since|reachable again)/.test(e.message)).map((e) => e.message as string);
    expect(said.map((m) => (m.includes('unreachable since') ? 'gone' : 'back'))).toEqual(['gone', 'back', 'gone']);
    const since = /unreachable since (\d\d:\d\d:\d\d) \(its last answer/.exec(said[0]!)?.[1];
    expect(since, said[0]).toBeDefined();
    expect(since! <= new Date(away).toTimeString().slice(0, 8), `${said[0]} (went away at ${new Date(away).toTimeString().slice(0, 8)})`).toBe(true);
  });
});

describe.sequential('the truth per tier, reset and resume, two writers, unknown kinds (items 7-10)', () => {
  it('after one tier fails, the rest go on, and every tier\'s result is what the cluster says', async () => {
    const ns = 'r-truth';
    const f = await fixture('r-truth', {
      ns,
      tiers: {
        bad: { files: { 'kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [missing.yaml]\n' } },
        g1: {},
        g2: { dependsOn: ['g1'] },
        g3: { dependsOn: ['g2'] },
        after: { dependsOn: ['bad'] },
      },
    });
    // `check` renders every tier and would refuse bad's build, so the cluster gets the broken tier with --force.
    const r = await standup(f.t('up', '--force', '--record', path.join(f.dir, 'r.json'), '-o', 'json'));
    expect(r.code, r.stderr).toBe(1);
    // The controller may still be handling standup's reconcile request for a tier that was already Ready from its
    // first reconcile (Ready=Unknown "Reconciliation in progress" for a moment): compare once the cluster is done.
    const live = await until('every tier to settle', async () => {
      const all = await k.kustomizations(ns);
      return all.every(settledKs) ? all : undefined;
    }, 60_000, 300);
    for (const name of ['bad', 'g1', 'g2', 'g3', 'after']) {
      const result = endOf(r, `tier:${ns}/${name}`)?.result;
      const ks = live.find((x) => x.metadata.name === name);
      const said = `${name}: standup said ${result}, the cluster says ${ks ? describeFlux(ks) : 'not found'}`;
      if (ks && ready(ks)) expect(['ok', 'skipped'], said).toContain(result);
      else expect(['failed', 'not-run'], said).toContain(result);
    }
    expect(endOf(r, `tier:${ns}/g3`)?.result).toBe('ok');
    expect(endOf(r, `tier:${ns}/bad`)?.result).toBe('failed');
    expect(endOf(r, `tier:${ns}/after`)?.result).toBe('not-run');
  });

  it('an overall timeout names the tier it was waiting on (timeout, not not-run)', async () => {
    const ns = 'r-lost';
    const f = await fixture('r-lost', {
      ns,
      tiers: { a: {}, lost: { dependsOn: ['a'], raw: `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: lost\n  namespace: ${ns}\nspec:\n  interval: 10m\n  path: ./a\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: nowhere\n  dependsOn:\n    - name: a\n` } },
    });
    const r = await standup(f.t('up', '--timeout', '20s', '-o', 'json'));
    expect(r.code, r.stderr).toBe(3);
    const lost = endOf(r, `tier:${ns}/lost`);
    expect(lost?.result).toBe('timeout');
    expect(String(lost?.message)).toMatch(/GitRepository|nowhere/);
  });

  it('reset says the root sync stays suspended, and resume takes back the suspension reset made', async () => {
    const ns = 'r-reset';
    const f = await fixture('r-reset', { ns, tiers: { a: {}, b: { dependsOn: ['a'] } } });
    // Each command has a --timeout well inside the test's: a run that does not finish fails with what it waited on.
    const up = await standupWithin(55_000, f.t('up', '--timeout', '50s'));
    expect(up.code, up.stderr).toBe(0);
    const reset = await standupWithin(55_000, f.t('reset', '--yes', '--timeout', '50s'));
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stderr).toContain(`the root sync ${ns}/root stays suspended`);
    expect(reset.stderr).toContain('`standup up` resumes it');
    const resumed = await standupWithin(55_000, f.t('resume', '-o', 'json', '--timeout', '50s'));
    expect(resumed.code, resumed.stderr).toBe(0);
    const root = (await k.kustomizations(ns)).find((x) => x.metadata.name === 'root')!;
    expect(root.spec?.suspend).toBeUndefined();
    expect((await k.kustomizations(ns)).filter((x) => ['a', 'b'].includes(x.metadata.name)).every(ready)).toBe(true);
  });

  it('reset --dry-run says what it would do, in the conditional', async () => {
    const ns = 'r-reset';
    const f = made.find((m) => m.ns === ns)!;
    const r = await standup(['reset', '--repo', f.dirs[0]!, '--cluster', 't', '--kubeconfig', tb.kubeconfigPath, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`would suspend ${ns}/root`);
    expect(r.stderr).toContain(`would delete Kustomization/${ns}/b`);
    expect(r.stderr).not.toMatch(/Suspend the root sync: \S+ suspended/);
    expect((await k.kustomizations(ns)).find((x) => x.metadata.name === 'root')!.spec?.suspend).toBeUndefined();
  });

  it('reset on a cluster whose root sync is gone: nothing to suspend, said so, and the tiers are still torn down', async () => {
    const ns = 'r-noroot';
    const f = await fixture('r-noroot', { ns, tiers: { a: {} } });
    expect((await standupWithin(55_000, f.t('up', '--timeout', '50s'))).code).toBe(0);
    // Without prune first, the controller's garbage collection would delete the tiers with it.
    const api = tb.kubeConfig().makeApiClient(CustomObjectsApi);
    await api.patchNamespacedCustomObject({ group: 'kustomize.toolkit.fluxcd.io', version: 'v1', plural: 'kustomizations', namespace: ns, name: 'root', body: { spec: { prune: false } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    await k.deleteKs('root', ns);
    await until('the root sync to be gone', async () => !(await k.kustomizations(ns)).some((x) => x.metadata.name === 'root'), 30_000);
    const r = await standupWithin(55_000, f.t('reset', '--yes', '--timeout', '50s'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${ns}/root is not on the cluster: nothing to suspend`);
    expect(r.stderr).not.toContain('suspended');
    expect((await k.kustomizations(ns)).map((x) => x.metadata.name)).toEqual([]);
  });

  it('two root syncs fighting over one GitRepository: reported with both writers, exit 1', async () => {
    const ns = 'r-fight';
    const f = await fixture('r-fight', { ns, tiers: { a: {} } });
    expect((await standup(f.t('up'))).code).toBe(0);
    // The cluster was switched from another repository, and the old root sync was left behind. Each sync reads its
    // own GitRepository and applies the shared one (src) with its own URL, every second.
    const old = await serveFixture(tb.git, 'r-fight-old', { ns, tiers: { a: {} } });
    made.push({ ns, dirs: [old.dir] });
    const api = tb.kubeConfig().makeApiClient(CustomObjectsApi);
    const writer = async (name: string, url: string) => {
      await api.createNamespacedCustomObject({ group: 'source.toolkit.fluxcd.io', version: 'v1', plural: 'gitrepositories', namespace: ns, body: { apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'GitRepository', metadata: { name: `${name}-src`, namespace: ns }, spec: { interval: '1m', ref: { branch: 'main' }, url } } });
      await api.createNamespacedCustomObject({ group: 'kustomize.toolkit.fluxcd.io', version: 'v1', plural: 'kustomizations', namespace: ns, body: { apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', metadata: { name, namespace: ns }, spec: { interval: '1s', path: './clusters/t/sync', prune: false, sourceRef: { kind: 'GitRepository', name: `${name}-src` } } } });
    };
    await writer('new-sync', f.url);
    await writer('old-sync', old.url);
    const seen = new Set<string>();
    await until('the URL to flip both ways', async () => seen.add(String((await k.gitRepository('src', ns))?.spec?.url)).size === 2, 60_000, 100);
    const r = await standup(f.t('resume', '-o', 'json'));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`GitRepository/${ns}/src is being rewritten by two writers`);
    expect(r.stderr).toContain(`Kustomization ${ns}/new-sync`);
    expect(r.stderr).toContain(`Kustomization ${ns}/old-sync`);
    await k.deleteKs('old-sync', ns);
    await k.deleteKs('new-sync', ns);
  }, 240_000);

  it('a kind with no CRD anywhere and no operator: said as such, not as a CRD deadlock', async () => {
    const ns = 'r-kind';
    const widget = `apiVersion: nowhere.example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: ${ns}\nspec: {}\n`;
    const f = await fixture('r-kind', { ns, tiers: { a: {}, widgets: { dependsOn: ['a'], files: { 'widget.yaml': widget } } } });
    const r = await standup(f.t('up'));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('no CRD for it exists anywhere standup can see');
    expect(r.stderr).not.toContain('deadlocked on a second-order CRD');
    expect(r.stderr).toContain('Add the CRD for Widget.nowhere.example.com to git');
  });
});

describe.sequential('what the screen says (items 11 and 13)', () => {
  it('no stale lines: no "not reconciled yet (observed" flash, and resume never opens with "not created yet"', async () => {
    const ns = 'r-lines';
    const f = await fixture('r-lines', { ns, tiers: { a: {}, b: { dependsOn: ['a'] } } });
    const up = await standup(f.t('up', '-o', 'json'));
    expect(up.code, up.stderr).toBe(0);
    const resume = await standup(f.t('resume', '-o', 'json'));
    expect(resume.code, resume.stderr).toBe(0);
    for (const r of [up, resume]) {
      const lines = events(r, 'step-status').map((e) => String(e.message));
      expect(lines.filter((l) => l.includes('not reconciled yet (observed'))).toEqual([]);
    }
    expect(events(resume, 'step-status').filter((e) => e.id === 'source' && e.message === 'not created yet')).toEqual([]);
  });

  it('up --dry-run on a bare cluster names every tier it would annotate, in order, and writes nothing', async () => {
    const ns = 'r-dry';
    const f = await fixture('r-dry', { ns, tiers: { a: {}, b: { dependsOn: ['a'] }, c: { dependsOn: ['b'] } } });
    const r = await standup(f.t('up', '--dry-run', '-o', 'json'));
    expect(r.code, r.stderr).toBe(0);
    const annotated = events(r, 'change').filter((e) => String(e.action).startsWith('annotated')).map((e) => e.object);
    expect(annotated).toEqual(expect.arrayContaining([`Kustomization/${ns}/a`, `Kustomization/${ns}/b`, `Kustomization/${ns}/c`]));
    expect(events(r, 'change').every((e) => e.dryRun === true)).toBe(true);
    expect(String(endOf(r, `tier:${ns}/c`)?.message)).toContain(`would ask Flux to reconcile it once ${ns}/b is Ready`);
    expect(await k.namespace(ns)).toBeNull();
  });
});

describe.sequential('status (item 15)', () => {
  it('names, -n, --no-header, a line naming context and cluster, - for what does not exist, -o wide', async () => {
    const ns = 'r-status';
    const f = await fixture('r-status', { ns, tiers: { a: {}, b: { dependsOn: ['a'] } } });
    expect((await standup(f.t('up'))).code).toBe(0);
    const all = await standup(f.t('status'));
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.split('\n')[0]).toBe(`Context standup-testbed (${tb.server}), cluster t (clusters/t)`);
    const one = await standup([...f.t('status'), 'b']);
    expect(one.stdout.split('\n').filter((l) => l.includes(`${ns}/`)).map((l) => l.split(/\s+/)[1])).toEqual([`${ns}/b`]);
    const bare = await standup([...f.t('status'), '-n', ns, '--no-header']);
    expect(bare.stdout).not.toContain('Context');
    expect(bare.stdout).not.toContain('LEVEL');
    expect(bare.stdout.trim().split('\n')).toHaveLength(3);
    const wide = await standup([...f.t('status'), '-o', 'wide']);
    expect(wide.stdout.split('\n')[1]).toMatch(/STATE\s+REASON\s+MESSAGE$/);
    await k.deleteKs('b', ns);
    await until('b to be gone', async () => !(await k.kustomizations(ns)).some((x) => x.metadata.name === 'b'), 60_000);
    const gone = await standup([...f.t('status'), 'b']);
    expect(gone.code).toBe(1);
    expect(gone.stdout).toMatch(new RegExp(`${ns}/b\\s+-\\s+-\\s+-\\s+-\\s+not found`));
    const unknown = await standup([...f.t('status'), 'nope']);
    expect(unknown.code).toBe(2);
  });
});

describe.sequential('Flux installed from the repository, and workloads Flux waits on (issue 10, the runner\'s half)', () => {
  it('up with bootstrap.install waits for the controller Deployments, and names a pod that cannot run (Pending: no node)', async () => {
    const ns = 'r-install';
    const f = await fixture('r-install', {
      ns,
      install: '{path: install/gotk-components.yaml}',
      tiers: { a: {} },
      extra: { 'install/gotk-components.yaml': `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n---\n${deployment('fake-controller', ns)}` },
    });
    // With a node, the image is not there and may not be pulled: the install fails at once (exit 1). Without one, the
    // pod is never scheduled: standup keeps waiting (a node may join), and --timeout says why (exit 3).
    const [code, result, why] = tb.node
      ? [1, 'failed', new RegExp(`Flux install from install/gotk-components.yaml cannot start: Deployment/${ns}/fake-controller: 0/1 ready; fake-controller-[a-z0-9-]+: ErrImageNeverPull`)]
      : [3, 'timeout', new RegExp(`Deployment/${ns}/fake-controller: 0/1 ready; fake-controller-[a-z0-9-]+: Pending: no node`)];
    const r = await standup(f.t('up', '--timeout', '20s', '-o', 'json'));
    expect(r.code, r.stderr).toBe(code);
    expect(r.stderr).toMatch(why);
    expect(endOf(r, 'install')?.result).toBe(result);
    // No sync before the controllers run: the root sync was not applied.
    expect(await k.gitRepository('src', ns)).toBeNull();
    // resume after that up: it waits for the controllers too, and says the same.
    const resumed = await standup(f.t('resume', '--timeout', '15s', '-o', 'json'));
    expect(resumed.code, resumed.stderr).toBe(code);
    expect(endOf(resumed, 'install')?.result).toBe(result);
    expect(resumed.stderr).toMatch(why);
  });

  it('resume after an up stopped during the install: waits for the controllers, applies the sync up never did, converges', async () => {
    const ns = 'r-install2';
    // Zero replicas: Available on a cluster without nodes, so the whole path can run here.
    const controller = deployment('fake-controller', ns).replace('replicas: 1', 'replicas: 0');
    const f = await fixture('r-install2', {
      ns,
      install: '{path: install/gotk-components.yaml}',
      tiers: { a: {} },
      extra: { 'install/gotk-components.yaml': `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n---\n${controller}` },
    });
    // What an up interrupted between the install and the sync leaves: the install, and nothing else.
    await execa('kubectl', ['--kubeconfig', tb.kubeconfigPath, 'apply', '--server-side', '--field-manager', 'standup', '-f', path.join(f.dir, 'install/gotk-components.yaml')]);
    const r = await standup(f.t('resume', '-o', 'json'));
    expect(r.code, r.stderr).toBe(0);
    expect(endOf(r, 'install')?.result).toBe('ok');
    expect(endOf(r, 'bootstrap')?.result).toBe('ok');
    expect(ready((await k.kustomizations(ns)).find((x) => x.metadata.name === 'a')!)).toBe(true);
    // And a full up on it: the install step has its own time in the summary.
    const up = await standup(f.t('up'));
    expect(up.code, up.stderr).toBe(0);
    expect(up.stderr).toMatch(/Install Flux\s+ok\s+\d/);
  });

  it('a wait: true tier whose Deployment never becomes ready: Flux\'s message plus the Deployment\'s state and its pods\' reason', async () => {
    const ns = 'r-wait';
    const f = await fixture('r-wait', { ns, tiers: { a: {}, app: { dependsOn: ['a'], wait: true, timeout: '10s', files: { 'deploy.yaml': deployment('web', ns) } } } });
    const r = await standup(f.t('up'));
    expect(r.code, r.stderr).toBe(1);
    // Without a node its pod is never scheduled; with one, its image is not there: either way, said.
    expect(r.stderr).toMatch(new RegExp(`${ns}/app failed its health check after \\d+s; still not healthy: Deployment/${ns}/web \\(InProgress\\)\\n  Deployment/${ns}/web: 0/1 ready; web-[a-z0-9-]+: (Pending: no node|ErrImageNeverPull)`));
    expect(r.stderr).toMatch(tb.node ? /imagePullPolicy is Never/ : /join a node/);
  }, 180_000);
});

/** A TCP forwarder to the API server that a test can take down (connections reset, new ones refused) and bring back. */
/**
 * A TCP proxy to the API server that a test can take down and bring back. It listens on the API server's own address
 * (loopback without a node, the link's host end with one), so the serving certificate's IP SANs still match.
 */
async function tcpProxy(host: string, target: number) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const listen = (port: number) =>
    new Promise<number>((resolve) => {
      server = createServer((client) => {
        const upstream = new Socket().connect(target, host);
        sockets.add(client).add(upstream);
        client.pipe(upstream).pipe(client);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
      });
      server.listen(port, host, () => resolve((server!.address() as { port: number }).port));
    });
  const port = await listen(0);
  const stop = () => {
    server?.close();
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  return {
    port,
    down: stop,
    up: () => void listen(port),
    close: async () => stop(),
  };
}
