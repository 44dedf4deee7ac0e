import { afterAll, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/load/load-repository.js';
import { cleanupRepos, devTiers, ks, makeRepo } from '../helpers/repo-fixtures.js';

afterAll(cleanupRepos);

const tier = (postBuild: Record<string, unknown>) => ks('apps', { path: './apps', postBuild });
const target = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: target\n  namespace: default\ndata:\n  v: "${VAR}"\n  d: "${DEF:=fallback}"\n';
const secret = (extra: string) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: vars\n  namespace: flux-system\n${extra}`;

async function load(files: Record<string, string>) {
  const r = await loadRepository({ repo: makeRepo({ 'tiers.yaml': devTiers, 'apps/target.yaml': target, ...files }) });
  const data = r.clusters[0]!.objects.find((o) => o.name === 'target')!.raw.data as Record<string, string>;
  return { r, data, subs: r.problems.filter((p) => p.code === 'unresolved-substitution') };
}

describe('postBuild substitution through the loader (FLUX.md §6)', () => {
  it('reads variables from a plain Secret (data is base64, stringData is not)', async () => {
    const { data, subs } = await load({
      'clusters/dev/apps.yaml': tier({ substituteFrom: [{ kind: 'Secret', name: 'vars' }] }),
      'clusters/dev/vars.yaml': secret(`data:\n  VAR: ${Buffer.from('from-secret').toString('base64')}\n`),
    });
    expect(data).toEqual({ v: 'from-secret', d: 'fallback' });
    expect(subs).toEqual([]);
  });

  it('never decrypts a SOPS Secret: its variables are unknown (a warning), not undefined', async () => {
    const { data, subs } = await load({
      'clusters/dev/apps.yaml': tier({ substituteFrom: [{ kind: 'Secret', name: 'vars' }] }),
      'clusters/dev/vars.yaml': secret('stringData:\n  VAR: ENC[AES256_GCM,data:abc,type:str]\nsops:\n  age: []\n  version: 3.8.1\n'),
    });
    expect(data.v).toBe('${VAR}');
    expect(subs).toHaveLength(1);
    expect(subs[0]).toMatchObject({ severity: 'warning', object: 'Kustomization/flux-system/apps' });
    expect(subs[0]!.message).toContain('SOPS');
    expect(subs[0]!.message).toContain('VAR');
    expect(subs[0]!.message).not.toContain('ENC[');
  });

  it('a Secret no object of the repository makes: a warning naming it; one an ExternalSecret of the repository makes: an info', async () => {
    const missing = await load({ 'clusters/dev/apps.yaml': tier({ substituteFrom: [{ kind: 'Secret', name: 'vars' }] }) });
    expect(missing.subs.map((p) => [p.severity, p.message.includes('Secret/flux-system/vars (not in the repository)')])).toEqual([['warning', true]]);
    const es = (target: string) =>
      `apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: vars\n  namespace: flux-system\nspec:\n  secretStoreRef:\n    kind: ClusterSecretStore\n    name: store\n  target:\n    name: ${target}\n`;
    const made = await load({ 'clusters/dev/apps.yaml': tier({ substituteFrom: [{ kind: 'Secret', name: 'vars' }] }), 'clusters/dev/es.yaml': es('vars') });
    expect(made.data.v).toBe('${VAR}');
    expect(made.subs.map((p) => p.severity)).toEqual(['info']);
    expect(made.subs[0]!.message).toContain('come from Secret/flux-system/vars (made at run time by ExternalSecret/flux-system/vars), so their values are known only on the cluster');
    // An ExternalSecret of that name that writes another Secret does not make this one.
    const other = await load({ 'clusters/dev/apps.yaml': tier({ substituteFrom: [{ kind: 'Secret', name: 'vars' }] }), 'clusters/dev/es.yaml': es('elsewhere') });
    expect(other.subs.map((p) => p.severity)).toEqual(['warning']);
  });

  it('later substituteFrom refs win, and inline substitute wins over all of them', async () => {
    const cm = (name: string, v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: flux-system\ndata:\n  VAR: ${v}\n  DEF: ${v}\n`;
    const { data } = await load({
      'clusters/dev/apps.yaml': tier({ substitute: { DEF: 'inline' }, substituteFrom: [{ kind: 'ConfigMap', name: 'one' }, { kind: 'ConfigMap', name: 'two' }] }),
      'clusters/dev/one.yaml': cm('one', 'first'),
      'clusters/dev/two.yaml': cm('two', 'second'),
    });
    expect(data).toEqual({ v: 'second', d: 'inline' });
  });

  it('does not run at all when no variable resolves (an optional ref that is missing): defaults stay literal', async () => {
    const { data, subs } = await load({
      'clusters/dev/apps.yaml': tier({ substituteFrom: [{ kind: 'ConfigMap', name: 'absent', optional: true }] }),
    });
    expect(data).toEqual({ v: '${VAR}', d: '${DEF:=fallback}' });
    expect(subs).toEqual([]);
  });

  it('substituteStrategy Always runs without variables, so an undefined one is an error', async () => {
    const { data, subs } = await load({
      'clusters/dev/apps.yaml': tier({ substituteStrategy: 'Always', substitute: {} }),
    });
    expect(data.d).toBe('fallback');
    expect(subs).toHaveLength(1);
    expect(subs[0]).toMatchObject({ severity: 'error', file: 'apps/target.yaml', line: 4, object: 'ConfigMap/default/target' });
  });

  it('reads substituteFrom only in the Kustomization namespace', async () => {
    const { subs } = await load({
      'clusters/dev/apps.yaml': tier({ substitute: { OTHER: 'x' }, substituteFrom: [{ kind: 'ConfigMap', name: 'elsewhere', optional: true }] }),
      'clusters/dev/elsewhere.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: elsewhere\n  namespace: default\ndata:\n  VAR: nope\n',
    });
    expect(subs.map((p) => p.message)).toEqual([expect.stringContaining('"VAR"')]);
  });
});

describe("a parent's other overlay fields (FLUX.md §5)", () => {
  it('applies namePrefix, nameSuffix, images and commonMetadata like kustomize-controller', async () => {
    const r = await loadRepository({
      repo: makeRepo({
        'tiers.yaml': devTiers,
        'clusters/dev/apps.yaml': ks('apps', {
          path: './apps',
          namePrefix: 'pre-',
          nameSuffix: '-suf',
          images: [{ name: 'nginx', newTag: '1.27' }],
          commonMetadata: { labels: { team: 'a' }, annotations: { owner: 'me' } },
        }),
        'apps/deploy.yaml':
          'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: nginx:1.25\n',
      }),
    });
    const d = r.clusters[0]!.objects.find((o) => o.kind === 'Deployment')!;
    expect(d.name).toBe('pre-web-suf');
    expect(d.origin).toEqual({ file: 'apps/deploy.yaml', line: 4 });
    const raw = d.raw as { metadata: { labels: Record<string, string>; annotations: Record<string, string> }; spec: { template: { spec: { containers: { image: string }[] } } } };
    expect(raw.spec.template.spec.containers[0]!.image).toBe('nginx:1.27');
    expect(raw.metadata.labels).toEqual({ team: 'a' });
    expect(raw.metadata.annotations).toEqual({ owner: 'me' });
  });
});

describe('substituteFrom sources applied by a sibling', () => {
  it('waits for the sibling that applies the ConfigMap before deciding a variable is undefined', async () => {
    const r = await loadRepository({
      repo: makeRepo({
        'tiers.yaml': devTiers,
        // Rendered in the same wave; a-apps comes first, its variables live in what z-config applies.
        'clusters/dev/a-apps.yaml': ks('a-apps', { path: './apps', postBuild: { substituteFrom: [{ kind: 'ConfigMap', name: 'cluster-vars', optional: true }] } }),
        'clusters/dev/z-config.yaml': ks('z-config', { path: './config' }),
        'config/vars.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-vars\n  namespace: flux-system\ndata:\n  VAR: from-sibling\n',
        'apps/target.yaml': target,
      }),
      concurrency: 1, // one batch: a-apps' output is read before z-config's
    });
    expect(r.problems).toEqual([]);
    expect((r.clusters[0]!.objects.find((o) => o.name === 'target')!.raw.data as Record<string, string>).v).toBe('from-sibling');
  });
});
