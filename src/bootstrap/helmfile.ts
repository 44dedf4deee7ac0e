// helmfile releases installed before Flux: each release (its chart, namespace and line), the CRD groups its hooks
// wait for, and the manifests its hooks `kubectl apply`. The file is a Go template: its {{ ... }} are set aside so
// the YAML parses (helmfile-templates.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BootstrapInstall } from '../model/bootstrap.js';
import type { Obj } from '../model/k8s.js';
import type { Problem } from '../model/problem.js';
import { yaml, type TextMemo } from '../repo/lazy-yaml.js';
import { appliedGroups } from './crd-groups.js';
import { stripTemplates } from './helmfile-templates.js';

/** What a helmfile says, as plain data: its first YAML error, or its releases with the line each starts on. */
type HelmfileRead =
  | { error: { line: number; message: string } }
  | { releases: { name: string; installed: boolean; chart: unknown; namespace: unknown; hooks: unknown; line: number | null }[]; crdsOnly: boolean };

function parseHelmfile(plain: string): HelmfileRead {
  const lc = new (yaml().LineCounter)();
  const docs = yaml().parseAllDocuments(plain, { lineCounter: lc, uniqueKeys: false, prettyErrors: false });
  const errors = docs.flatMap((d) => d.errors);
  if (errors.length) return { error: { line: lc.linePos(errors[0]!.pos[0]).line, message: errors[0]!.message.split('\n')[0]! } };
  const releases: Extract<HelmfileRead, { releases: unknown }>['releases'] = [];
  let crdsOnly = false;
  for (const doc of docs) {
    const contents = doc.contents as { items?: { key: unknown; value: { items?: { range?: [number] }[] } }[] } | null;
    const data = doc.toJS() as Obj | null;
    // `--include-crds` is a flag of `helm template` only (install and upgrade reject it): a helmfile whose defaults
    // pass it is rendered for its CRDs, its releases never installed.
    if (Array.isArray(data?.helmDefaults?.args) && (data!.helmDefaults.args as unknown[]).includes('--include-crds')) crdsOnly = true;
    if (!data || !Array.isArray(data.releases)) continue;
    const relNode = contents?.items?.find((p) => (p.key as { value?: unknown })?.value === 'releases')?.value;
    data.releases.forEach((r: Obj, i: number) => {
      if (!r || typeof r.name !== 'string') return;
      const offset = relNode?.items?.[i]?.range?.[0];
      releases.push({ name: r.name, installed: r.installed !== false, chart: r.chart ?? null, namespace: r.namespace ?? null, hooks: r.hooks ?? null, line: offset === undefined ? null : lc.linePos(offset).line });
    });
  }
  return { releases, crdsOnly };
}

/** Adds what the helmfile `file` installs to `installs`; a helmfile that does not parse is a problem. */
export function readHelmfile(file: string, rel: (abs: string) => string, installs: BootstrapInstall[], problems: Problem[], memo: TextMemo): void {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  const { text: plain } = stripTemplates(text);
  // Parsed once per text (cache/parse-memo.ts): a warm check then loads no YAML library for the bootstrap files.
  const read = memo.get('helmfile-releases', plain, () => parseHelmfile(plain));
  if ('error' in read) {
    problems.push({
      code: 'bootstrap-unreadable',
      severity: 'warning',
      message:
        `${rel(file)} looks like a helmfile, but it does not parse as YAML even with its {{ ... }} templates set aside ` +
        `(${read.error.message}): what it installs before Flux is not known, so CRD findings may be ` +
        `wrong. Declare what it installs in tiers.yaml (externalCrds), or simplify the templating.`,
      file: rel(file),
      line: read.error.line,
      object: null,
      cluster: null,
    });
    return;
  }
  const dir = path.dirname(file);
  for (const r of read.releases) {
    if (!r.installed) continue;
    const line = r.line;
    const chart = typeof r.chart === 'string' && !r.chart.includes('__tpl__') ? r.chart : null;
    const ns = typeof r.namespace === 'string' && !r.namespace.includes('__tpl__') ? r.namespace : null;
    const groups = new Set<string>();
    for (const h of Array.isArray(r.hooks) ? (r.hooks as Obj[]) : []) {
      const hook = hookOf(h, r.name, ns);
      for (const g of hook.waited) groups.add(g);
      for (const target of hook.applied) {
        const got = appliedGroups(path.resolve(dir, target), target, memo);
        if (got.length) installs.push({ name: path.basename(target), namespace: null, kind: 'hook-apply', chart: null, groups: got, file: rel(file), line });
      }
    }
    installs.push({ name: r.name, namespace: ns, kind: 'helmfile-release', chart, groups: [...groups].sort(), file: rel(file), line, ...(read.crdsOnly ? { crdsOnly: true } : {}) });
  }
}

interface Hook {
  /** Files, folders and URLs given to `kubectl apply -f/-k`. */
  applied: string[];
  /** CRD groups named by `kubectl wait crd/NAME`: they exist once the release is installed. */
  waited: string[];
}

/** A hook's kubectl apply targets and waited-for CRDs, with `{{ .Release.Name }}` and `.Namespace` filled in. */
function hookOf(h: Obj, name: string, ns: string | null): Hook {
  const out: Hook = { applied: [], waited: [] };
  if (!h || typeof h.command !== 'string' || !/(^|\/)kubectl$/.test(h.command) || !Array.isArray(h.args)) return out;
  const args = (h.args as unknown[]).map((a) => String(a)
    .replace(/__tpl_release_name__/g, name)
    .replace(/__tpl_release_namespace__/g, ns ?? 'default'));
  if (args.some((a) => a.includes('__tpl__'))) return out;
  if (args[0] === 'wait') {
    for (const a of args) {
      const m = /^(?:crd|customresourcedefinition)s?(?:\.apiextensions\.k8s\.io)?\/[a-z0-9-]+\.(.+)$/.exec(a);
      if (m) out.waited.push(m[1]!);
    }
    return out;
  }
  if (args[0] !== 'apply' && args[0] !== 'create') return out;
  for (let i = 1; i < args.length; i++) {
    const a = args[i]!;
    const eq = /^--(?:filename|kustomize)=(.+)$/.exec(a);
    if (eq) out.applied.push(eq[1]!);
    else if ((a === '-f' || a === '-k' || a === '--filename' || a === '--kustomize') && args[i + 1]) out.applied.push(args[++i]!);
  }
  return out;
}
