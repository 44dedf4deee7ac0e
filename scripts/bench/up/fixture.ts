import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The benchmark's repository: a chain of `tiers` Flux Kustomizations (tier-1 <- tier-2 <- ... each dependsOn the
 * previous, all `wait: true`), each applying one Namespace and three ConfigMaps in it (nothing that needs a Pod: the
 * testbed has no kubelet). The root sync (clusters/bench/flux-system/gotk-sync.yaml) is a GitRepository and a root
 * Kustomization flux-system/flux-system whose path ./clusters/bench applies the tier Kustomizations.
 * `url` goes into the GitRepository as served (Flux re-applies it from git, so it must be the served URL).
 */
export function writeFixture(dir: string, o: { url: string; tiers: number; configMaps?: number }): { names: string[] } {
  const w = (rel: string, text: string) => {
    const p = path.join(dir, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, text);
  };
  const names = Array.from({ length: o.tiers }, (_, i) => `tier-${i + 1}`);
  w('tiers.yaml', [
    '# standup configuration of the generated benchmark repository (scripts/bench/up/fixture.ts).',
    'version: 1',
    'clusters:',
    '  bench:',
    '    path: clusters/bench',
    '    context: standup-testbed',
    '    resettable: true',
    '    bootstrap:',
    '      install: already-running',
    '      sync: clusters/bench/flux-system',
    'timeouts:',
    '  default: 5m',
    '',
  ].join('\n'));
  w('clusters/bench/flux-system/gotk-sync.yaml', `---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m0s
  ref:
    branch: main
  url: ${o.url}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m0s
  path: ./clusters/bench
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`);
  w('clusters/bench/flux-system/namespace.yaml', `apiVersion: v1
kind: Namespace
metadata:
  name: flux-system
  labels:
    kustomize.toolkit.fluxcd.io/prune: disabled
`);
  w('clusters/bench/flux-system/kustomization.yaml', `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - namespace.yaml
  - gotk-sync.yaml
`);
  w('clusters/bench/kustomization.yaml', `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - flux-system
${names.map((n) => `  - ${n}.yaml`).join('\n')}
`);
  names.forEach((n, i) => {
    w(`clusters/bench/${n}.yaml`, `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ${n}
  namespace: flux-system
spec:
  interval: 10m0s
  retryInterval: 30s
  timeout: 2m
  path: ./tiers/${n}
  prune: true
  wait: true
  sourceRef:
    kind: GitRepository
    name: flux-system
${i === 0 ? '' : `  dependsOn:\n    - name: ${names[i - 1]}\n`}`);
    const cms = Array.from({ length: o.configMaps ?? 3 }, (_, j) => `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings-${j + 1}
  namespace: bench-${n}
data:
  tier: "${n}"
  item: "${j + 1}"
`).join('');
    w(`tiers/${n}/kustomization.yaml`, `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - namespace.yaml
  - configmaps.yaml
`);
    w(`tiers/${n}/namespace.yaml`, `apiVersion: v1
kind: Namespace
metadata:
  name: bench-${n}
`);
    w(`tiers/${n}/configmaps.yaml`, cms);
  });
  return { names };
}
