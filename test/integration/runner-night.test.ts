import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type TestbedClient } from '../testbed/harness.js';
import { standup, standupProcess } from './cli.js';
import { deploymentYaml, namespacedFixtures, settled } from './namespaced.js';

// Issue 24 on the real testbed: the runner at 2 a.m., round two. Each test has its own namespace and repository.
// kustomize-controller holds a Kustomization's deletion until its health check's timeout, so the tiers' timeouts stay
// short (the clean-up waits two minutes per namespace).

let tb: TestbedClient;
const fixtures = namespacedFixtures(() => tb);

beforeAll(() => {
  tb = connect(inject('testbed'));
});
afterAll(() => fixtures.cleanup(), 600_000);

describe.sequential('a closed pipe (item 1)', () => {
  it('up -o json | head -5: output ends quietly, the run ends as interrupted (exit 130, run-end in the record), no stack', async () => {
    const ns = 'n-pipe';
    const f = await fixtures.fixture(ns, { ns, tiers: { a: {}, slow: { dependsOn: ['a'], wait: true, timeout: '30s', files: { 'deploy.yaml': deploymentYaml('web', ns, 'ghcr.io/fluxcd/never-pulled:v0') } } } });
    const record = path.join(f.dir, 'record.json');
    const child = standupProcess(f.t('up', '-o', 'json', '--record', record));
    let lines = 0;
    // `head -5`: read five lines, then close the pipe.
    child.stdout!.on('data', (d: Buffer) => {
      lines += d.toString().split('\n').length - 1;
      if (lines >= 5) child.stdout!.destroy();
    });
    const done = await child;
    expect(done.exitCode, done.stderr).toBe(130);
    expect(done.stderr).not.toMatch(/EPIPE|Unhandled|internal error|\n\s+at /);
    expect(done.stderr).toContain('interrupted: stdout was closed');
    const rec = JSON.parse(readFileSync(record, 'utf8'));
    expect(rec.exitCode).toBe(130);
    expect(rec.code).toBe('INTERRUPTED');
  });

});

describe.sequential('a workload that cannot start (item 2)', () => {
  it('an image reference that cannot be pulled as written fails its tier at once, naming pod, container, reason, image and file:line', async () => {
    const ns = 'n-badimg';
    const f = await fixtures.fixture(ns, { ns, tiers: { a: {}, app: { dependsOn: ['a'], wait: true, timeout: '100s', files: { 'deploy.yaml': deploymentYaml('web', ns, 'Bad/Ref:x', 'IfNotPresent') } } } });
    // Timed from the moment the tier is waited on (its `►` line) to standup's exit, as the next test times its
    // message: the start before it (tsx compiling the CLI, the source, tier a) is not what is proven, and beside
    // another shard it alone took tens of seconds (66 s from spawn to exit at load 20).
    const child = standupProcess(f.t('up'));
    let out = '';
    let startedAt = 0;
    child.all!.on('data', (d: Buffer) => {
      out += d.toString();
      if (!startedAt && out.includes(`► ${ns}/app`)) startedAt = Date.now();
    });
    const done = await settled(child, 240_000);
    const took = Date.now() - startedAt;
    expect(done.exitCode, done.all).toBe(1);
    expect(startedAt, out).toBeGreaterThan(0);
    expect(took).toBeLessThan(60_000); // not the tier's 100s timeout
    // Every line of the explanation, in the step's end line, the summary and the final block.
    expect(done.stderr).toMatch(new RegExp(`✗ ${ns}/app \\(level 1\\): ${ns}/app cannot become healthy: Deployment/${ns}/web 0/1 ready; web-[a-z0-9-]+: InvalidImageName \\(container manager, image Bad/Ref:x\\)`));
    expect(done.stderr).toMatch(/Fix the image of container manager in Deployment\/n-badimg\/web \(app\/deploy\.yaml:16\): Bad\/Ref:x cannot be pulled as written; push, then `standup resume`/);
    expect(done.stderr).toMatch(new RegExp(`${ns}/app\\s+failed\\s+\\S+\\s+${ns}/app cannot become healthy: Deployment/${ns}/web`));
  }, 300_000);

  it('a registry that cannot be reached: the tier waits, and says so live and at the end with pod, container, reason and image', async () => {
    const ns = 'n-noreg';
    const f = await fixtures.fixture(ns, { ns, tiers: { a: {}, app: { dependsOn: ['a'], wait: true, timeout: '2m', files: { 'deploy.yaml': deploymentYaml('web', ns, '127.0.0.1:1/x:v1', 'IfNotPresent') } } } });
    const child = standupProcess(f.t('up', '--timeout', '60s'));
    let out = '';
    let startedAt = 0;
    let namedAt = 0;
    child.all!.on('data', (d: Buffer) => {
      out += d.toString();
      if (!startedAt && out.includes(`► ${ns}/app`)) startedAt = Date.now();
      if (!namedAt && new RegExp(`◎ ${ns}/app \\(level 1\\): health check waiting on Deployment/${ns}/web: 0/1 ready; web-[a-z0-9-]+: (ErrImagePull|ImagePullBackOff) \\(container manager, image 127\\.0\\.0\\.1:1/x:v1\\)`).test(out)) namedAt = Date.now();
    });
    const done = await settled(child, 180_000);
    expect(done.exitCode, out).toBe(3);
    expect(namedAt, out).toBeGreaterThan(0);
    expect(namedAt - startedAt).toBeLessThan(30_000);
    expect(done.stderr).toMatch(new RegExp(`--timeout 1m ran out while waiting on ${ns}/app: health check waiting on Deployment/${ns}/web: 0/1 ready; web-[a-z0-9-]+: (ErrImagePull|ImagePullBackOff) \\(container manager, image 127\\.0\\.0\\.1:1/x:v1\\)`));
    expect(done.stderr).not.toContain('tier:');
  }, 300_000);
});

describe.sequential('how a run ends (items 3, 4, 9)', () => {
  it('a terminal failure and then --timeout: exit 1, the failed tier and its reason in the final lines, then the timeout; no internal ids', async () => {
    const ns = 'n-term';
    const f = await fixtures.fixture(ns, {
      ns,
      tiers: {
        bad: { files: { 'kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [missing.yaml]\n' } },
        slow: { wait: true, timeout: '2m', files: { 'deploy.yaml': deploymentYaml('web', ns, 'ghcr.io/fluxcd/never-pulled:v0') } },
      },
    });
    const r = await standup(f.t('up', '--force', '--timeout', '45s'));
    expect(r.code, r.stderr).toBe(1);
    const final = r.stderr.slice(r.stderr.lastIndexOf('✗ up stopped'));
    expect(final).toMatch(new RegExp(`✗ ${ns}/bad[^\\n]*(kustomize build failed|missing\\.yaml)`));
    expect(final).toMatch(new RegExp(`and then --timeout 45s ran out while waiting on ${ns}/slow`));
    expect(r.stderr).not.toContain('tier:');
  }, 300_000);

  it('Ctrl-C in the stand-up half of reset --up advises resume, never reset again', async () => {
    const ns = 'n-rsup';
    const f = await fixtures.fixture(ns, { ns, tiers: { a: {}, slow: { dependsOn: ['a'], wait: true, timeout: '45s', files: { 'deploy.yaml': deploymentYaml('web', ns, 'ghcr.io/fluxcd/never-pulled:v0') } } } });
    // A cluster that has the tiers (the slow one timing out), as reset expects to find.
    expect((await standup(f.t('up', '--timeout', '20s'))).code).toBe(3);
    const record = path.join(f.dir, 'record.json');
    const child = standupProcess(f.t('reset', '--up', '--yes', '--record', record));
    let out = '';
    child.all!.on('data', (d: Buffer) => (out += d.toString()));
    const { until } = await import('./kube.js');
    await until('the slow tier to be waited on', async () => out.includes(`► ${ns}/slow`), 120_000, 200).catch((e) => {
      throw new Error(`${(e as Error).message}; output so far:\n${out}`);
    });
    child.kill('SIGINT');
    const done = await settled(child, 60_000);
    expect(done.exitCode, out).toBe(130);
    expect(done.stderr).toContain('The teardown is done: run `standup resume` to finish standing the cluster up');
    expect(done.stderr).not.toMatch(/Run `standup reset` again/);
    expect(JSON.parse(readFileSync(record, 'utf8')).hint).toContain('standup resume');
  }, 300_000);

  it('status -n with no Kustomization in that namespace: exit 2, naming the namespaces that have some', async () => {
    const ns = 'n-status';
    const f = await fixtures.fixture(ns, { ns, tiers: { a: {} } });
    const r = await standup(f.t('status', '-n', 'nowhere'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cluster t has no Kustomization in namespace nowhere');
    expect(r.stderr).toContain(`Namespaces with Kustomizations: ${ns}`);
  });
});
