// Finds a repository's cluster entry points and, for each, the root sync's source (what "this repository" is called
// inside the cluster). The same inference serves discovery (no tiers.yaml) and `--path` (see load.ts). Entries come
// from:
// - a root pair: a Flux Kustomization and the source it reads, declared in one folder (gotk-sync.yaml, or split over
//   files). In a flux-system folder the Kustomization's spec.path is the entry, as `flux bootstrap` writes it;
//   elsewhere only a root that applies itself counts (its spec.path builds the file that declares it), so a tier
//   with its own source (a chart's GitRepository, a tenant) is not taken for a cluster;
// - an overlay that includes such a folder and patches the root (a fleet of clusters over one base): built with the
//   real kustomize, the patched spec.path is the entry, one cluster per overlay;
// - a FluxInstance's spec.sync, or a flux-instance HelmRelease's values.instance.sync (inline, or from valuesFrom
//   ConfigMaps and Secrets that kustomize generates from files in the repository).
// Two roots that sync one path are one cluster whose sources are all this repository.
import { readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { yaml } from './lazy.js';
import type { SourceRef } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import { objectId } from '../model/ref.js';
import { trimKustomizeError } from './build-problems.js';
import { isFluxInstanceRelease, mergeValues, valuesFrom } from './helm-values.js';
import type { KustomizationFiles } from './kustomization-file.js';
import type { BuildOutcome } from './kustomize.js';
import { materialize, type BuiltObject } from './kustomize-output.js';
import { KustomizeTree } from './kustomize-tree.js';
import { KUSTOMIZATION_FILES, type Ignored } from './overlay.js';
import type { ParseMemo } from './parse-memo.js';

export interface SourceSpec {
  ref: SourceRef;
  /** The source's URL when known: other GitRepositories with the same URL also count as this repository. */
  url: string | null;
}

/** How a cluster's root source was learned: tiers.yaml, discovery, the --source flag, or assumed (nothing said). */
export type SourceHow = 'config' | 'discovered' | 'flag' | 'assumed';

export interface ClusterEntry {
  name: string;
  /** Entry directory, relative to the repository root, '/'-separated, '' for the root itself. */
  entry: string;
  /** The root sync source: Kustomizations reading it render from this repository. */
  source: SourceRef;
  /** The source's URL when known: other GitRepositories with the same URL also count as this repository. */
  sourceUrl: string | null;
  /** Other root syncs of the same entry path (a FluxInstance and a plain root): their sources are this repository too. */
  alsoSources: SourceSpec[];
  /** Where the entry was found (relative file), for messages. */
  foundIn: string | null;
  how: SourceHow;
}

export const DEFAULT_SOURCE: SourceRef = { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' };

export const FLUX_SOURCE_KINDS = ['GitRepository', 'OCIRepository', 'Bucket', 'ExternalArtifact'] as const;
const ROOT_SOURCE_KINDS = new Set(['GitRepository', 'OCIRepository', 'Bucket']);

const SKIP_DIRS = new Set(['.git', 'node_modules']);

/** Normalises a Flux spec.path (`./a/b/`, `a//b`) to a root-relative posix path; '' is the root. */
export function normalizeRepoPath(p: string): string {
  const n = path.posix.normalize(`/${p.replace(/\\/g, '/')}`).replace(/^\/+/, '').replace(/\/+$/, '');
  return n === '.' ? '' : n;
}

export interface DiscoverOptions {
  /** Absolute repository directory. */
  root: string;
  /** Builds a directory as kustomize-controller builds a spec.path (no overlay); shared with the render. */
  build: (dir: string) => Promise<BuildOutcome>;
  files: KustomizationFiles;
  /** The render work directory, removed from kustomize's messages. */
  work: string;
  /**
   * Only these entry paths matter (tiers.yaml's, or --path): overlays are built only when they are one of them.
   * Without it, every overlay that may patch a root is built.
   */
  wanted?: ReadonlySet<string>;
  /** Look only under these folders (absolute), e.g. tiers.yaml's bootstrap.sync; default the whole repository. */
  under?: readonly string[];
  /** Files the source artifact does not hold (sourceignore.ts). */
  ignored?: Ignored;
  memo?: ParseMemo;
  /** Directory listings this load already read (sourceignore.ts's walk), by absolute path. */
  listings?: ReadonlyMap<string, Dirent[]>;
}

export interface Discovery {
  entries: ClusterEntry[];
  /** What stopped an entry from being read (a flux-instance values file missing), with file:line. */
  problems: Problem[];
}

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Found {
  entry: string;
  source: SourceSpec;
  foundIn: string;
}

interface Doc {
  obj: Obj;
  file: string;
}

const isDir = (p: string) => {
  try {
    return statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
};

function walk(root: string, listings?: ReadonlyMap<string, Dirent[]>): { yaml: string[]; kustomizationDirs: string[] } {
  const yaml: string[] = [];
  const kdirs: string[] = [];
  const visit = (d: string) => {
    let entries = listings?.get(d);
    if (!entries) {
      try {
        entries = readdirSync(d, { withFileTypes: true });
      } catch {
        return;
      }
    }
    let isK = false;
    for (const e of entries) {
      if (SKIP_DIRS.has(e.name)) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) visit(p);
      else if (e.isFile()) {
        if ((KUSTOMIZATION_FILES as readonly string[]).includes(e.name)) isK = true;
        if (e.name.endsWith('.yaml') || e.name.endsWith('.yml')) yaml.push(p);
      }
    }
    if (isK) kdirs.push(d);
  };
  visit(root);
  return { yaml: yaml.sort(), kustomizationDirs: kdirs.sort() };
}

function mergeWalks(ws: { yaml: string[]; kustomizationDirs: string[] }[]): { yaml: string[]; kustomizationDirs: string[] } {
  return { yaml: [...new Set(ws.flatMap((w) => w.yaml))].sort(), kustomizationDirs: [...new Set(ws.flatMap((w) => w.kustomizationDirs))].sort() };
}

function docsOf(text: string, memo?: ParseMemo): Obj[] {
  return memo ? memo.get('documents', text, () => parseDocs(text)) : parseDocs(text);
}

function parseDocs(text: string): Obj[] {
  const out: Obj[] = [];
  try {
    for (const d of yaml().parseAllDocuments(text, { uniqueKeys: false })) {
      if (d.errors.length) continue;
      const js = d.toJS({ maxAliasCount: -1 }) as unknown;
      if (js && typeof js === 'object' && !Array.isArray(js)) out.push(js as Obj);
    }
  } catch {
    /* unparseable: not an entry */
  }
  return out;
}

const KIND_LINE = /^kind:[ \t]*["']?(\w+)/gm;

const isFluxKs = (d: Obj) => d.kind === 'Kustomization' && String(d.apiVersion ?? '').startsWith('kustomize.toolkit.fluxcd.io/');
const isRootSource = (d: Obj) => ROOT_SOURCE_KINDS.has(d.kind) && String(d.apiVersion ?? '').startsWith('source.toolkit.fluxcd.io/');
const sourceUrl = (d: Obj | undefined): string | null => {
  const u = d?.spec?.url ?? d?.spec?.endpoint;
  return typeof u === 'string' ? u : null;
};
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The source a Flux Kustomization reads among `sources` (kind, name, and namespace with Flux's defaults). */
function sourceOf(k: Obj, sources: Obj[]): Obj | undefined {
  const ns = str(k.metadata?.namespace) ?? 'flux-system';
  const ref: Obj = k.spec?.sourceRef ?? {};
  const kind = str(ref.kind) ?? 'GitRepository';
  const refNs = str(ref.namespace) ?? ns;
  return sources.find((s) => s.kind === kind && s.metadata?.name === ref.name && (str(s.metadata?.namespace) ?? refNs) === refNs);
}

function refOf(k: Obj): SourceRef {
  const ns = str(k.metadata?.namespace) ?? 'flux-system';
  const ref: Obj = k.spec?.sourceRef ?? {};
  return { kind: str(ref.kind) ?? 'GitRepository', name: String(ref.name ?? ''), namespace: str(ref.namespace) ?? ns };
}

/** A FluxInstance's sync: its source and Kustomization are named after spec.sync.name, else the namespace. */
function syncSource(sync: Obj, namespace: string): SourceSpec {
  return { ref: { kind: str(sync.kind) ?? 'GitRepository', name: str(sync.name) ?? namespace, namespace }, url: str(sync.url) };
}

const lineOf = (text: string, re: RegExp): number | null => {
  const i = text.split('\n').findIndex((l) => re.test(l));
  return i < 0 ? null : i + 1;
};

export async function discoverClusters(o: DiscoverOptions): Promise<Discovery> {
  const { root } = o;
  const rel = (abs: string) => path.relative(root, abs).split(path.sep).join('/');
  const { yaml, kustomizationDirs } = o.under ? mergeWalks(o.under.map((u) => walk(u, o.listings))) : walk(root, o.listings);
  const tree = new KustomizeTree(o.files, kustomizationDirs, o.ignored);
  const found: Found[] = [];
  const problems: Problem[] = [];
  const texts = new Map<string, string>();
  const parsed = new Map<string, Obj[]>();
  const docs = (file: string) => {
    let d = parsed.get(file);
    if (!d) parsed.set(file, (d = docsOf(texts.get(file) ?? '', o.memo)));
    return d;
  };

  // Which files may hold what: a cheap look before parsing anything.
  const byDir = new Map<string, { sources: string[]; kustomizations: string[] }>();
  const instances: string[] = [];
  const releases: string[] = [];
  for (const abs of yaml) {
    let text: string;
    try {
      text = readFileSync(abs, 'utf8');
    } catch {
      continue;
    }
    // One pass over the file's top-level kinds (most files are looked at only for this).
    const kinds = new Set<string>();
    for (const m of text.matchAll(KIND_LINE)) kinds.add(m[1]!);
    const hasSource = kinds.has('GitRepository') || kinds.has('OCIRepository') || kinds.has('Bucket');
    const hasKs = kinds.has('Kustomization') && text.includes('kustomize.toolkit.fluxcd.io/');
    const placeholder = path.basename(abs) === 'gotk-sync.yaml' && path.basename(path.dirname(abs)) === 'flux-system';
    if (hasSource || hasKs || placeholder) {
      const d = path.dirname(abs);
      const e = byDir.get(d) ?? { sources: [], kustomizations: [] };
      if (hasSource) e.sources.push(abs);
      if (hasKs || placeholder) e.kustomizations.push(abs);
      byDir.set(d, e);
    }
    const isInstance = kinds.has('FluxInstance');
    const isRelease = kinds.has('HelmRelease') && (text.includes('flux-instance') || (/^\s+instance:/m.test(text) && /^\s+sync:/m.test(text)));
    if (isInstance) instances.push(abs);
    if (isRelease) releases.push(abs);
    if (hasSource || hasKs || placeholder || isInstance || isRelease) texts.set(abs, text);
  }

  const builds: Promise<void>[] = [];
  const applies = (entry: string, file: string) => isDir(path.join(root, entry)) && tree.filesOf(path.join(root, entry)).has(file);
  /**
   * The directory a root's spec.path names, seen from the folder `from` that declares (or includes) it: spec.path is
   * relative to the source's root, which is the repository root unless the Flux repository is a subdirectory of it
   * (the bundled example). spec.path itself when it applies the root's file; else, for a root in a flux-system
   * folder (as `flux bootstrap` writes it), the nearest folder at or above `from` that ends with spec.path and
   * applies it; else spec.path as is. Elsewhere a folder that merely ends like spec.path proves nothing (a tenant's
   * `./update` in its own repository).
   */
  const entryFor = (specPath: string, from: string, file: string): string => {
    if (applies(specPath, file) || path.posix.basename(path.posix.dirname(rel(file))) !== 'flux-system') return specPath;
    for (let a = from; a !== '.' && a !== ''; a = path.posix.dirname(a)) {
      if ((a === specPath || a.endsWith(`/${specPath}`)) && applies(a, file)) return a;
    }
    return specPath;
  };

  // Root pairs, and the overlays that may patch them.
  for (const [dir, e] of byDir) {
    const inFluxSystem = path.basename(dir) === 'flux-system';
    if (e.sources.length === 0 && !inFluxSystem) continue;
    const sources: Doc[] = e.sources.flatMap((f) => docs(f).filter(isRootSource).map((obj) => ({ obj, file: f })));
    const roots: Doc[] = e.kustomizations.flatMap((f) => docs(f).filter(isFluxKs).map((obj) => ({ obj, file: f })));
    for (const f of e.kustomizations) {
      // `flux bootstrap` placeholder (comments only): the cluster is the directory that holds flux-system/.
      if (path.basename(f) === 'gotk-sync.yaml' && inFluxSystem && !docs(f).some((d) => d.kind === 'Kustomization')) {
        found.push({ entry: normalizeRepoPath(rel(path.dirname(dir))), source: { ref: DEFAULT_SOURCE, url: null }, foundIn: rel(f) });
      }
    }
    for (const k of roots) {
      const s = sourceOf(k.obj, sources.map((x) => x.obj));
      if (!s) continue;
      const source = { ref: refOf(k.obj), url: sourceUrl(s) };
      const specPath = k.obj.spec?.path;
      const p = typeof specPath === 'string' || specPath === undefined || specPath === null ? entryFor(normalizeRepoPath(String(specPath ?? '')), rel(dir), k.file) : null;
      if (p !== null && !String(specPath ?? '').includes('${')) {
        const abs = path.join(root, p);
        // Outside flux-system, only a root that applies itself; at the repository root, only through a kustomization
        // file (Flux's generated kustomization of the whole tree would "apply" every file).
        const selfApplying = isDir(abs) && (p !== '' || kustomizationDirs.includes(abs)) && tree.filesOf(abs).has(k.file);
        if (inFluxSystem || selfApplying) found.push({ entry: p, source, foundIn: rel(k.file) });
      }
      for (const inc of tree.includers(k.file)) {
        if (!inc.transformed || (o.wanted && !o.wanted.has(rel(inc.dir)))) continue;
        builds.push(
          o.build(inc.dir).then((out) => {
            if (!out.ok) return; // the entry's own build reports it, if it is an entry at all
            for (const b of out.objects.filter((x) => x.file === k.file && x.header.kind === 'Kustomization' && x.header.apiVersion.startsWith('kustomize.toolkit.fluxcd.io/'))) {
              const built = materialize(b.text, o.memo) as Obj;
              const bp = built.spec?.path;
              if (typeof bp !== 'string' || bp.includes('${')) continue;
              const entry = entryFor(normalizeRepoPath(bp), rel(inc.dir), k.file);
              const abs = path.join(root, entry);
              if (!isDir(abs) || (abs !== inc.dir && !tree.filesOf(abs).has(k.file))) continue;
              const ref = refOf(built);
              const src = out.objects.find((x) => x.header.kind === ref.kind && x.header.name === ref.name);
              found.push({ entry, source: { ref, url: src ? sourceUrl(materialize(src.text, o.memo) as Obj) : source.url }, foundIn: rel(path.join(inc.dir, 'kustomization.yaml')) });
            }
          }),
        );
      }
    }
  }

  for (const f of instances) {
    for (const d of docs(f)) {
      if (d.kind !== 'FluxInstance' || !d.spec?.sync || typeof d.spec.sync.path !== 'string') continue;
      found.push({ entry: normalizeRepoPath(d.spec.sync.path), source: syncSource(d.spec.sync, str(d.metadata?.namespace) ?? 'flux-system'), foundIn: rel(f) });
    }
  }

  for (const f of releases) {
    for (const d of docs(f)) {
      if (!isFluxInstanceRelease(d)) continue;
      const name = String(d.metadata?.name ?? '');
      const ns = (hr: Obj) => str(hr.spec?.targetNamespace) ?? str(hr.metadata?.namespace) ?? 'flux-system';
      const fromValues = (hr: Obj, values: Obj) => {
        const sync = values.instance?.sync;
        if (!sync || typeof sync.path !== 'string') return false;
        found.push({ entry: normalizeRepoPath(sync.path), source: syncSource(sync, ns(hr)), foundIn: rel(f) });
        return true;
      };
      if (valuesFrom(d).length === 0) {
        fromValues(d, (d.spec?.values ?? {}) as Obj);
        continue;
      }
      // The values come (partly) from ConfigMaps or Secrets, often generated by kustomize from a values.yaml beside
      // the release: build the release's folder with the real kustomize and read them from its output.
      const dir = path.dirname(f);
      const text = texts.get(f) ?? '';
      const line = lineOf(text, /^\s+valuesFrom:/) ?? lineOf(text, /^kind:\s*HelmRelease/);
      const object = objectId('HelmRelease', str(d.metadata?.namespace), name);
      builds.push(
        o.build(dir).then((out) => {
          if (!out.ok) {
            problems.push({
              code: 'build-failed',
              severity: 'error',
              message:
                `kustomize build of ${rel(dir) || '.'} failed while reading the values of ${object}, so the cluster it syncs ` +
                `(values.instance.sync) is not known: ${trimKustomizeError(out.error, root, o.work)}`,
              file: rel(f),
              line,
              object,
              cluster: null,
            });
            return;
          }
          const hr = out.objects.find((b) => b.file === f && b.header.kind === 'HelmRelease' && b.header.name === name) ?? out.objects.find((b) => b.file === f && b.header.kind === 'HelmRelease');
          const built = hr ? (materialize(hr.text, o.memo) as Obj) : d;
          const find = (kind: string, n: string) => {
            const hit = out.objects.find((b: BuiltObject) => b.header.kind === kind && b.header.name === n);
            return hit ? (materialize(hit.text, o.memo) as Obj) : null;
          };
          const merged = mergeValues(built, find);
          if (fromValues(built, merged.values)) return;
          const unknown = [...merged.missing.map((m) => `${m} (not built from ${rel(dir) || '.'})`), ...merged.unreadable];
          if (unknown.length === 0) return;
          problems.push({
            code: 'build-failed',
            severity: 'warning',
            message:
              `${object} takes its values from ${unknown.join(', ')}, so the cluster its FluxInstance syncs ` +
              `(values.instance.sync.path) is not known; declare the cluster in tiers.yaml or pass --path`,
            file: rel(f),
            line,
            object,
            cluster: null,
          });
        }),
      );
    }
  }

  await Promise.all(builds);
  return { entries: merge(root, found), problems };
}

/** One entry per path: the first root with a URL (else the first) is the source, the others' sources are aliases. */
function merge(root: string, found: Found[]): ClusterEntry[] {
  const byEntry = new Map<string, Found[]>();
  for (const f of found) {
    if (!isDir(path.join(root, f.entry))) continue;
    const list = byEntry.get(f.entry) ?? [];
    list.push(f);
    byEntry.set(f.entry, list);
  }
  const sameRef = (a: SourceRef, b: SourceRef) => a.kind === b.kind && a.name === b.name && a.namespace === b.namespace;
  const merged = [...byEntry.values()].map((list) => {
    const primary = list.find((f) => f.source.url) ?? list[0]!;
    const also: SourceSpec[] = [];
    for (const f of list) {
      if (sameRef(f.source.ref, primary.source.ref)) continue;
      if (!also.some((a) => sameRef(a.ref, f.source.ref))) also.push(f.source);
    }
    return { ...primary, also };
  });
  merged.sort((a, b) => a.entry.localeCompare(b.entry));
  return nameEntries(merged).map(({ name, f }) => ({
    name,
    entry: f.entry,
    source: f.source.ref,
    sourceUrl: f.source.url,
    alsoSources: f.also,
    foundIn: f.foundIn,
    how: 'discovered',
  }));
}

/**
 * Names entries after their directory; a clash, or a bare number (a fleet's clusters/prod/01), takes the parent
 * directory too, then a number.
 */
function nameEntries<T extends { entry: string }>(found: T[]): { name: string; f: T }[] {
  const base = (e: string) => (e ? path.posix.basename(e) : 'root');
  const counts = new Map<string, number>();
  for (const f of found) counts.set(base(f.entry), (counts.get(base(f.entry)) ?? 0) + 1);
  const used = new Set<string>();
  return found.map((f) => {
    let name = base(f.entry);
    if ((counts.get(name) ?? 0) > 1 || /^\d+$/.test(name)) {
      const parent = path.posix.basename(path.posix.dirname(f.entry));
      if (parent && parent !== '.') name = `${parent}-${name}`;
    }
    let n = name;
    for (let i = 2; used.has(n); i++) n = `${name}-${i}`;
    used.add(n);
    return { name: n, f };
  });
}

/** The entry name `--path DIR` gets when no root names it: the directory's name (the parent's too for a number). */
export function entryName(entry: string): string {
  return nameEntries([{ entry }])[0]!.name;
}
