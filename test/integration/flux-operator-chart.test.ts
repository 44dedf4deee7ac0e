// flux-operator installed from a Helm chart, for real: a bare testbed (flux-operator's image and Flux's on the node, no
// Flux), and examples/fleet with bootstrap.install.operator naming a chart directory instead of rendered manifests (a
// small flux-operator chart written for these tests, test/fixtures/charts/flux-operator, with the CRDs of the
// flux-operator module the testbed builds in its crds/). `standup up` renders it with the real helm (the testbed's,
// built from helm.sh/helm/v4), applies it, then the FluxInstance; the instance gets Ready and every tier converges.
// The live objects carry helm's ownership metadata, and the real `helm install` of the same release adopts them, with
// server-side apply forcing conflicts as helm-controller installs (a release of another name is refused by helm's own
// ownership check).
import { cpSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AppsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Testbed } from '../testbed/harness.js';
import { testbedBinDir, testbedCacheDir } from '../testbed/paths.js';
import { PROJECT } from './cli.js';
import { kube, ready } from './kube.js';
import { serveRepo } from './serve.js';

const TIERS = ['apps', 'flux-system', 'infra', 'tenant-team1', 'tenant-team2', 'tenants'];
let tb: Testbed;
let repo = '';
let url = '';
let sha = '';
let helm = '';

const standup = (args: string[]) =>
  execa(process.execPath, ['--import', path.join(PROJECT, 'node_modules/tsx/dist/loader.mjs'), path.join(PROJECT, 'src/cli/main.ts'), ...args, '--repo', repo, '--cluster', 'dev', '--kubeconfig', tb.kubeconfigPath],
    { cwd: PROJECT, reject: false, all: true, env: { CI: 'true', NO_COLOR: '1', TSX_TSCONFIG_PATH: path.join(PROJECT, 'tsconfig.json'), STANDUP_HELM: helm } });

beforeAll(async () => {
  helm = path.join(testbedBinDir(), 'helm');
  repo = mkdtempSync(path.join(tmpdir(), 'standup-fleet-chart-'));
  cpSync(path.join(PROJECT, 'examples/fleet'), repo, { recursive: true });
  rmSync(path.join(repo, 'bootstrap/flux-operator.yaml'));
  const chart = path.join(repo, 'bootstrap/flux-operator');
  cpSync(path.join(PROJECT, 'test/fixtures/charts/flux-operator'), chart, { recursive: true });
  cpSync(path.join(testbedCacheDir(), 'flux-operator/config/crd/bases'), path.join(chart, 'crds'), { recursive: true });
  const tiers = readFileSync(path.join(repo, 'tiers.yaml'), 'utf8');
  writeFileSync(path.join(repo, 'tiers.yaml'), tiers.replace('operator: bootstrap/flux-operator.yaml', 'operator: bootstrap/flux-operator'));
  tb = await start({ flux: 'pods', fluxOperator: true, handleSignals: false });
  ({ url, sha } = await serveRepo(tb.git, 'fleet-chart', repo, `${tb.clusterGitBaseUrl}/fleet-chart.git`));
}, 180_000);

afterAll(async () => {
  await tb?.stop();
  if (repo) rmSync(repo, { recursive: true, force: true });
});

describe.sequential('flux-operator from a chart directory, rendered by the real helm', () => {
  it('up renders the chart, installs the operator and the FluxInstance; every tier converges', async () => {
    const r = await standup(['up', '--source-url', url]);
    expect(r.exitCode, r.all).toBe(0);
    expect(r.all).toMatch(/Install flux-operator\s+ok/);
    expect(r.all).toContain('bootstrap/flux-operator (helm template flux-operator)');
    expect(r.all).toMatch(/FluxInstance\/flux-system\/flux Ready \(v2\.9\.\d+\)/);
    const fi = (await tb.kubeConfig().makeApiClient(CustomObjectsApi).getNamespacedCustomObject({ group: 'fluxcd.controlplane.io', version: 'v1', namespace: 'flux-system', plural: 'fluxinstances', name: 'flux' })) as { status?: { conditions?: { type: string; status: string }[] } };
    expect(fi.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    const kss = await kube(tb.kubeConfig()).kustomizations();
    expect(kss.map((k) => k.metadata.name).sort()).toEqual(TIERS);
    for (const k of kss) {
      expect(ready(k), k.metadata.name).toBe(true);
      expect(k.status?.lastAppliedRevision).toBe(`refs/heads/main@sha1:${sha}`);
    }
  }, 600_000);

  it("the live objects carry helm's ownership metadata; helm install of the release adopts them, another release is refused", async () => {
    const apps = tb.kubeConfig().makeApiClient(AppsV1Api);
    const d = await apps.readNamespacedDeployment({ namespace: 'flux-system', name: 'flux-operator' });
    expect(d.metadata?.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');
    expect(d.metadata?.annotations).toMatchObject({ 'meta.helm.sh/release-name': 'flux-operator', 'meta.helm.sh/release-namespace': 'flux-system' });
    expect(d.status?.availableReplicas).toBe(1);
    const chart = path.join(repo, 'bootstrap/flux-operator');
    const kc = ['--kubeconfig', tb.kubeconfigPath, '--namespace', 'flux-system'];
    // helm's own ownership check (pkg/action/validate.go checkOwnership) against another release name: refused.
    const other = await execa(helm, ['install', 'someone-else', chart, ...kc], { reject: false, all: true });
    expect(other.exitCode, other.all).not.toBe(0);
    expect(other.all).toMatch(/exists and cannot be imported into the current release: invalid ownership metadata.*"meta\.helm\.sh\/release-name" must equal "someone-else": current value is "flux-operator"/s);
    // The release the objects were rendered for: adopted, as helm-controller's install of the repository's HelmRelease
    // does it: server-side apply forcing conflicts (helm-controller v1.6.4 internal/action/install.go: "We always
    // force conflicts on server-side apply"). Without --force-conflicts, the helm CLI's install stops on the fields
    // field manager standup owns with a value the server normalized (resources.limits.cpu 2000m -> 2).
    const adopt = await execa(helm, ['install', 'flux-operator', chart, '--server-side=true', '--force-conflicts', ...kc], { reject: false, all: true });
    expect(adopt.exitCode, adopt.all).toBe(0);
    const list = await execa(helm, ['list', '-o', 'json', ...kc], { reject: false });
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ name: 'flux-operator', namespace: 'flux-system', status: 'deployed' })]);
  }, 300_000);
});
