import { describe, expect, it } from 'vitest';
import { FLUX_KUSTOMIZATION, type K8sObject } from '../../src/cluster/client.js';
import { NoKindError } from '../../src/cluster/errors.js';
import { FakeClusterClient } from '../../src/cluster/fake.js';
import { observeKustomizations } from '../../src/cluster/watch.js';

const ks = (name: string): K8sObject => ({ ...FLUX_KUSTOMIZATION, metadata: { name, namespace: 'flux-system' }, spec: { path: `./${name}` } });

describe('FakeClusterClient', () => {
  it('reports created, then unchanged with no write, then configured', async () => {
    const c = new FakeClusterClient();
    expect((await c.apply([ks('infra')], { fieldManager: 'standup', force: true }))[0]!.action).toBe('created');
    expect((await c.apply([ks('infra')], { fieldManager: 'standup', force: true }))[0]!.action).toBe('unchanged');
    expect(c.writes).toHaveLength(1);
    const changed = { ...ks('infra'), spec: { path: './other' } };
    expect((await c.apply([changed], { fieldManager: 'standup', force: true }))[0]!.action).toBe('configured');
  });

  it('pushes a snapshot to observers on every scripted status change', async () => {
    const c = new FakeClusterClient();
    c.set(ks('infra'));
    const ac = new AbortController();
    const seen: string[] = [];
    const done = (async () => {
      for await (const snap of observeKustomizations(c, ac.signal)) {
        const s = (snap.get('flux-system/infra')?.status as { conditions?: { status: string }[] } | undefined)?.conditions?.[0]?.status ?? 'none';
        seen.push(s);
        if (s === 'True') ac.abort();
      }
    })();
    await new Promise((r) => setTimeout(r, 0));
    c.update({ ...FLUX_KUSTOMIZATION, name: 'infra', namespace: 'flux-system' }, (o) => {
      o.status = { conditions: [{ type: 'Ready', status: 'True' }] };
    });
    await done;
    expect(seen).toEqual(['none', 'True']);
  });

  it('throws NoKindError for kinds it does not serve', async () => {
    const c = new FakeClusterClient();
    c.servedKinds = new Set(['v1|Namespace']);
    await expect(c.list(FLUX_KUSTOMIZATION)).rejects.toBeInstanceOf(NoKindError);
  });
});
