// Text helpers for reading bootstrap files: set helmfile's Go templates aside so the YAML parses, and find CRD
// groups in manifests and in the URLs people `kubectl apply`.
import { yaml } from './lazy.js';
import { chartEntry } from '../lint/chart-crds.js';
import { sharedMemo } from './parse-memo.js';

/**
 * helmfile files are Go templates. Lines that are only template actions (`{{ if }}`, `{{ end }}`) are blanked, so
 * both branches are read; each other `{{ ... }}` becomes a plain token (`.Release.Name` and `.Release.Namespace`
 * keep their meaning for hook arguments). Line numbers are unchanged.
 */
export function stripTemplates(text: string): { text: string; templated: boolean } {
  let templated = false;
  const out = text.split('\n').map((line) => {
    if (!line.includes('{{')) return line;
    templated = true;
    if (/^\s*(\{\{-?[\s\S]*?-?\}\}\s*)+$/.test(line)) return '';
    return line
      .replace(/\{\{-?\s*\.Release\.Name\s*-?\}\}/g, '__tpl_release_name__')
      .replace(/\{\{-?\s*\.Release\.Namespace\s*-?\}\}/g, '__tpl_release_namespace__')
      .replace(/\{\{-?[\s\S]*?-?\}\}/g, '__tpl__');
  });
  return { text: out.join('\n'), templated };
}

/** spec.group of every CustomResourceDefinition in a multi-document YAML text (templates set aside). */
export function crdGroupsInText(text: string): string[] {
  // CRD manifests are large and rarely change: parsed once per text (parse-memo.ts), not on every check.
  return sharedMemo().get('crd-groups', text, () => crdGroups(text));
}

function crdGroups(text: string): string[] {
  const groups = new Set<string>();
  for (const doc of yaml().parseAllDocuments(stripTemplates(text).text, { uniqueKeys: false })) {
    if (doc.errors.length) continue;
    const o = doc.toJS() as { kind?: unknown; spec?: { group?: unknown } } | null;
    if (o?.kind === 'CustomResourceDefinition' && typeof o.spec?.group === 'string' && !o.spec.group.includes('__tpl__')) groups.add(o.spec.group);
  }
  return [...groups].sort();
}

/**
 * The CRD groups a remote manifest installs, from its URL alone (nothing is fetched): the Gateway API release
 * files, the `<group>_<plural>.yaml` names controller-gen gives CRD files, and a CRD file (`*crd*.yaml`) published
 * by a GitHub repository named like a chart in the chart table (cert-manager's cert-manager.crds.yaml).
 */
export function crdGroupsOfUrl(url: string): string[] {
  if (/kubernetes-sigs\/gateway-api\b|gateway-api\/.*(standard|experimental)-install\.ya?ml/.test(url)) return ['gateway.networking.k8s.io'];
  const file = url.split(/[?#]/)[0]!.split('/').pop() ?? '';
  const m = /^([a-z0-9-]+(?:\.[a-z0-9-]+)+)_[a-z0-9]+\.ya?ml$/.exec(file);
  if (m) return [m[1]!];
  const repo = /^(?:https?:\/\/)?(?:github\.com|raw\.githubusercontent\.com)\/[^/]+\/([^/]+)\//.exec(url)?.[1];
  if (repo && /crd/i.test(file)) return [...(chartEntry(repo)?.groups ?? [])];
  return [];
}
