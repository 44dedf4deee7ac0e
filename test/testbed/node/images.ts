// The node's images: every one a static binary from the testbed cache, packed by oci.ts, imported into the node's
// containerd. Flux's carry their upstream names, so Flux's own manifests (gotk-components.yaml) run unchanged with
// imagePullPolicy IfNotPresent: nothing is ever pulled.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ociArchive, type ImageSpec } from './oci.js';

export const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';
export const APP_IMAGE = 'standup.invalid/testbed-app:v1';
export const CDI_OPERATOR_IMAGE = 'standup.invalid/cdi-operator:v1';

/** `<component> <version>` lines written by build-testbed.sh. */
export function builtVersions(binDir: string): Record<string, string> {
  const f = path.join(path.dirname(binDir), 'versions.txt');
  if (!existsSync(f)) return {};
  return Object.fromEntries(
    readFileSync(f, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ') as [string, string]),
  );
}

export const FLUX_CONTROLLERS = ['source-controller', 'kustomize-controller', 'helm-controller'] as const;

/** Flux's image references for the versions the testbed builds, e.g. ghcr.io/fluxcd/source-controller:v1.9.3. */
export function fluxImages(binDir: string): Record<(typeof FLUX_CONTROLLERS)[number], string> {
  const v = builtVersions(binDir);
  return Object.fromEntries(FLUX_CONTROLLERS.map((c) => [c, `ghcr.io/fluxcd/${c}:${v[c] ?? 'unknown'}`])) as Record<(typeof FLUX_CONTROLLERS)[number], string>;
}

/** CoreDNS under its upstream name, at the version the testbed builds. */
export const corednsImage = (binDir: string): string => `registry.k8s.io/coredns/coredns:${builtVersions(binDir).coredns ?? 'unknown'}`;

export function baseImages(binDir: string): ImageSpec[] {
  return [
    { ref: corednsImage(binDir), binary: path.join(binDir, 'coredns') },
    { ref: PAUSE_IMAGE, binary: path.join(binDir, 'testbed-pause'), entrypoint: 'pause' },
    { ref: APP_IMAGE, binary: path.join(binDir, 'testbed-app'), user: '65534:65534' },
    { ref: CDI_OPERATOR_IMAGE, binary: path.join(binDir, 'cdi-operator'), user: '65534:65534' },
  ];
}

/** Flux's controllers as their images: user 65534 and a /tmp, as upstream's (their pods set runAsNonRoot). */
export function fluxImageSpecs(binDir: string): ImageSpec[] {
  const refs = fluxImages(binDir);
  return FLUX_CONTROLLERS.map((c) => ({ ref: refs[c], binary: path.join(binDir, c), entrypoint: c, user: '65534:65534', dirs: ['tmp', 'data'] }));
}

export const fluxOperatorImage = (binDir: string): string => `ghcr.io/controlplaneio-fluxcd/flux-operator:${builtVersions(binDir)['flux-operator'] ?? 'unknown'}`;

/**
 * flux-operator as upstream's image has it, under the name its own install manifests carry: /flux-operator, the Flux
 * distribution manifests in /data (its --storage-path default, what a FluxInstance without distribution.artifact
 * installs from: no registry is reachable), a writable /tmp (manifests build there), user 65532, and an
 * /etc/os-release naming distroless 12: the operator's pre-build check refuses every FluxInstance without it.
 */
export function fluxOperatorImageSpec(binDir: string): ImageSpec {
  return {
    ref: fluxOperatorImage(binDir),
    binary: path.join(binDir, 'flux-operator'),
    user: '65532:65532',
    dirs: ['tmp', 'etc'],
    trees: [{ from: path.join(path.dirname(binDir), 'flux-operator', 'data'), to: 'data' }],
    files: [{ path: 'etc/os-release', data: 'PRETTY_NAME="Distroless"\nNAME="Debian GNU/Linux"\nID="debian"\nVERSION_ID="12"\n' }],
  };
}

/** Packs (once per cache key: archives live next to the binaries) and returns the archive paths. */
export async function imageArchives(binDir: string, specs: ImageSpec[]): Promise<string[]> {
  const out = path.join(path.dirname(binDir), 'images');
  const archives: string[] = [];
  for (const s of specs) archives.push(await ociArchive({ ...s, binary: s.binary }, out));
  return archives;
}
