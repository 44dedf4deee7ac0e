// Reads what a repository installs before Flux starts, so `check` knows which CRD groups exist before the first
// tier: helmfile releases (helmfile.yaml, helmfile.d/*, any helmfile/ folder), the files their hooks
// `kubectl apply`, kustomize folders under bootstrap/ applied by hand, tiers.yaml's bootstrap install manifests,
// and the platform (tiers.yaml `platform:`, or a Talos machine config in the tree). Static reads only: no helm, no
// kustomize, no network. A file that cannot be read is a `bootstrap-unreadable` warning, never a crash.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { yaml } from './lazy.js';
import type { Bootstrap, BootstrapInstall, PlatformUse } from '../model/bootstrap.js';
import type { StandupConfig } from '../model/config.js';
import type { ClusterModel } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import { crdGroupsInText, crdGroupsOfUrl, stripTemplates } from './bootstrap-yaml.js';
import { sharedMemo } from './parse-memo.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SKIP_DIRS = new Set(['.git', 'node_modules', '.github', 'charts', 'vendor']);
const MAX_DEPTH = 8;

/** Everything installed before Flux, for `check`. `root` is the repository directory; files are shown relative to it. */
export function readBootstrap(root: string, config: StandupConfig, clusters: readonly ClusterModel[], loadProblems: readonly Problem[] = []): Bootstrap {
  const files = walk(root);
  const rel = (abs: string) => path.relative(root, abs).split(path.sep).join('/');
  const installs: BootstrapInstall[] = [];
  const problems: Problem[] = [];
  for (const f of files.filter(isHelmfileCandidate)) readHelmfile(f, rel, installs, problems);
  for (const f of files.filter((f) => /(^|\/)bootstrap(\/|$)/.test(rel(path.dirname(f))) && /^kustomization\.ya?ml$/.test(path.basename(f)))) {
    const groups = kustomizeCrdGroups(path.dirname(f), new Set());
    if (groups.length) installs.push({ name: rel(path.dirname(f)), namespace: null, kind: 'manifest', chart: null, groups, file: rel(f), line: null });
  }
  for (const [name, c] of Object.entries(config.clusters)) {
    const p = c.bootstrap?.install;
    if (!p || p === 'already-running') continue;
    const groups = manifestCrdGroups(path.resolve(root, p.path));
    if (groups.length) installs.push({ name: `${name}: ${p.path}`, namespace: null, kind: 'manifest', chart: null, groups, file: 'tiers.yaml', line: null });
  }
  return { installs, platforms: platforms(config, files, rel, clusters), problems, tierCrds: unbuiltTierCrds(root, clusters, loadProblems) };
}

/**
 * A tier whose build failed (a remote resource without the network, a missing generator input) is not in the
 * models: the CRD groups its kustomization lists are read statically, so a CRD it applies by URL still counts.
 */
function unbuiltTierCrds(root: string, clusters: readonly ClusterModel[], loadProblems: readonly Problem[]): Bootstrap['tierCrds'] {
  const out: Bootstrap['tierCrds'] = [];
  for (const p of loadProblems) {
    if (p.code !== 'build-failed' || !p.object?.startsWith('Kustomization/') || !p.cluster) continue;
    const tier = p.object.slice('Kustomization/'.length);
    const ks = clusters.find((c) => c.name === p.cluster)?.kustomizations.find((k) => k.key === tier);
    if (!ks?.repoPath) continue;
    const dir = path.resolve(root, ks.repoPath);
    out.push({ cluster: p.cluster, tier, groups: kustomizeCrdGroups(dir, new Set()), charts: staticCharts(dir) });
  }
  return out;
}

function walk(root: string): string[] {
  const out: string[] = [];
  const go = (dir: string, depth: number) => {
    let entries: import('node:fs').Dirent[];
    try {
      // Entries with their types: a stat per file was most of a warm check's time in this reader.
      entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        try {
          const st = statSync(p);
          isDir = st.isDirectory();
          isFile = st.isFile();
        } catch {
          continue; // a dangling link
        }
      }
      if (isDir) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.') && depth < MAX_DEPTH) go(p, depth + 1);
      } else if (isFile && /\.(ya?ml)(\.gotmpl)?$|\.gotmpl$/.test(e.name)) {
        out.push(p);
      }
    }
  };
  go(root, 0);
  return out;
}

/** helmfile.yaml (and .gotmpl), anything in a helmfile.d/ or helmfile/ folder, bootstrap/**\/helmfile*.y*ml. */
function isHelmfileCandidate(f: string): boolean {
  const base = path.basename(f);
  const dir = path.basename(path.dirname(f));
  return /^helmfile.*\.ya?ml(\.gotmpl)?$/.test(base) || dir === 'helmfile.d' || dir === 'helmfile';
}

/** What a helmfile says, as plain data: its first YAML error, or its releases with the line each starts on. */
type HelmfileRead =
  | { error: { line: number; message: string } }
  | { releases: { name: string; installed: boolean; chart: unknown; namespace: unknown; hooks: unknown; line: number | null }[] };

function parseHelmfile(plain: string): HelmfileRead {
  const lc = new (yaml().LineCounter)();
  const docs = yaml().parseAllDocuments(plain, { lineCounter: lc, uniqueKeys: false, prettyErrors: false });
  const errors = docs.flatMap((d) => d.errors);
  if (errors.length) return { error: { line: lc.linePos(errors[0]!.pos[0]).line, message: errors[0]!.message.split('\n')[0]! } };
  const releases: Extract<HelmfileRead, { releases: unknown }>['releases'] = [];
  for (const doc of docs) {
    const contents = doc.contents as { items?: { key: unknown; value: { items?: { range?: [number] }[] } }[] } | null;
    const data = doc.toJS() as Obj | null;
    if (!data || !Array.isArray(data.releases)) continue;
    const relNode = contents?.items?.find((p) => (p.key as { value?: unknown })?.value === 'releases')?.value;
    data.releases.forEach((r: Obj, i: number) => {
      if (!r || typeof r.name !== 'string') return;
      const offset = relNode?.items?.[i]?.range?.[0];
      releases.push({ name: r.name, installed: r.installed !== false, chart: r.chart ?? null, namespace: r.namespace ?? null, hooks: r.hooks ?? null, line: offset === undefined ? null : lc.linePos(offset).line });
    });
  }
  return { releases };
}

function readHelmfile(file: string, rel: (abs: string) => string, installs: BootstrapInstall[], problems: Problem[]): void {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  const { text: plain } = stripTemplates(text);
  // Parsed once per text (parse-memo.ts): a warm check then loads no YAML library for the bootstrap files.
  const read = sharedMemo().get('helmfile-releases', plain, () => parseHelmfile(plain));
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
        const got = appliedGroups(path.resolve(dir, target), target);
        if (got.length) installs.push({ name: path.basename(target), namespace: null, kind: 'hook-apply', chart: null, groups: got, file: rel(file), line });
      }
    }
    installs.push({ name: r.name, namespace: ns, kind: 'helmfile-release', chart, groups: [...groups].sort(), file: rel(file), line });
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

/** CRD groups in what `kubectl apply -f/-k` applies: a file, a folder (static read), or a URL named like a CRD. */
function appliedGroups(abs: string, target: string): string[] {
  if (/^https?:\/\//.test(target)) return crdGroupsOfUrl(target);
  return manifestCrdGroups(abs);
}

/** CRD groups in a manifest file, or in the YAML files of a folder (its kustomization's resources when it has one). */
function manifestCrdGroups(abs: string): string[] {
  let st;
  try {
    st = statSync(abs);
  } catch {
    return [];
  }
  if (st.isDirectory()) return kustomizeCrdGroups(abs, new Set());
  try {
    return crdGroupsInText(readFileSync(abs, 'utf8'));
  } catch {
    return [];
  }
}

/** Static read of a kustomize folder applied by hand: CRDs in its local resources, recursively; remote ones by URL. */
function kustomizeCrdGroups(dir: string, seen: Set<string>): string[] {
  if (seen.has(dir)) return [];
  seen.add(dir);
  const kfile = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'].map((n) => path.join(dir, n)).find((p) => {
    try {
      return statSync(p).isFile();
    } catch {
      return false;
    }
  });
  const groups = new Set<string>();
  if (!kfile) {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      /* unreadable */
    }
    for (const n of names.filter((n) => /\.ya?ml$/.test(n))) for (const g of manifestCrdGroups(path.join(dir, n))) groups.add(g);
    return [...groups].sort();
  }
  let k: Obj | null = null;
  try {
    const text = readFileSync(kfile, 'utf8');
    k = sharedMemo().get('kustomization-first-doc', text, () => (yaml().parseAllDocuments(text)[0]?.toJS() ?? null) as Obj | null);
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
    let st;
    try {
      st = statSync(abs);
    } catch {
      continue;
    }
    const got = st.isDirectory() ? kustomizeCrdGroups(abs, seen) : manifestCrdGroups(abs);
    for (const g of got) groups.add(g);
  }
  return [...groups].sort();
}

/** Chart names of the HelmReleases and OCIRepositories in a folder's YAML files (a static read of a failed build). */
function staticCharts(dir: string): string[] {
  const charts = new Set<string>();
  for (const f of walk(dir)) {
    let text: string;
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    if (!/kind:\s*(HelmRelease|OCIRepository)/.test(text)) continue;
    for (const c of sharedMemo().get('static-charts', text, () => chartsInText(text))) charts.add(c);
  }
  return [...charts].sort();
}

function chartsInText(text: string): string[] {
  const charts: string[] = [];
  for (const doc of yaml().parseAllDocuments(stripTemplates(text).text, { uniqueKeys: false })) {
    const o = doc.errors.length ? null : (doc.toJS() as Obj | null);
    if (o?.kind === 'HelmRelease' && typeof o.spec?.chart?.spec?.chart === 'string') charts.push(o.spec.chart.spec.chart);
    if (o?.kind === 'OCIRepository' && typeof o.spec?.url === 'string') charts.push(o.spec.url);
  }
  return charts;
}

/**
 * Platforms: tiers.yaml `platform:`, else inferred from what only that platform uses: a Talos machine config or
 * talconfig.yaml / Image Factory schematic in a talos/ folder, or a TalosUpgrade resource that a tier applies.
 */
function platforms(config: StandupConfig, files: string[], rel: (abs: string) => string, clusters: readonly ClusterModel[]): PlatformUse[] {
  if (config.platform?.length) return config.platform.map((platform) => ({ platform, from: 'tiers.yaml' }));
  const talosFile = files.find((f) => {
    const r = rel(f);
    if (/(^|\/)talconfig\.ya?ml$/.test(r)) return true;
    if (!/(^|\/)talos\//.test(r)) return false;
    try {
      const t = readFileSync(f, 'utf8');
      return /^machine:\s*$/m.test(t) || /^customization:\s*$/m.test(t) || /^talos_?[vV]ersion:/m.test(t);
    } catch {
      return false;
    }
  });
  if (talosFile) return [{ platform: 'talos', from: `${rel(talosFile)} (a Talos machine configuration)` }];
  for (const c of clusters) {
    const up = c.objects.find((o) => o.kind === 'TalosUpgrade');
    if (up) return [{ platform: 'talos', from: `${up.origin.file} (a TalosUpgrade)` }];
  }
  return [];
}
