import { fluxServes } from '../../model/flux-apis.js';
import { fluxFor, NEWEST_FLUX, showMinor, type FluxMinor, type InstalledFlux } from '../../model/flux-versions.js';
import type { Problem } from '../../model/problem.js';
import { refKey } from '../../model/ref.js';
import type { Rule } from '../rule.js';

// Every object of Flux's own kinds uses an apiVersion that the Flux the repository installs serves. Flux 2.7 stopped
// serving the v1beta1 APIs, 2.8 kustomize v1beta2, source v1beta2 and helm v2beta2, 2.9 notification and image
// v1beta2 (model/flux-apis.ts): an old repository rebuilt onto a new cluster fails `no matches for kind` on the
// first object that still uses one, the same shape as the runtime-CRD deadlock.

const HOW: Record<InstalledFlux['how'], string> = {
  'install-manifests': "Flux's install manifests",
  'flux-source': "the tag of the Flux source a Kustomization applies Flux's manifests from",
  'flux-instance': "a FluxInstance's spec.distribution.version",
  'flux-instance-chart': "the flux-instance chart's values",
  'tiers.yaml': "tiers.yaml's bootstrap.install manifests",
};

/** Which Flux a cluster runs, in words: the version and where the repository says it, or that standup assumed it. */
export function fluxSource(installs: readonly InstalledFlux[], cluster: string): { minor: FluxMinor; assumed: boolean; said: string } {
  const found = fluxFor(installs, cluster);
  if (!found) {
    return { minor: NEWEST_FLUX, assumed: true, said: `the repository does not say which Flux it installs, so standup assumed the newest it knows, ${showMinor(NEWEST_FLUX)}` };
  }
  const f = found.from;
  const written = f.version ?? (f.kustomizeController ? `kustomize-controller ${f.kustomizeController}` : showMinor(found.minor));
  const at = f.line ? `${f.file}:${f.line}` : f.file;
  return { minor: found.minor, assumed: false, said: `the repository installs Flux ${showMinor(found.minor)} (${written}, ${HOW[f.how]} in ${at})` };
}

export const removedApiRule: Rule = {
  code: 'removed-api',
  description: "every Flux object uses an apiVersion that the repository's own Flux serves",
  check: ({ clusters, bootstrap }) =>
    clusters.flatMap(({ cluster }) => {
      const flux = fluxSource(bootstrap?.flux ?? [], cluster.name);
      const seen = new Set<string>();
      const out: Problem[] = [];
      if (flux.minor.major < 2) {
        // Flux before 2.0 served the beta APIs; standup's table of served versions starts at 2.0: not checked, said once.
        const f = fluxFor(bootstrap?.flux ?? [], cluster.name)!.from;
        out.push({
          code: 'removed-api',
          severity: 'info',
          message: `${cap(flux.said)}, older than Flux 2.0, where standup's table of served apiVersions starts: the apiVersions of this cluster's Flux objects were not checked.`,
          file: f.file,
          line: f.line,
          object: null,
          cluster: cluster.name,
          fluxVersion: { minor: showMinor(flux.minor), assumed: flux.assumed },
        });
        return out;
      }
      for (const o of cluster.objects) {
        const verdict = fluxServes(o.apiVersion, o.kind, flux.minor);
        if (!verdict || verdict.served) continue;
        const key = `${o.origin.file}\u0000${o.origin.line}\u0000${o.kind}\u0000${o.name}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const id = refKey(o);
        const when = 'removedIn' in verdict
          ? `which Flux ${showMinor(flux.minor)} no longer serves (removed in ${showMinor(verdict.removedIn)})`
          : `which Flux ${showMinor(flux.minor)} does not serve yet (first served by ${showMinor(verdict.since)})`;
        const write = verdict.replacement
          ? ` Write apiVersion: ${verdict.replacement} (\`standup fix --code removed-api\` rewrites it, as \`flux migrate\` does).`
          : ' Install a newer Flux.';
        out.push({
          code: 'removed-api',
          severity: 'error',
          message:
            `${id} uses ${o.apiVersion}, ${when}: on a new cluster ${o.owner ?? 'the root sync'} fails with ` +
            `'no matches for kind "${o.kind}" in version "${o.apiVersion}"'. ${cap(flux.said)}.${write}`,
          file: o.origin.file,
          line: o.origin.line,
          object: id,
          cluster: cluster.name,
          ...(o.owner ? { tier: o.owner } : {}),
          ...(verdict.replacement ? { replacement: verdict.replacement } : {}),
          fluxVersion: { minor: showMinor(flux.minor), assumed: flux.assumed },
        });
      }
      return out;
    }),
};

const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
