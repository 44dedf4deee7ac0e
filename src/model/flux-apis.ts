// Which apiVersions of Flux's own kinds each Flux minor serves. Read from the controllers' CRDs
// (`config/crd/bases/*.yaml`, `versions[].served`) at the controller versions each Flux release installs
// (fluxcd/flux2 `manifests/bases/<controller>/kustomization.yaml` at tag v2.N.0): for example Flux v2.7.0 installs
// kustomize-controller v1.7.0, whose CRD serves kustomize.toolkit.fluxcd.io v1 and v1beta2, and Flux v2.8.0 installs
// v1.8.0, whose CRD serves v1 only. The replacement for a version no longer served is the one `flux migrate`
// writes (fluxcd/flux2 cmd/flux/migrate.go, latestAPIVersions): the newest that minor serves.
import type { FluxMinor } from './flux-versions.js';

/** Served from Flux 2.`since` through 2.`until` (inclusive; `until` null: still served by the newest minor known). */
interface Served {
  version: string;
  since: number;
  until: number | null;
}

const K = 'kustomize.toolkit.fluxcd.io';
const S = 'source.toolkit.fluxcd.io';
const H = 'helm.toolkit.fluxcd.io';
const N = 'notification.toolkit.fluxcd.io';
const I = 'image.toolkit.fluxcd.io';

/** `group/Kind` -> its versions, oldest first. Flux 2.0 is the first minor here (`since: 0` means 2.0 or earlier). */
const SERVED: Record<string, Served[]> = {
  [`${K}/Kustomization`]: [{ version: 'v1beta1', since: 0, until: 6 }, { version: 'v1beta2', since: 0, until: 7 }, { version: 'v1', since: 0, until: null }],
  [`${S}/GitRepository`]: [{ version: 'v1beta1', since: 0, until: 6 }, { version: 'v1beta2', since: 0, until: 7 }, { version: 'v1', since: 0, until: null }],
  [`${S}/HelmRepository`]: [{ version: 'v1beta1', since: 0, until: 6 }, { version: 'v1beta2', since: 0, until: 7 }, { version: 'v1', since: 3, until: null }],
  [`${S}/HelmChart`]: [{ version: 'v1beta1', since: 0, until: 6 }, { version: 'v1beta2', since: 0, until: 7 }, { version: 'v1', since: 3, until: null }],
  [`${S}/Bucket`]: [{ version: 'v1beta1', since: 0, until: 6 }, { version: 'v1beta2', since: 0, until: 7 }, { version: 'v1', since: 4, until: null }],
  [`${S}/OCIRepository`]: [{ version: 'v1beta2', since: 0, until: 7 }, { version: 'v1', since: 6, until: null }],
  [`${S}/ExternalArtifact`]: [{ version: 'v1', since: 7, until: null }],
  [`${H}/HelmRelease`]: [{ version: 'v2beta1', since: 0, until: 6 }, { version: 'v2beta2', since: 2, until: 7 }, { version: 'v2', since: 3, until: null }],
  [`${N}/Alert`]: [{ version: 'v1beta1', since: 0, until: 6 }, { version: 'v1beta2', since: 0, until: 8 }, { version: 'v1beta3', since: 2, until: null }],
  [`${N}/Provider`]: [{ version: 'v1beta1', since: 0, until: 6 }, { version: 'v1beta2', since: 0, until: 8 }, { version: 'v1beta3', since: 2, until: null }],
  [`${N}/Receiver`]: [{ version: 'v1beta1', since: 0, until: 6 }, { version: 'v1beta2', since: 0, until: 8 }, { version: 'v1', since: 0, until: null }],
  [`${I}/ImageRepository`]: [{ version: 'v1beta1', since: 0, until: 6 }, { version: 'v1beta2', since: 0, until: 8 }, { version: 'v1', since: 7, until: null }],
  [`${I}/ImagePolicy`]: [{ version: 'v1beta1', since: 0, until: 6 }, { version: 'v1beta2', since: 0, until: 8 }, { version: 'v1', since: 7, until: null }],
  [`${I}/ImageUpdateAutomation`]: [{ version: 'v1beta1', since: 0, until: 6 }, { version: 'v1beta2', since: 3, until: 8 }, { version: 'v1', since: 7, until: null }],
};

/** What a Flux minor says of an apiVersion of one of its kinds. */
export type ServedVerdict =
  | { served: true }
  /** The minor no longer serves it (removed in 2.`removedIn`); `replacement` is the apiVersion to write. */
  | { served: false; removedIn: FluxMinor; replacement: string }
  /** The minor does not serve it yet (first served in 2.`since`). */
  | { served: false; since: FluxMinor; replacement: string | null };

/**
 * Whether Flux `minor` serves `apiVersion` for `kind`; null for kinds that are not Flux's own, versions standup does
 * not know, and Flux majors other than 2.
 */
export function fluxServes(apiVersion: string, kind: string, minor: FluxMinor): ServedVerdict | null {
  const slash = apiVersion.lastIndexOf('/');
  if (slash < 0 || minor.major !== 2) return null;
  const group = apiVersion.slice(0, slash);
  const versions = SERVED[`${group}/${kind}`];
  const v = versions?.find((x) => x.version === apiVersion.slice(slash + 1));
  if (!versions || !v) return null;
  const m = minor.minor;
  if (m >= v.since && (v.until === null || m <= v.until)) return { served: true };
  const newest = [...versions].reverse().find((x) => m >= x.since && (x.until === null || m <= x.until));
  const replacement = newest ? `${group}/${newest.version}` : null;
  if (v.until !== null && m > v.until) return { served: false, removedIn: { major: 2, minor: v.until + 1 }, replacement: replacement ?? `${group}/${versions.at(-1)!.version}` };
  return { served: false, since: { major: 2, minor: v.since }, replacement };
}
