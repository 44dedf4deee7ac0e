// Which CRD groups a bootstrap file installs, read statically: the CustomResourceDefinitions in a manifest or in a
// kustomize folder applied by hand (its local resources, recursively), and the groups a remote manifest's URL names.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Obj } from '../model/k8s.js';
import { chartEntry } from '../model/chart-crds.js';
import { isFile, statSafe } from '../repo/fs-stat.js';
import { KUSTOMIZATION_FILES } from '../repo/kustomization-file.js';
import { yaml, type TextMemo } from '../repo/lazy-yaml.js';
import { stripTemplates } from './helmfile-templates.js';

/** spec.group of every CustomResourceDefinition in a multi-document YAML text (templates set aside). */
export function crdGroupsInText(text: string, memo: TextMemo): string[] {
  // CRD manifests are large and rarely change: parsed once per text (cache/parse-memo.ts), not on every check.
  return memo.get('crd-groups', text, () => crdGroups(text));
}

function crdGroups(text: string): string[] {
  // A rendered install (a CNI's 14,000 lines) often holds no CRD at all: nothing to parse then.
  if (!text.includes('CustomResourceDefinition')) return [];
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

/** CRD groups in what `kubectl apply -f/-k` applies: a file, a folder (static read), or a URL named like a CRD. */
export function appliedGroups(abs: string, target: string, memo: TextMemo): string[] {
  if (/^https?:\/\//.test(target)) return crdGroupsOfUrl(target);
  return manifestCrdGroups(abs, memo);
}

/** CRD groups in a manifest file, or in the YAML files of a folder (its kustomization's resources when it has one). */
export function manifestCrdGroups(abs: string, memo: TextMemo): string[] {
  const st = statSafe(abs);
  if (!st) return [];
  if (st.isDirectory()) return kustomizeCrdGroups(abs, memo);
  try {
    return crdGroupsInText(readFileSync(abs, 'utf8'), memo);
  } catch {
    return [];
  }
}

/** Static read of a kustomize folder applied by hand: CRDs in its local resources, recursively; remote ones by URL. */
export function kustomizeCrdGroups(dir: string, memo: TextMemo, seen = new Set<string>()): string[] {
  if (seen.has(dir)) return [];
  seen.add(dir);
  const kfile = KUSTOMIZATION_FILES.map((n) => path.join(dir, n)).find(isFile);
  const groups = new Set<string>();
  if (!kfile) {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      /* unreadable */
    }
    for (const n of names.filter((n) => /\.ya?ml$/.test(n))) for (const g of manifestCrdGroups(path.join(dir, n), memo)) groups.add(g);
    return [...groups].sort();
  }
  let k: Obj | null = null;
  try {
    const text = readFileSync(kfile, 'utf8');
    k = memo.get('kustomization-first-doc', text, () => (yaml().parseAllDocuments(text)[0]?.toJS() ?? null) as Obj | null);
  } catch {
    return [];
  }
  for (const r of [...(Array.isArray(k?.resources) ? k!.resources : []), ...(Array.isArray(k?.crds) ? k!.crds : [])]) {
    if (typeof r !== 'string') continue;
    if (/^(https?:\/\/|github\.com\/|git@)/.test(r)) {
      for (const g of crdGroupsOfUrl(r)) groups.add(g);
      continue;
    }
    const abs = path.resolve(dir, r);
    const st = statSafe(abs);
    if (!st) continue;
    const got = st.isDirectory() ? kustomizeCrdGroups(abs, memo, seen) : manifestCrdGroups(abs, memo);
    for (const g of got) groups.add(g);
  }
  return [...groups].sort();
}
