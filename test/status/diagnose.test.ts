import { describe, expect, it } from 'vitest';
import { diagnoseMessage, parseDependency, parseHealthCheck, parseMissingCrd } from '../../src/status/diagnose.js';
import { shortRevision } from '../../src/status/revision.js';

describe('parseMissingCrd', () => {
  it.each([
    [
      'a cluster-scoped CR names Kind/name',
      'StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"\n',
      { kind: 'StorageProfile', group: 'cdi.kubevirt.io', version: 'v1beta1', object: 'StorageProfile/longhorn' },
    ],
    [
      'a namespaced CR names Kind/ns/name (seen in the wild)',
      'IngressRouteTCP/uat-test-app/uat-test-app dry-run failed: no matches for kind "IngressRouteTCP" in version "traefik.io/v1alpha1"\nNamespace/uat-test-app configured',
      { kind: 'IngressRouteTCP', group: 'traefik.io', version: 'v1alpha1', object: 'IngressRouteTCP/uat-test-app/uat-test-app' },
    ],
    ['a bare client error without the object still gives the kind', 'no matches for kind "CDI" in version "cdi.kubevirt.io/v1beta1"', { kind: 'CDI', group: 'cdi.kubevirt.io', version: 'v1beta1', object: 'CDI' }],
  ])('%s', (_n, msg, want) => {
    expect(parseMissingCrd(msg)).toEqual({ type: 'missing-crd', ...want });
  });

  it('returns null for other failures', () => {
    expect(parseMissingCrd('Deployment/apps/web dry-run failed (Invalid): …')).toBeNull();
  });
});

describe('parseHealthCheck', () => {
  it('lists every object still in progress after a timeout', () => {
    const d = parseHealthCheck(
      "health check failed after 4m59.9s: timeout waiting for: [Deployment/apps/web status: 'InProgress', HelmRelease/cdi/cdi-operator status: 'InProgress', CustomResourceDefinition/storageprofiles.cdi.kubevirt.io status: 'NotFound']",
    );
    expect(d).toEqual({
      type: 'health-check',
      cause: 'timeout',
      after: '4m59.9s',
      objects: [
        { object: 'Deployment/apps/web', kind: 'Deployment', namespace: 'apps', name: 'web', status: 'InProgress' },
        { object: 'HelmRelease/cdi/cdi-operator', kind: 'HelmRelease', namespace: 'cdi', name: 'cdi-operator', status: 'InProgress' },
        { object: 'CustomResourceDefinition/storageprofiles.cdi.kubevirt.io', kind: 'CustomResourceDefinition', namespace: null, name: 'storageprofiles.cdi.kubevirt.io', status: 'NotFound' },
      ],
    });
  });

  it('keeps a per-object error, even one containing a comma', () => {
    const d = parseHealthCheck(
      "health check failed after 30s: failed early due to stalled resources: [HelmRelease/cdi/cdi status: 'Failed': install retries exhausted, see events, Kustomization/flux-system/apps status: 'InProgress']",
    );
    expect(d?.cause).toBe('stalled');
    expect(d?.objects.map((o) => [o.object, o.status, o.error])).toEqual([
      ['HelmRelease/cdi/cdi', 'Failed', 'install retries exhausted, see events'],
      ['Kustomization/flux-system/apps', 'InProgress', undefined],
    ]);
  });

  it('reads a Ready message through diagnoseMessage()', () => {
    const d = diagnoseMessage("health check failed after 1m0s: timeout waiting for: [Job/db/migrate status: 'InProgress']");
    expect(d?.type).toBe('health-check');
  });
});

describe('parseDependency', () => {
  it.each([
    ["dependency 'flux-system/infra' is not ready", 'flux-system/infra', 'not-ready'],
    ["dependency 'flux-system/platform' revision is not up to date", 'flux-system/platform', 'revision'],
    ["dependency 'flux-system/gone' not found: Kustomization.kustomize.toolkit.fluxcd.io \"gone\" not found", 'flux-system/gone', 'not-found'],
    ["dependency 'flux-system/infra' is not ready according to readyExpr eval", 'flux-system/infra', 'ready-expr'],
  ] as const)('reads %j', (msg, key, why) => {
    expect(parseDependency(msg)).toEqual({ key, why });
  });
});

describe('shortRevision', () => {
  it.each([
    ['main@sha1:5c6a8ee0b7d6e1c2a3f4b5c6d7e8f9a0b1c2d3e4', 'main@sha1:5c6a8ee0'],
    ['feat/x@sha1:5c6a8ee0b7d6e1c2a3f4b5c6d7e8f9a0b1c2d3e4', 'feat/x@sha1:5c6a8ee0'],
    ['sha256:' + 'a'.repeat(64), 'sha256:aaaaaaaa'],
    ['v1.2.3@sha1:' + 'b'.repeat(39), 'v1.2.3@sha1:' + 'b'.repeat(39)],
    ['x:' + 'c'.repeat(129), 'x:' + 'c'.repeat(129)],
    ['main@sha1:' + 'ABCDEF0123'.repeat(4), 'main@sha1:' + 'ABCDEF0123'.repeat(4)],
    ['', ''],
  ])('shortens %j like flux', (rev, want) => {
    expect(shortRevision(rev)).toBe(want);
  });
});
