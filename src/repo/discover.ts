// Finds a repository's cluster entry points when it has no tiers.yaml: the root Kustomization of a
// flux-system/gotk-sync.yaml (or any flux-system file that pairs a GitRepository with the Kustomization reading it),
// a FluxInstance's spec.sync.path, or a flux-instance HelmRelease's values.instance.sync.path.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { SourceRef } from '../model/flux.js';

export interface ClusterEntry {
  name: string;
  /** Entry directory, relative to the repository root, '/'-separated, '' for the root itself. */
  entry: string;
  /** The root sync source: Kustomizations reading it render from this repository. */
  source: SourceRef;
  /** The source's URL when known: other GitRepositories with the same URL also count as this repository. */
  sourceUrl: string | null;
  /** Where the entry was found (relative file), for messages. */
  foundIn: string | null;
}

export const DEFAULT_SOURCE: SourceRef = { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' };

const SKIP_DIRS = new Set(['.git', 'node_modules']);

/** Normalises a Flux spec.path (`./a/b/`, `a//b`) to a root-relative posix path; '' is the root. */
export function normalizeRepoPath(p: string): string {
  const n = path.posix.normalize(`/${p.replace(/\\/g, '/')}`).replace(/^\/+/, '').replace(/\/+$/, '');
  return n === '.' ? '' : n;
}

function yamlFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (SKIP_DIRS.has(e.name)) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && (e.name.endsWith('.yaml') || e.name.endsWith('.yml'))) out.push(p);
    }
  };
  walk(root);
  return out.sort();
}

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function docsOf(text: string): Obj[] {
  const out: Obj[] = [];
  try {
    for (const d of parseAllDocuments(text, { uniqueKeys: false })) {
      if (d.errors.length) continue;
      const js = d.toJS({ maxAliasCount: -1 }) as unknown;
      if (js && typeof js === 'object' && !Array.isArray(js)) out.push(js as Obj);
    }
  } catch {
    /* unparseable: not an entry */
  }
  return out;
}

interface Found {
  entry: string;
  source: SourceRef;
  sourceUrl: string | null;
  foundIn: string;
}

/** Every entry point in the repository, deduplicated by path and named after the entry directory. */
export function discoverClusters(root: string): ClusterEntry[] {
  const found: Found[] = [];
  for (const abs of yamlFiles(root)) {
    const rel = path.relative(root, abs).split(path.sep).join('/');
    const inFluxSystem = path.basename(path.dirname(abs)) === 'flux-system';
    const base = path.basename(abs);
    let text: string;
    try {
      text = readFileSync(abs, 'utf8');
    } catch {
      continue;
    }
    const isSync = inFluxSystem && base === 'gotk-sync.yaml';
    const maybeRoot = inFluxSystem && /^kind:\s*GitRepository\b/m.test(text) && /^kind:\s*Kustomization\b/m.test(text);
    const maybeInstance = /^kind:\s*FluxInstance\b/m.test(text);
    const maybeHelm = /^kind:\s*HelmRelease\b/m.test(text) && /^\s+instance:/m.test(text) && /^\s+sync:/m.test(text);
    if (!isSync && !maybeRoot && !maybeInstance && !maybeHelm) continue;
    const docs = docsOf(text);
    if (isSync || maybeRoot) {
      const repos = docs.filter((d) => d.kind === 'GitRepository');
      const roots = docs.filter(
        (d) =>
          d.kind === 'Kustomization' &&
          String(d.apiVersion ?? '').startsWith('kustomize.toolkit.fluxcd.io/') &&
          repos.some((r) => r.metadata?.name === d.spec?.sourceRef?.name),
      );
      for (const k of roots) {
        const ns = k.metadata?.namespace ?? 'flux-system';
        const repo = repos.find((r) => r.metadata?.name === k.spec?.sourceRef?.name);
        found.push({
          entry: normalizeRepoPath(String(k.spec?.path ?? '')),
          source: { kind: 'GitRepository', name: String(k.spec.sourceRef.name), namespace: k.spec.sourceRef.namespace ?? ns },
          sourceUrl: typeof repo?.spec?.url === 'string' ? repo.spec.url : null,
          foundIn: rel,
        });
      }
      if (isSync && roots.length === 0 && docs.every((d) => d.kind !== 'Kustomization')) {
        // `flux bootstrap` placeholder (comments only): the cluster is the directory that holds flux-system/.
        found.push({ entry: normalizeRepoPath(path.dirname(path.dirname(rel))), source: DEFAULT_SOURCE, sourceUrl: null, foundIn: rel });
      }
    }
    for (const d of docs) {
      let sync: Obj | undefined;
      if (d.kind === 'FluxInstance') sync = d.spec?.sync;
      else if (d.kind === 'HelmRelease') sync = d.spec?.values?.instance?.sync;
      if (!sync || typeof sync.path !== 'string') continue;
      found.push({
        entry: normalizeRepoPath(sync.path),
        source: { kind: sync.kind ?? 'GitRepository', name: sync.name ?? 'flux-system', namespace: 'flux-system' },
        sourceUrl: typeof sync.url === 'string' ? sync.url : null,
        foundIn: rel,
      });
    }
  }
  const byEntry = new Map<string, Found>();
  for (const f of found) {
    if (!existsSync(path.join(root, f.entry))) continue;
    const prev = byEntry.get(f.entry);
    if (!prev || (!prev.sourceUrl && f.sourceUrl)) byEntry.set(f.entry, f);
  }
  return nameEntries([...byEntry.values()].sort((a, b) => a.entry.localeCompare(b.entry)));
}

/** Names entries after their directory; clashes take the parent directory too, then a number. */
function nameEntries(found: Found[]): ClusterEntry[] {
  const base = (e: string) => (e ? path.posix.basename(e) : 'root');
  const counts = new Map<string, number>();
  for (const f of found) counts.set(base(f.entry), (counts.get(base(f.entry)) ?? 0) + 1);
  const used = new Set<string>();
  return found.map((f) => {
    let name = base(f.entry);
    if ((counts.get(name) ?? 0) > 1) {
      const parent = path.posix.basename(path.posix.dirname(f.entry));
      if (parent && parent !== '.') name = `${parent}-${name}`;
    }
    let n = name;
    for (let i = 2; used.has(n); i++) n = `${name}-${i}`;
    used.add(n);
    return { name: n, entry: f.entry, source: f.source, sourceUrl: f.sourceUrl, foundIn: f.foundIn };
  });
}
