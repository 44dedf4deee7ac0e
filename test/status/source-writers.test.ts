import { describe, expect, it } from 'vitest';
import { detectFight, sightingOf, writerOf, type SourceSighting } from '../../src/status/source-writers.js';

const s = (generation: number, url: string, writer: string, at = generation * 1000): SourceSighting => ({ generation, spec: JSON.stringify({ url }), url, writer, at });

describe('detectFight', () => {
  it.each([
    ['one spec all along', [s(1, 'A', 'standup')], null],
    ['one switch is an operator re-pointing the source, not a fight', [s(1, 'A', 'standup'), s(2, 'B', 'kustomize-controller')], null],
    ['A -> B -> A is two writers fighting', [s(1, 'A', 'kc (Kustomization flux-system/new)'), s(2, 'B', 'kc (Kustomization flux-system/old)'), s(3, 'A', 'kc (Kustomization flux-system/new)')], {
      sides: [{ url: 'A', writers: ['kc (Kustomization flux-system/new)'] }, { url: 'B', writers: ['kc (Kustomization flux-system/old)'] }], changes: 2, overMs: 2000 }],
  ])('%s', (_n, history, expected) => {
    expect(detectFight(history)).toEqual(expected);
  });
});

describe('writerOf', () => {
  it('names the field manager owning spec.url, and the Kustomization that applied it', () => {
    const src = {
      metadata: {
        labels: { 'kustomize.toolkit.fluxcd.io/name': 'old-sync', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' },
        managedFields: [
          { manager: 'source-controller', operation: 'Update', time: '2026-01-01T00:00:02Z', fieldsV1: { 'f:status': {} } as never },
          { manager: 'kustomize-controller', operation: 'Apply', time: '2026-01-01T00:00:01Z', fieldsV1: { 'f:spec': { 'f:url': {} } } },
        ],
      },
      spec: { url: 'B', interval: '1m' },
    };
    expect(writerOf(src)).toBe('kustomize-controller (Kustomization flux-system/old-sync)');
    expect(sightingOf(src, 5).url).toBe('B');
  });
});
