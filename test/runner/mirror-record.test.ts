import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/runner/events.js';
import { forgetMirror, MIRROR_RECORD, recordedMirror, recordMirror, shownUrl } from '../../src/runner/mirror-record.js';
import type { RootSync } from '../../src/plan/plan.js';
import { FakeCluster } from '../fakes/fake-cluster.js';

const root: RootSync = { key: 'flux-system/flux-system', ks: { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' }, source: { kind: 'GitRepository', namespace: 'flux-system', name: 'flux-system' } };
const signal = new AbortController().signal;
const cm = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'flux-system', name: MIRROR_RECORD };

describe('the mirror up records for resume', () => {
  it('up --source-url records it (and its namespace) under field manager standup; resume reads it back', async () => {
    const flux = new FakeCluster();
    const events: RunEvent[] = [];
    await recordMirror({ client: flux, emit: (e) => events.push(e), id: 'install', signal }, root, 'http://127.0.0.1:8080/homelab.git');
    expect(flux.writes.map((w) => w.id)).toEqual(['Namespace/flux-system', `ConfigMap/flux-system/${MIRROR_RECORD}`]);
    expect(events).toEqual([{ type: 'change', id: 'install', object: `ConfigMap/flux-system/${MIRROR_RECORD}`, change: { kind: 'apply', action: 'created' }, dryRun: false }]);
    expect(await recordedMirror(flux, root, signal)).toBe('http://127.0.0.1:8080/homelab.git');
  });

  it('a record for another source is not this root sync\'s mirror', async () => {
    const flux = new FakeCluster();
    await recordMirror({ client: flux, emit: () => {}, id: 'install', signal }, { ...root, source: { ...root.source, name: 'other' } }, 'http://127.0.0.1:8080/x.git');
    expect(await recordedMirror(flux, root, signal)).toBeNull();
    expect(await recordedMirror(new FakeCluster(), root, signal)).toBeNull();
  });

  it('a dry run writes nothing; up without --source-url forgets an earlier record', async () => {
    const flux = new FakeCluster();
    await recordMirror({ client: flux, emit: () => {}, id: 'install', signal, dryRun: true }, root, 'http://m/x.git');
    expect(flux.writes).toEqual([]);
    await recordMirror({ client: flux, emit: () => {}, id: 'install', signal }, root, 'http://m/x.git');
    const events: RunEvent[] = [];
    await forgetMirror({ client: flux, emit: (e) => events.push(e), id: 'install', signal }, root);
    expect(await flux.find(cm)).toBeUndefined();
    expect(events.map((e) => (e.type === 'change' ? e.change : null))).toEqual([{ kind: 'delete', existed: true }]);
    await forgetMirror({ client: flux, emit: (e) => events.push(e), id: 'install', signal }, root);
    expect(events).toHaveLength(1);
  });

  it('never shows credentials a mirror URL carries', () => {
    expect(shownUrl('https://bot:s3cret@git.example/h.git')).toBe('https://***@git.example/h.git');
    expect(shownUrl('http://127.0.0.1:8080/homelab.git')).toBe('http://127.0.0.1:8080/homelab.git');
    expect(shownUrl('ssh://git@git.example/h.git')).toBe('ssh://***@git.example/h.git');
  });
});
