import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHART_CRDS, chartEntry } from '../../src/model/chart-crds.js';
import { applySuppressions, parseIgnore } from '../../src/lint/suppress.js';
import type { Problem } from '../../src/model/problem.js';
import { readPreFluxInstalls } from '../../src/bootstrap/pre-flux-installs.js';
import { ParseMemo } from '../../src/cache/parse-memo.js';
import { parseConfig } from '../../src/repo/tiers-yaml-parser.js';
import { CONFIG_FILE } from '../../src/repo/tiers-yaml.js';
import { cluster, config, ks, obj } from '../helpers/model.js';

describe('the chart -> CRD groups table', () => {
  it('is well formed: lower-case names, each chart once, groups that are DNS names', () => {
    const names = CHART_CRDS.flatMap((e) => e.charts);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z0-9][a-z0-9-]*$/);
    for (const g of CHART_CRDS.flatMap((e) => e.groups)) expect(g).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
    expect(CHART_CRDS.filter((e) => e.groups.length > 0).flatMap((e) => e.charts).length).toBeGreaterThanOrEqual(40);
  });

  it.each([
    ['kube-prometheus-stack', 'monitoring.coreos.com'], ['prometheus-operator-crds', 'monitoring.coreos.com'], ['cert-manager', 'cert-manager.io'],
    ['cilium', 'cilium.io'], ['external-secrets', 'external-secrets.io'], ['oci://mirror.gcr.io/envoyproxy/gateway-helm', 'gateway.networking.k8s.io'],
    ['envoy-gateway', 'gateway.envoyproxy.io'], ['cloudnative-pg', 'postgresql.cnpg.io'], ['plugin-barman-cloud', 'barmancloud.cnpg.io'],
    ['rook-ceph', 'ceph.rook.io'], ['longhorn', 'longhorn.io'], ['volsync', 'volsync.backube'], ['snapshot-controller', 'snapshot.storage.k8s.io'],
    ['kyverno', 'kyverno.io'], ['grafana-operator', 'grafana.integreatly.org'], ['dragonfly-operator', 'dragonflydb.io'], ['emqx-operator', 'apps.emqx.io'],
    ['oci://ghcr.io/home-operations/charts/kopiur:0.10.3', 'kopiur.home-operations.com'],
  ])('%s ships %s', (chart, group) => expect(chartEntry(chart)?.groups).toContain(group));

  it('knows charts that ship no CRDs, so their names are never matched against a group', () => {
    expect(chartEntry('app-template')?.groups).toEqual([]);
    expect(chartEntry('rook-ceph-cluster')?.groups).toEqual([]);
  });
});

describe('reading the bootstrap', () => {
  const repo = () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'standup-bootstrap-'));
    const write = (f: string, text: string) => {
      mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      writeFileSync(path.join(root, f), text);
    };
    return { root, write };
  };

  it('reads helmfile releases through {{ }} templates, hook applies and waits, and says which file does not parse', () => {
    const { root, write } = repo();
    write('bootstrap/helmfile.d/01-apps.yaml', [
      'releases:',
      '  - name: cilium',
      '    namespace: kube-system',
      '    chart: cilium/cilium',
      '    version: {{ env "CILIUM_VERSION" }}',
      '    hooks:',
      '      - events: ["presync"]',
      '        command: kubectl',
      '        args: ["apply", "--server-side", "-f", "../crds/gateway.yaml"]',
      '      - events: ["postsync"]',
      '        command: kubectl',
      '        args: ["wait", "--for=create", "crd/ciliumbgppeerconfigs.cilium.io"]',
      '{{ if eq .Environment.Name "prod" }}',
      '  - name: cert-manager',
      '    namespace: cert-manager',
      '    chart: \'{{ .Values.chart }}\'',
      '{{ end }}',
      '',
    ].join('\n'));
    write('bootstrap/crds/gateway.yaml', 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gateways.gateway.networking.k8s.io\nspec:\n  group: gateway.networking.k8s.io\n');
    write('bootstrap/helmfile/broken.yaml', 'releases:\n  - name: a\n    chart: [unclosed\n');
    const b = readPreFluxInstalls(root, config(), []);
    expect(b.installs.map((i) => [i.kind, i.name, i.chart, i.groups])).toEqual([
      ['hook-apply', 'gateway.yaml', null, ['gateway.networking.k8s.io']],
      ['helmfile-release', 'cilium', 'cilium/cilium', ['cilium.io']],
      ['helmfile-release', 'cert-manager', null, []],
    ]);
    expect(b.problems.map((p) => [p.code, p.severity, p.file, p.line])).toEqual([['bootstrap-unreadable', 'warning', 'bootstrap/helmfile/broken.yaml', 4]]);
  });

  it('gives the same answer from the parse memo as from the YAML, a broken helmfile included', () => {
    const { root, write } = repo();
    write('helmfile.yaml', 'releases:\n  - name: cilium\n    chart: cilium/cilium\n  - name: off\n    chart: x/y\n    installed: false\n');
    write('bootstrap/helmfile/broken.yaml', 'releases:\n  - name: a\n    chart: [unclosed\n');
    const file = path.join(root, '.memo');
    const load = new ParseMemo(file);
    const first = readPreFluxInstalls(root, config(), [], [], load);
    load.save();
    const memo = new ParseMemo(file); // the next load's, read back from disk
    expect(memo.peek('helmfile-releases', 'releases:\n  - name: a\n    chart: [unclosed\n')).toMatchObject({ error: { line: 4 } });
    expect(readPreFluxInstalls(root, config(), [], [], memo)).toEqual(first);
    expect(first.installs.map((i) => [i.name, i.line])).toEqual([['cilium', 2]]);
    expect(first.problems.map((p) => [p.file, p.line])).toEqual([['bootstrap/helmfile/broken.yaml', 4]]);
  });

  it('follows symbolic links to folders and files, and passes over a dangling one', () => {
    const { root, write } = repo();
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'standup-bootstrap-target-'));
    mkdirSync(path.join(elsewhere, 'helmfile.d'));
    writeFileSync(path.join(elsewhere, 'helmfile.d', 'apps.yaml'), 'releases:\n  - name: linked-dir\n    chart: a/b\n');
    writeFileSync(path.join(elsewhere, 'one.yaml'), 'releases:\n  - name: linked-file\n    chart: c/d\n');
    write('bootstrap/.keep', '');
    symlinkSync(path.join(elsewhere, 'helmfile.d'), path.join(root, 'bootstrap', 'helmfile.d'));
    symlinkSync(path.join(elsewhere, 'one.yaml'), path.join(root, 'helmfile.yaml'));
    symlinkSync(path.join(elsewhere, 'gone.yaml'), path.join(root, 'helmfile.gone.yaml'));
    expect(readPreFluxInstalls(root, config(), []).installs.map((i) => i.name).sort()).toEqual(['linked-dir', 'linked-file']);
  });

  it('infers Talos from a machine configuration, and tiers.yaml platform: wins', () => {
    const { root, write } = repo();
    write('talos/controlplane.yaml', 'version: v1alpha1\nmachine:\n  type: controlplane\ncluster:\n  name: x\n');
    expect(readPreFluxInstalls(root, config(), []).platforms).toEqual([{ platform: 'talos', from: 'talos/controlplane.yaml (a Talos machine configuration)' }]);
    expect(readPreFluxInstalls(root, config({ platform: 'k3s' }), []).platforms).toEqual([{ platform: 'k3s', from: 'tiers.yaml' }]);
  });
});

describe('tiers.yaml: ignore, platform, no clusters', () => {
  it('accepts a file with only externalCrds', () => {
    expect(parseConfig('externalCrds: [monitoring.coreos.com]\n', CONFIG_FILE).clusters).toEqual({});
  });
  it('accepts platform as a name or a list, and rejects an unknown one at its line', () => {
    expect(parseConfig('platform: talos\n', CONFIG_FILE).platform).toEqual(['talos']);
    expect(() => parseConfig('version: 1\nplatform: [windows]\n', CONFIG_FILE)).toThrow(/tiers\.yaml:2:\d+: platform/);
  });
  it('requires a reason and a known code for every ignore entry, naming file:line', () => {
    expect(() => parseConfig('ignore:\n  - code: runtime-crd\n    group: a.io\n', CONFIG_FILE)).toThrow(/tiers\.yaml:2:\d+: ignore\[0\]\.reason: a reason is required/);
    expect(() => parseConfig('ignore:\n  - {code: runtime-crdd, group: a.io, reason: x}\n', CONFIG_FILE)).toThrow(/tiers\.yaml:2:\d+: ignore\[0\]\.code/);
  });
});

describe('suppressions', () => {
  const p = (o: Partial<Problem> = {}): Problem => ({ code: 'runtime-crd', severity: 'warning', message: 'm', file: 'a.yaml', line: 3, object: 'Widget/ns/w', cluster: 'dev', tier: 'flux-system/t', crdGroup: 'a.io', ...o });
  it('suppresses by tiers.yaml group with its reason, and warns of an entry that matches nothing at its line', () => {
    const cfg = config({ ignore: [{ code: 'runtime-crd', group: 'a.io', reason: 'the NAS operator installs it' }, { code: 'runtime-crd', tier: 'flux-system/none', reason: 'stale' }] });
    const r = applySuppressions([p()], cfg, [], [2, 5]);
    expect(r.suppressed.map((s) => [s.suppressedBy, s.reason])).toEqual([['tiers.yaml:2', 'the NAS operator installs it']]);
    expect(r.kept.map((k) => [k.code, k.file, k.line])).toEqual([['ignore-unmatched', 'tiers.yaml', 5]]);
  });
  it('suppresses by an annotation on the object, and reports a malformed one', () => {
    const w = obj('a.io/v1', 'Widget', 'w', 'flux-system/t', { metadata: { name: 'w', annotations: { 'standup.io/ignore': 'runtime-crd: installed by the NAS operator' } } });
    w.namespace = 'ns';
    const bad = obj('a.io/v1', 'Widget', 'v', 'flux-system/t', { metadata: { name: 'v', annotations: { 'standup.io/ignore': 'because' } } });
    const r = applySuppressions([p()], config(), [cluster('dev', [ks('t')], [w, bad])]);
    expect(r.suppressed.map((s) => s.reason)).toEqual(['installed by the NAS operator']);
    expect(r.kept.map((k) => k.code)).toEqual(['ignore-invalid']);
    expect(parseIgnore('runtime-crd, wait-dependency: ok')?.codes.size).toBe(2);
    expect(parseIgnore('nope: x')).toBeNull();
  });
});
