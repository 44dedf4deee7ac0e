// Reads what a repository installs before Flux starts, so `check` knows which CRD groups exist before the first
// tier: helmfile releases (helmfile.yaml, helmfile.d/*, any helmfile/ folder), the files their hooks
// `kubectl apply`, bootstrap commands in a justfile, Taskfile or shell script (command-scripts.ts), k3s HelmChart
// manifests (k3s-helmcharts.ts), a Talos machine configuration's extraManifests (talos-manifests.ts), kustomize folders under bootstrap/ applied by hand, tiers.yaml's bootstrap install
// manifests, and the platform (platform-evidence.ts). Static reads only: no helm, no
// kustomize, no network. A file that cannot be read is a `bootstrap-unreadable` warning, never a crash.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { noMemo, yaml, type TextMemo } from '../repo/lazy-yaml.js';
import { repoRelative } from '../repo/repo-path.js';
import type { Bootstrap, BootstrapInstall } from '../model/bootstrap.js';
import type { StandupConfig } from '../model/config.js';
import type { ClusterModel } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import { commandFiles, readCommandFile } from './command-scripts.js';
import { kustomizeCrdGroups, manifestCrdGroups } from './crd-groups.js';
import { readHelmfile } from './helmfile.js';
import { readInstalledFlux } from './installed-flux.js';
import { stripTemplates } from './helmfile-templates.js';
import { readK3sHelmCharts } from './k3s-helmcharts.js';
import { readTalosManifests } from './talos-manifests.js';
import { inferPlatforms } from './platform-evidence.js';
import type { Obj } from '../model/k8s.js';


const SKIP_DIRS = new Set(['.git', 'node_modules', '.github', 'charts', 'vendor']);
const MAX_DEPTH = 8;

/**
 * Everything installed before Flux, for `check`. `root` is the repository directory; files are shown relative to it.
 * `memo`: the load's parse memo (LoadedRepository.memo), so that a warm check parses no bootstrap file again.
 */
export function readPreFluxInstalls(root: string, config: StandupConfig, clusters: readonly ClusterModel[], loadProblems: readonly Problem[] = [], memo: TextMemo = noMemo): Bootstrap {
  const files = walk(root);
  const rel = (abs: string) => repoRelative(root, abs);
  const installs: BootstrapInstall[] = [];
  const problems: Problem[] = [];
  for (const f of files.filter(isHelmfileCandidate)) readHelmfile(f, rel, installs, problems, memo);
  for (const f of commandFiles(root)) readCommandFile(f, root, rel, installs, problems, memo);
  readTalosManifests(root, rel, installs, problems, memo);
  const k3s = readK3sHelmCharts(files, rel, clusters, installs, problems);
  for (const f of files.filter((f) => /(^|\/)bootstrap(\/|$)/.test(rel(path.dirname(f))) && /^kustomization\.ya?ml$/.test(path.basename(f)))) {
    const groups = kustomizeCrdGroups(path.dirname(f), memo);
    if (groups.length) installs.push({ name: rel(path.dirname(f)), namespace: null, kind: 'manifest', chart: null, groups, file: rel(f), line: null });
  }
  for (const [name, c] of Object.entries(config.clusters)) {
    const p = c.bootstrap?.install;
    if (!p || p === 'already-running') continue;
    const file = 'path' in p ? p.path : p.operator;
    const groups = manifestCrdGroups(path.resolve(root, file), memo);
    if (groups.length) installs.push({ name: `${name}: ${file}`, namespace: null, kind: 'manifest', chart: null, groups, file: 'tiers.yaml', line: null });
  }
  return { installs, platforms: inferPlatforms(config, root, files, rel, clusters, k3s), problems, tierCrds: unbuiltTierCrds(root, clusters, loadProblems, memo), flux: readInstalledFlux(root, config, clusters, memo) };
}

/**
 * A tier whose build failed (a remote resource without the network, a missing generator input) is not in the
 * models: the CRD groups its kustomization lists are read statically, so a CRD it applies by URL still counts.
 */
function unbuiltTierCrds(root: string, clusters: readonly ClusterModel[], loadProblems: readonly Problem[], memo: TextMemo): Bootstrap['tierCrds'] {
  const out: Bootstrap['tierCrds'] = [];
  for (const p of loadProblems) {
    if (p.code !== 'build-failed' || !p.object?.startsWith('Kustomization/') || !p.cluster) continue;
    const tier = p.object.slice('Kustomization/'.length);
    const ks = clusters.find((c) => c.name === p.cluster)?.kustomizations.find((k) => k.key === tier);
    if (!ks?.repoPath) continue;
    const dir = path.resolve(root, ks.repoPath);
    out.push({ cluster: p.cluster, tier, groups: kustomizeCrdGroups(dir, memo), charts: staticCharts(dir, memo) });
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
      } else if (isFile && /\.(ya?ml)(\.gotmpl|\.j2)?$|\.gotmpl$/.test(e.name)) {
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

/** Chart names of the HelmReleases and OCIRepositories in a folder's YAML files (a static read of a failed build). */
function staticCharts(dir: string, memo: TextMemo): string[] {
  const charts = new Set<string>();
  for (const f of walk(dir)) {
    let text: string;
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    if (!/kind:\s*(HelmRelease|OCIRepository)/.test(text)) continue;
    for (const c of memo.get('static-charts', text, () => chartsInText(text))) charts.add(c);
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
