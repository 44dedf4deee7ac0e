// check on the corpus, judged one finding at a time against how each repository boots (its bootstrap helmfile, hooks,
// platform). Each case names a false positive that must stay gone or a real hazard that must stay, with why. The
// findings are what `standup check` shows: the same pipeline, suppressions applied.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkRepository } from '../../src/cli/check-repository.js';
import type { Problem } from '../../src/model/problem.js';
import { planCluster } from '../../src/plan/plan.js';
import { loadRepository } from '../../src/load/load-repository.js';
import { repoDir } from './corpus.js';

const found = new Map<string, Problem[]>();
async function check(dir: string): Promise<Problem[]> {
  const r = await loadRepository({ repo: repoDir(dir) });
  const contexts = r.clusters.map((c) => planCluster(c, new Set(r.config.exclude)));
  return (await checkRepository(r, contexts)).kept;
}
// Every finding's verdict, with its reason read from the repository: check-judged.tsv.
const TABLE = readFileSync(fileURLToPath(new URL('./check-judged.tsv', import.meta.url)), 'utf8')
  .split('\n')
  .filter((l) => l && !l.startsWith('#'))
  .map((l) => {
    const [dir, key, severity, verdict, reason] = l.split('\t') as [string, string, string, string, string];
    return { dir, key, severity, verdict, reason };
  });
const DIRS = [...new Set(['onedr0p__home-ops', 'joryirving__home-ops', 'billimek__k8s-gitops', 'sulibot__home-ops', 'bjw-s-labs__home-ops', 'fluxcd__flux2-multi-tenancy', 'artazar__flux2-general', ...TABLE.map((r) => r.dir)])];
beforeAll(async () => {
  for (const d of DIRS) found.set(d, await check(d));
}, 300_000);
const of = (dir: string, code: string, sev?: string) => found.get(dir)!.filter((p) => p.code === code && (!sev || p.severity === sev));
const has = (dir: string, code: string, sev: string, tier: string, group?: string) =>
  of(dir, code, sev).some((p) => p.tier === tier && (!group || p.crdGroup === group));

describe('false positives that are gone', () => {
  it('onedr0p: no runtime-crd finding at all; its bootstrap helmfile installs every group its tiers use', () => {
    // bootstrap/helmfile/apps.yaml installs cilium, cert-manager, external-secrets; crds.yaml extracts the CRDs of
    // envoy-gateway, grafana-operator, kopiur, kube-prometheus-stack, snapshot-controller (charts read from the
    // HelmReleases of the same name); a TalosUpgrade says Talos serves talos.dev.
    expect(of('onedr0p__home-ops', 'runtime-crd')).toEqual([]);
    expect(of('onedr0p__home-ops', 'runtime-crd', 'error')).toEqual([]);
  });
  it('onedr0p: the cilium, cert-manager and grafana-operator same-tier "deadlocks" are not reported (installed before Flux)', () => {
    for (const t of ['kube-system/cilium', 'cert-manager/cert-manager', 'o11y/grafana-operator']) expect(has('onedr0p__home-ops', 'runtime-crd', 'error', t)).toBe(false);
  });
  it('multi-tenancy: kyverno-policies is ordered after kyverno, whose OCI source standup cannot expand: a note, not a warning', () => {
    expect(of('fluxcd__flux2-multi-tenancy', 'runtime-crd').map((p) => p.severity)).toEqual(['info', 'info']);
  });
  it('artazar: the crds tier applies CRDs by https URL (no network here): read from the URLs, so no same-tier deadlock', () => {
    expect(of('artazar__flux2-general', 'runtime-crd', 'error')).toEqual([]);
  });
  it('sulibot: the old production root (its kustomization.yaml leaves flux-system/ out) is no second cluster: no finding is doubled', () => {
    // Before, every cluster-101 finding came again under production, plus 8 missing-dependency errors on
    // flux-system/flux-system and 2 path-missing that only the dead root had.
    expect(found.get('sulibot__home-ops')!.filter((p) => p.cluster === 'production')).toEqual([]);
    expect(of('sulibot__home-ops', 'missing-dependency')).toEqual([]);
    expect(of('sulibot__home-ops', 'discovery', 'info').map((p) => p.file)).toEqual(['kubernetes/clusters/production/flux-system/gotk-sync.yaml']);
    expect(of('sulibot__home-ops', 'runtime-crd').filter((p) => p.crdGroup === 'autoscaling.k8s.io' && p.cluster === 'cluster-101').length).toBeGreaterThan(40);
  });
  it('joryirving: games-on-whales depends on fenrir-crds (another source, wait: true): not a deadlock', () => {
    expect(has('joryirving__home-ops', 'runtime-crd', 'error', 'games/games-on-whales')).toBe(false);
  });
});

describe('real hazards that stay', () => {
  it('same-tier deadlocks of a flat repository: billimek cluster-apps applies tailscale and barman-cloud CRs with their charts', () => {
    // setup/bootstrap/helmfile.d/00-crds.yaml does not extract tailscale-operator or plugin-barman-cloud CRDs.
    expect(has('billimek__k8s-gitops', 'runtime-crd', 'error', 'flux-system/cluster-apps', 'tailscale.com')).toBe(true);
    expect(has('billimek__k8s-gitops', 'runtime-crd', 'error', 'flux-system/cluster-apps', 'barmancloud.cnpg.io')).toBe(true);
  });
  it('joryirving: cluster-apps applies Silences while silence-operator is its own child: the parent can never apply', () => {
    expect(has('joryirving__home-ops', 'runtime-crd', 'error', 'flux-system/cluster-apps', 'observability.giantswarm.io')).toBe(true);
  });
  it('sulibot: kube-prometheus-stack applies an AlertmanagerConfig beside the HelmRelease that installs its CRD', () => {
    expect(has('sulibot__home-ops', 'runtime-crd', 'error', 'flux-system/kube-prometheus-stack', 'monitoring.coreos.com')).toBe(true);
  });
  it('races: app tiers that use kopiur (joryirving) or dragonfly (bjw-s paperless) without depending on the operator tier', () => {
    expect(has('joryirving__home-ops', 'runtime-crd', 'warning', 'media/plex', 'kopiur.home-operations.com')).toBe(true);
    expect(has('bjw-s-labs__home-ops', 'runtime-crd', 'warning', 'selfhosted/paperless', 'dragonflydb.io')).toBe(true);
  });
  it('helmrelease-order: zigbee -> mosquitto crosses tiers with no Kustomization dependsOn (joryirving)', () => {
    expect(of('joryirving__home-ops', 'helmrelease-order', 'warning').some((p) => p.object === 'HelmRelease/home-automation/zigbee' && p.message.includes('home-automation/mosquitto'))).toBe(true);
  });
  it('sulibot: app tiers that apply VerticalPodAutoscalers without depending on the vpa tier (blackbox-exporter-lan waits only for kube-prometheus-stack)', () => {
    expect(has('sulibot__home-ops', 'runtime-crd', 'warning', 'flux-system/blackbox-exporter-lan', 'autoscaling.k8s.io')).toBe(true);
  });
  it('health-check-target: sulibot cert-manager health-checks the HelmRelease in the wrong namespace', () => {
    expect(of('sulibot__home-ops', 'health-check-target').some((p) => p.message.includes('HelmRelease/flux-system/cert-manager exists'))).toBe(true);
  });
});

describe('the judged table (check-judged.tsv): every error and warning judged, the true ones kept, the false ones gone', () => {
  const key = (p: Problem) => [p.code, p.cluster, p.tier ?? '', p.object ?? '', p.crdGroup ?? '', p.target ?? '', `${p.file}:${p.line}`].join('|');
  it.each([...new Set(TABLE.map((r) => r.dir))])('%s', (dir) => {
    const rows = TABLE.filter((r) => r.dir === dir);
    expect(rows.every((r) => ['true', 'false', 'artefact'].includes(r.verdict) && r.reason.length > 20)).toBe(true);
    const now = new Map(found.get(dir)!.filter((p) => p.severity !== 'info').map((p) => [key(p), p.severity]));
    const judged = new Map(rows.map((r) => [r.key, r]));
    // A finding nobody judged: judge it (scripts/corpus/judge-static.mjs, then by hand) and add its row.
    expect([...now.keys()].filter((k) => !judged.has(k))).toEqual([]);
    // A false one back, or a real hazard (or an artefact of the copy) no longer reported.
    expect(rows.filter((r) => r.verdict === 'false' && now.has(r.key)).map((r) => r.key)).toEqual([]);
    expect(rows.filter((r) => r.verdict !== 'false' && now.get(r.key) !== r.severity).map((r) => `${r.key} (${r.severity})`)).toEqual([]);
  });
});
