// `standup fix` end to end, in process: each fixture is copied, repaired, and then checked and planned again (with the
// real kustomize, as check renders every tier), so what is asserted is what a user's next `standup check` sees.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, PROJECT } from '../cli/run.js';

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A fresh copy of a fixture repository. */
function copyOf(fixture: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'standup-fix-test-'));
  made.push(dir);
  const root = path.join(dir, path.basename(fixture));
  cpSync(path.join(PROJECT, fixture), root, { recursive: true });
  return root;
}

type Ks = { key: string; dependsOn: string[] };
type Node = { key: string; wait: boolean };
async function graphOf(repo: string) {
  const plan = JSON.parse((await cli('plan', '--repo', repo, '-o', 'json')).stdout) as { clusters: { kustomizations: Ks[] }[] };
  const graph = JSON.parse((await cli('graph', '--repo', repo, '-o', 'json')).stdout) as { clusters: { nodes: Node[] }[] };
  const deps = Object.fromEntries(plan.clusters[0]!.kustomizations.map((k) => [k.key, [...k.dependsOn].sort()]));
  const wait = Object.fromEntries(graph.clusters[0]!.nodes.map((n) => [n.key, n.wait]));
  return { deps, wait };
}

async function codesOf(repo: string) {
  const r = await cli('check', '--repo', repo, '-o', 'json');
  return { exit: r.code, codes: (JSON.parse(r.stdout) as { problems: { code: string; severity: string }[] }).problems.map((p) => `${p.severity} ${p.code}`) };
}

describe('standup fix on the seeds\' pre-fix layout', () => {
  it('prints the seeds\' repair as a diff and writes nothing; the diff is a patch git applies', async () => {
    const repo = copyOf('test/fixtures/prefix-cdi');
    const before = readFileSync(path.join(repo, 'platform-config/kustomization.yaml'), 'utf8');
    const r = await cli('fix', '--repo', repo);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('+++ b/clusters/base/platform-config-cdi.yaml');
    expect(r.stdout).toContain('+    - name: platform-config-cdi');
    expect(r.stdout).toContain('-  - cdi-storageprofiles.yaml');
    expect(r.stderr).toContain('dry run: nothing written');
    expect(r.stderr).toContain('dependsOn platform-config-cdi on flux-system/apps-vms');
    // The prune transient, said before merging.
    expect(r.stderr).toContain('flux-system/platform-config has prune: true');
    // The wait it relies on, already there, is said so that nobody drops it.
    expect(r.stderr).toContain('note: flux-system/platform-config already has wait: true, and flux-system/platform-config-cdi relies on it');
    expect(r.stderr).toContain('re-checked on a copy of the repository');
    expect(readFileSync(path.join(repo, 'platform-config/kustomization.yaml'), 'utf8')).toBe(before);
    expect(existsSync(path.join(repo, 'platform-config-cdi'))).toBe(false);

    // The patch on stdout, applied by git, gives what --write writes.
    const patched = copyOf('test/fixtures/prefix-cdi');
    writeFileSync(path.join(patched, '..', 'fix.patch'), r.stdout);
    execFileSync('git', ['apply', '../fix.patch'], { cwd: patched, stdio: 'pipe' });
    expect((await cli('fix', '--repo', repo, '--write')).code).toBe(0);
    for (const f of ['clusters/base/platform-config-cdi.yaml', 'platform-config-cdi/kustomization.yaml', 'clusters/base/apps-vms.yaml', 'platform-config/kustomization.yaml']) {
      expect(readFileSync(path.join(patched, f), 'utf8')).toBe(readFileSync(path.join(repo, f), 'utf8'));
    }
  });

  it('--write makes check clean and gives the seeds\' Kustomization graph: the new tier after platform-config, apps-vms depending on it', async () => {
    const repo = copyOf('test/fixtures/prefix-cdi');
    expect((await codesOf(repo)).codes).toEqual(['error runtime-crd', 'error runtime-crd']);
    const r = await cli('fix', '--repo', repo, '--write');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('wrote 7 files');
    expect(await codesOf(repo)).toEqual({ exit: 0, codes: [] });

    const fixed = await graphOf(repo);
    expect(fixed.deps['flux-system/platform-config-cdi']).toEqual(['flux-system/platform-config']);
    expect(fixed.deps['flux-system/apps-vms']).toEqual(['flux-system/platform-config', 'flux-system/platform-config-cdi']);
    expect(fixed.wait['flux-system/platform-config']).toBe(true);
    // The seeds' own fixed layout (the bundled example) has the same edges for these tiers.
    const seeds = await graphOf(path.join(PROJECT, 'examples/homelab'));
    for (const k of ['flux-system/platform-config-cdi', 'flux-system/apps-vms']) expect(fixed.deps[k]).toEqual(seeds.deps[k]);
    expect(fixed.wait['flux-system/platform-config-cdi']).toBe(seeds.wait['flux-system/platform-config-cdi']);

    // The new tier takes over how the old one applies, and holds exactly the moved file.
    const ks = readFileSync(path.join(repo, 'clusters/base/platform-config-cdi.yaml'), 'utf8');
    for (const s of ['retryInterval: 1m', 'timeout: 5m', 'prune: true', 'name: cluster-vars', 'path: ./platform-config-cdi']) expect(ks).toContain(s);
    expect(readFileSync(path.join(repo, 'platform-config-cdi/kustomization.yaml'), 'utf8')).toMatch(/resources:\n {2}- cdi-storageprofiles.yaml\n$/);
    // A second run has nothing left to do.
    const again = await cli('fix', '--repo', repo);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('nothing to repair');
  });
});

describe('standup fix on other shapes', () => {
  it('several resources of two kinds beside their chart, a race, a hidden HelmRelease order and a removed apiVersion', async () => {
    const repo = copyOf('test/fixtures/fix/shapes');
    expect((await codesOf(repo)).codes.sort()).toEqual(['error removed-api', 'error runtime-crd', 'warning helmrelease-order', 'warning runtime-crd', 'warning wait-dependency']);
    const r = await cli('fix', '--repo', repo, '--write');
    expect(r.code).toBe(0);
    expect(await codesOf(repo)).toEqual({ exit: 0, codes: [] });
    const g = await graphOf(repo);
    expect(g.deps['flux-system/monitoring-crs']).toEqual(['flux-system/monitoring']);
    expect(g.deps['flux-system/dashboards']).toEqual(['flux-system/monitoring', 'flux-system/monitoring-crs']);
    expect(g.deps['flux-system/apps']).toEqual(['flux-system/db', 'flux-system/monitoring']);
    expect(g.wait['flux-system/monitoring']).toBe(true);
    const tiers = readFileSync(path.join(repo, 'clusters/dev/tiers.yaml'), 'utf8');
    // A flow list stays a flow list; comments stay; the new tier's document follows the old one's.
    expect(tiers).toContain('dependsOn: [{name: monitoring}, {name: monitoring-crs}]');
    expect(tiers).toContain('# dashboards needs the ServiceMonitors monitoring applies.');
    expect(tiers.indexOf('name: monitoring-crs\n')).toBeGreaterThan(tiers.indexOf('name: monitoring\n'));
    expect(tiers).toMatch(/name: monitoring-crs\n[^]*targetNamespace: monitoring\n[^]*decryption:\n {4}provider: sops/);
    // The ConfigMap stays in the old tier's file; the PrometheusRule leaves it.
    const rules = readFileSync(path.join(repo, 'monitoring/rules.yaml'), 'utf8');
    expect(rules).toContain('kind: ConfigMap');
    expect(rules).not.toContain('kind: PrometheusRule');
    expect(readFileSync(path.join(repo, 'monitoring/kustomization.yaml'), 'utf8')).toContain('- rules.yaml   # alerting rules and their settings');
    expect(readFileSync(path.join(repo, 'apps/web.yaml'), 'utf8')).toMatch(/^# Still written[^\n]*\napiVersion: helm.toolkit.fluxcd.io\/v2\n/);
  });

  it('two races the other way round: the second is repaired by a move, since its dependsOn would close a cycle', async () => {
    const repo = copyOf('test/fixtures/fix/shapes');
    // db now also installs cert-manager and applies a ServiceMonitor; monitoring applies a Certificate.
    writeFileSync(path.join(repo, 'db/kustomization.yaml'), 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - postgres.yaml\n  - cert-manager.yaml\n  - servicemonitor.yaml\n');
    writeFileSync(path.join(repo, 'db/cert-manager.yaml'), 'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: cert-manager\n  namespace: db\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: cert-manager\n      sourceRef: {kind: HelmRepository, name: bitnami}\n');
    writeFileSync(path.join(repo, 'db/servicemonitor.yaml'), 'apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: postgres\n  namespace: db\nspec:\n  selector: {matchLabels: {app: postgres}}\n  endpoints: [{port: metrics}]\n');
    writeFileSync(path.join(repo, 'monitoring/certificate.yaml'), 'apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: grafana\nspec:\n  secretName: grafana-tls\n  issuerRef: {kind: ClusterIssuer, name: selfsigned}\n');
    writeFileSync(path.join(repo, 'monitoring/kustomization.yaml'), readFileSync(path.join(repo, 'monitoring/kustomization.yaml'), 'utf8') + '- certificate.yaml\n');
    const r = await cli('fix', '--repo', repo, '--write');
    expect(r.code, r.stderr).toBe(0);
    expect(await codesOf(repo)).toEqual({ exit: 0, codes: [] });
    const g = await graphOf(repo);
    expect(g.deps['flux-system/db']).toEqual(['flux-system/monitoring']);
    expect(g.deps['flux-system/monitoring-cert-manager']).toEqual(['flux-system/db']);
    expect(g.deps['flux-system/monitoring']).toEqual([]);
  });

  it('a namespace the old folder\'s kustomization sets is carried over; another transformation is left for a hand edit', async () => {
    const repo = copyOf('test/fixtures/fix/shapes');
    const k = path.join(repo, 'monitoring/kustomization.yaml');
    const text = readFileSync(k, 'utf8');
    writeFileSync(k, text.replace('kind: Kustomization\n', 'kind: Kustomization\nnamespace: observability\n'));
    expect((await cli('fix', '--repo', repo, '--write')).code).toBe(0);
    expect(readFileSync(path.join(repo, 'monitoring-crs/kustomization.yaml'), 'utf8')).toContain('\nnamespace: observability\nresources:\n');
    expect(await codesOf(repo)).toEqual({ exit: 0, codes: [] });

    const labelled = copyOf('test/fixtures/fix/shapes');
    writeFileSync(path.join(labelled, 'monitoring/kustomization.yaml'), text.replace('kind: Kustomization\n', 'kind: Kustomization\ncommonLabels: {team: obs}\n'));
    const r = await cli('fix', '--repo', labelled, '--code', 'runtime-crd');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('monitoring/kustomization.yaml sets commonLabels for the resources it lists');
    expect(r.stdout).not.toContain('monitoring-crs');
  });

  it('the installer in a child Kustomization of the tier: the new tier depends on the child', async () => {
    const repo = copyOf('test/fixtures/fix/child-installer');
    expect((await codesOf(repo)).codes).toEqual(['error runtime-crd']);
    expect((await cli('fix', '--repo', repo, '--write')).code).toBe(0);
    expect(await codesOf(repo)).toEqual({ exit: 0, codes: [] });
    const g = await graphOf(repo);
    expect(g.deps['flux-system/platform-cert-manager']).toEqual(['flux-system/platform-operators']);
    expect(g.deps['flux-system/apps']).toEqual(['flux-system/platform', 'flux-system/platform-cert-manager']);
  });

  it('--code and names narrow what is repaired', async () => {
    const repo = copyOf('test/fixtures/fix/shapes');
    const r = await cli('fix', '--repo', repo, '--code', 'removed-api', '-o', 'json');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { written: boolean; files: { file: string; status: string }[]; changes: { code: string }[]; verification: { ok: boolean } };
    expect(doc.written).toBe(false);
    expect(doc.files).toEqual([{ file: 'apps/web.yaml', status: 'changed', diff: expect.stringContaining('+apiVersion: helm.toolkit.fluxcd.io/v2') }]);
    expect(doc.verification.ok).toBe(true);
    const byName = JSON.parse((await cli('fix', '--repo', repo, 'apps', '-o', 'json')).stdout) as typeof doc;
    expect([...new Set(byName.changes.map((c) => c.code))].sort()).toEqual(['helmrelease-order', 'removed-api', 'runtime-crd']);
    expect(byName.files.map((f) => f.file)).toEqual(['apps/web.yaml', 'clusters/dev/tiers.yaml']);
  });

  it('leaves a generated file alone, says what to do by hand, still makes the safe repairs, and exits 2', async () => {
    const repo = copyOf('test/fixtures/fix/shapes');
    const tiers = path.join(repo, 'clusters/dev/tiers.yaml');
    const text = `# Code generated by a script. DO NOT EDIT.\n${readFileSync(tiers, 'utf8')}`;
    writeFileSync(tiers, text);
    const r = await cli('fix', '--repo', repo, '--write');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('left for a hand edit');
    expect(r.stderr).toContain('clusters/dev/tiers.yaml says it is generated; left alone');
    expect(readFileSync(tiers, 'utf8')).toBe(text);
    expect(existsSync(path.join(repo, 'monitoring-crs'))).toBe(false);
    expect(readFileSync(path.join(repo, 'apps/web.yaml'), 'utf8')).toContain('apiVersion: helm.toolkit.fluxcd.io/v2\n');
  });

  it('refuses a code it does not repair, and a suffix that is not a name', async () => {
    const a = await cli('fix', '--repo', 'test/fixtures/prefix-cdi', '--code', 'cycle');
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('standup fix does not repair "cycle"');
    const b = await cli('fix', '--repo', 'test/fixtures/prefix-cdi', '--suffix', 'Bad_Name');
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--suffix "Bad_Name" is not a name part');
  });
});
