// `standup init`: the text of a commented tiers.yaml from what discovery found. Pure: the command reads the
// repository and writes the file.
import type { PlatformUse } from '../model/bootstrap.js';
import type { ClusterModel } from '../model/flux.js';

export interface InitInput {
  version: string;
  clusters: ClusterModel[];
  platforms: PlatformUse[];
  /** Repository-relative files that exist, for the bootstrap paths (gotk-components.yaml, gotk-sync.yaml). */
  exists: (file: string) => boolean;
}

const q = (s: string) => (/^[\w./-]+$/.test(s) ? s : JSON.stringify(s));

export function initConfigText(i: InitInput): string {
  const out = [
    '# standup\'s configuration, written by `standup init` from what it found in this repository. Every key is',
    '# optional; README.md ("tiers.yaml") describes them all. Check it with `standup check`.',
    `# yaml-language-server: $schema=https://unpkg.com/@standup-cli/standup@${i.version}/schema/tiers.schema.json`,
    'version: 1',
  ];
  if (i.clusters.length) out.push('clusters:');
  for (const c of i.clusters) {
    out.push(`  ${c.name}:`, `    path: ${q(c.entry || '.')}                # the entry path: what the root Kustomization reconciles`);
    out.push('    # context: my-context         # pin the kube context: up, resume, crds and reset refuse any other (exit 4)');
    out.push('    # resettable: true            # only then may `standup reset` tear this cluster down');
    const src = c.rootSource;
    if (src && src.how !== 'assumed') {
      out.push(`    source: {kind: ${src.ref.kind}, name: ${src.ref.name}, namespace: ${src.ref.namespace}}${src.foundIn ? `   # found in ${src.foundIn}` : ''}`);
    } else {
      out.push('    # source: {kind: GitRepository, name: flux-system, namespace: flux-system}   # nothing in git says it: standup assumes this');
    }
    const fluxDir = `${c.entry ? `${c.entry}/` : ''}flux-system`;
    const components = `${fluxDir}/gotk-components.yaml`;
    if (i.exists(components)) {
      out.push('    bootstrap:', `      install: {path: ${q(components)}}   # the Flux install manifests \`standup up\` applies first`);
      if (i.exists(`${fluxDir}/gotk-sync.yaml`)) out.push(`      sync: ${q(fluxDir)}`);
    } else {
      out.push('    # bootstrap:', '    #   install: already-running      # or {path: FILE} with the Flux install manifests for `standup up`');
    }
  }
  const platforms = [...new Set(i.platforms.map((p) => p.platform))];
  if (platforms.length) {
    out.push(`platform: ${platforms.length === 1 ? platforms[0] : `[${platforms.join(', ')}]`}   # inferred from ${[...new Set(i.platforms.map((p) => p.from))].join(', ')}`);
  } else {
    out.push('# platform: talos                 # talos, k3s, rke2, openshift, gke, eks, aks: their own CRD groups exist');
  }
  out.push(
    '# externalCrds: [monitoring.coreos.com]   # CRD groups installed some other way',
    '# ignore:                          # findings check should not report, each with its reason',
    '#   - {code: runtime-crd, group: nas.example.com, reason: installed by the NAS operator}',
  );
  return out.join('\n') + '\n';
}
