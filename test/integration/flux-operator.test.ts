// Flux through flux-operator, for real: a bare testbed whose node has flux-operator's image (built from its Go module,
// the Flux distribution manifests in /data) and Flux's controller images. `standup up --repo examples/fleet` installs
// the operator from the repository's manifests, applies the FluxInstance, and is interrupted while the instance
// installs Flux; `resume` waits for the instance (its controllers as pods, the root sync) and drives the tiers and
// the ResourceSet (and the Kustomizations it generates). `status` shows the instance; `reset` suspends through it and `resume` takes that back.
import path from 'node:path';
import { AppsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Testbed } from '../testbed/harness.js';
import { PROJECT } from './cli.js';
import { kube, ready, until } from './kube.js';
import { serveRepo } from './serve.js';

const REPO = path.join(PROJECT, 'examples/fleet');
const TIERS = ['apps', 'flux-system', 'infra', 'tenant-team1', 'tenant-team2', 'tenants'];
let tb: Testbed;
let url = '';
let sha = '';

const standup = (args: string[]) =>
  execa(process.execPath, ['--import', path.join(PROJECT, 'node_modules/tsx/dist/loader.mjs'), path.join(PROJECT, 'src/cli/main.ts'), ...args, '--repo', REPO, '--cluster', 'dev', '--kubeconfig', tb.kubeconfigPath],
    { cwd: PROJECT, reject: false, all: true, env: { CI: 'true', NO_COLOR: '1', TSX_TSCONFIG_PATH: path.join(PROJECT, 'tsconfig.json') } });

type Obj = { metadata: { annotations?: Record<string, string> }; spec?: Record<string, unknown>; status?: { conditions?: { type: string; status: string; message?: string }[] } };
const custom = () => tb.kubeConfig().makeApiClient(CustomObjectsApi);
async function fo(plural: 'fluxinstances' | 'resourcesets', name: string): Promise<Obj | null> {
  try {
    return (await custom().getNamespacedCustomObject({ group: 'fluxcd.controlplane.io', version: 'v1', namespace: 'flux-system', plural, name })) as Obj;
  } catch {
    return null;
  }
}
const isReady = (o: Obj | null) => !!o?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

async function deployments(namespace: string) {
  try {
    return (await tb.kubeConfig().makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace })).items;
  } catch {
    return [];
  }
}

beforeAll(async () => {
  tb = await start({ flux: 'pods', fluxOperator: true, handleSignals: false });
  ({ url, sha } = await serveRepo(tb.git, 'fleet', REPO, `${tb.clusterGitBaseUrl}/fleet.git`));
}, 180_000);

afterAll(async () => {
  await tb?.stop();
});

describe.sequential('Flux installed by flux-operator from a FluxInstance', () => {
  it('up, interrupted while the FluxInstance installs Flux; resume waits for it Ready and drives the tiers and the ResourceSet', async () => {
    const run = standup(['up', '--source-url', url]);
    // The operator is installed and the FluxInstance applied: its controllers are being created.
    try {
      await until('the FluxInstance to be applied', async () => (await fo('fluxinstances', 'flux')) && !isReady(await fo('fluxinstances', 'flux')), 300_000, 200);
    } catch (e) {
      // Say what up was doing, not only that the instance never came.
      run.kill('SIGKILL');
      throw new Error(`${(e as Error).message}\n${(await run).all}`);
    }
    run.kill('SIGINT');
    const r = await run;
    expect(r.exitCode, r.all).toBe(130);
    expect(r.all).toMatch(/Install flux-operator\s+ok/);
    expect(r.all).toMatch(/Install Flux through FluxInstance\/flux-system\/flux .*interrupted/);
    const fi = await fo('fluxinstances', 'flux');
    // The mirror holds: it is in the FluxInstance's own sync, which the operator turns into the root GitRepository.
    expect((fi?.spec?.sync as { url?: string }).url).toBe(url);

    const resumed = await standup(['resume']);
    expect(resumed.exitCode, resumed.all).toBe(0);
    expect(resumed.all).toMatch(/FluxInstance\/flux-system\/flux Ready \(v2\.9\.\d+\)/);
    expect(resumed.all).toMatch(/3 controller Deployment\(s\) Available/);
    expect(resumed.all).toMatch(/ResourceSet flux-system\/tenants.*ok/);
    // The ResourceSet's line names the Kustomizations it generates (from the static expansion), team2's after team1's.
    expect(resumed.all).toMatch(/ResourceSet flux-system\/tenants \(level 2\): waiting on [12] of the 2 Kustomizations\/HelmReleases it generates: .*Kustomization\/flux-system\/tenant-team/);
    expect(resumed.all).toMatch(/Kustomization\/flux-system\/tenant-team2 (after Kustomization\/flux-system\/tenant-team1|not applied yet)/);
    // The controllers run as pods, made by the operator (the testbed's own images, from the FluxInstance's patches).
    const flux = await deployments('flux-system');
    expect(flux.map((d) => d.metadata?.name).sort()).toEqual(['flux-operator', 'helm-controller', 'kustomize-controller', 'source-controller']);
    for (const d of flux) expect(d.status?.availableReplicas, d.metadata?.name).toBe(1);
    expect(flux.find((d) => d.metadata?.name === 'kustomize-controller')?.metadata?.labels?.['app.kubernetes.io/managed-by']).toBe('flux-operator');
    const kss = await kube(tb.kubeConfig()).kustomizations();
    expect(kss.map((k) => k.metadata.name).sort()).toEqual(TIERS);
    for (const k of kss) {
      expect(ready(k), k.metadata.name).toBe(true);
      expect(k.status?.lastAppliedRevision).toBe(`refs/heads/main@sha1:${sha}`);
    }
    expect(isReady(await fo('resourcesets', 'tenants'))).toBe(true);
    const demo = await deployments('demo');
    expect(demo.map((d) => d.metadata?.name).sort()).toEqual(['db', 'tenant-team1', 'tenant-team2', 'web']);
    for (const d of demo) expect(d.status?.availableReplicas, d.metadata?.name).toBe(1);
  }, 600_000);

  it('status shows the FluxInstance; reset suspends through it; resume takes its suspension back', async () => {
    const st = await standup(['status']);
    expect(st.exitCode, st.all).toBe(0);
    expect(st.stdout).toMatch(/^Flux from FluxInstance\/flux-system\/flux: Ready \(v2\.9\.\d+\)$/m);
    expect(st.stdout).toMatch(/^ResourceSet\/flux-system\/tenants \(level 2\): Ready: /m);

    const reset = await standup(['reset', '--yes']);
    expect(reset.exitCode, reset.all).toBe(0);
    expect(reset.all).toContain('FluxInstance/flux-system/flux reconciliation disabled (fluxcd.controlplane.io/reconcile: disabled), flux-system/flux-system suspended');
    const fi = await fo('fluxinstances', 'flux');
    expect(fi?.metadata.annotations?.['fluxcd.controlplane.io/reconcile']).toBe('disabled');
    expect(fi?.metadata.annotations?.['standup.io/suspended-by']).toMatch(/^standup reset at /);
    expect((await kube(tb.kubeConfig()).kustomizations()).map((k) => k.metadata.name)).toEqual(['flux-system']);
    const after = await standup(['status']);
    expect(after.stdout).toMatch(/reconciliation disabled by standup reset at /);
    // The tiers are gone: the ResourceSet's line says what it waits for first.
    expect(after.stdout).toMatch(/^ResourceSet\/flux-system\/tenants \(level 2\): not-found: waiting for flux-system\/apps \(its dependsOn\)$/m);

    const resumed = await standup(['resume']);
    expect(resumed.exitCode, resumed.all).toBe(0);
    expect(resumed.all).toContain('FluxInstance/flux-system/flux resumed');
    const back = await fo('fluxinstances', 'flux');
    expect(back?.metadata.annotations?.['fluxcd.controlplane.io/reconcile']).toBeUndefined();
    const kss = await kube(tb.kubeConfig()).kustomizations();
    expect(kss.map((k) => k.metadata.name).sort()).toEqual(TIERS);
    for (const k of kss) expect(ready(k), k.metadata.name).toBe(true);
    expect(isReady(await fo('resourcesets', 'tenants'))).toBe(true);
  }, 600_000);
});
