// What every discovery strategy reads: the repository's YAML files, with a cheap look at each (its top-level kinds)
// before anything is parsed, the documents of the files that may matter, parsed once, the kustomization tree, and
// where the strategies put what they find.
import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import path from 'node:path';
import type { Obj } from '../model/k8s.js';
import type { Problem } from '../model/problem.js';
import { isDir } from '../repo/fs-stat.js';
import type { Ignored } from '../repo/generated-kustomization.js';
import { KUSTOMIZATION_FILES, type KustomizationFiles } from '../repo/kustomization-file.js';
import type { BuildOutcome } from '../repo/kustomize-output.js';
import { yaml, type TextMemo } from '../repo/lazy-yaml.js';
import { repoRelative } from '../repo/repo-path.js';
import type { SourceSpec } from './cluster-entry.js';
import { KustomizeTree } from './kustomize-tree.js';

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
  /** Files the source artifact does not hold (render/sourceignore.ts). */
  ignored?: Ignored;
  memo?: TextMemo;
  /** tiers.yaml resourceSetInputs, for a ResourceSet that generates a FluxInstance from a provider read at run time. */
  resourceSetInputs?: ReadonlyMap<string, Record<string, unknown>[]>;
  /** Directory listings this load already read (the .sourceignore walk), by absolute path. */
  listings?: ReadonlyMap<string, Dirent[]>;
}

/** One root sync found: the entry path it reconciles, its source, and the file that says so. */
export interface Found {
  entry: string;
  source: SourceSpec;
  foundIn: string;
  /**
   * A root pair's root Kustomization, when its entry's build does not apply the file that declares it: nothing
   * re-reads it from git after bootstrap (an old root, or one only applied by hand or a task runner).
   */
  unapplied?: { name: string; namespace: string; specPath: string };
  /** A FluxInstance's sync (its own, or from a flux-instance HelmRelease): the object, `FluxInstance ns/name`. */
  instance?: string;
  /** Where the artifact's root sits in the repository, when it is a folder of it (artifact-root.ts). */
  sourceRoot?: { dir: string; why: string; inferred: boolean };
}

const SKIP_DIRS = new Set(['.git', 'node_modules']);
const KIND_LINE = /^kind:[ \t]*["']?(\w+)/gm;

export class DiscoveryScan {
  readonly root: string;
  /** Every directory with a kustomization file (absolute, sorted). */
  readonly kustomizationDirs: string[];
  readonly tree: KustomizeTree;
  /** By directory: the files that may declare a root source, and those that may declare a root Kustomization. */
  readonly byDir = new Map<string, { sources: string[]; kustomizations: string[] }>();
  /** Files that may hold a FluxInstance. */
  readonly instances: string[] = [];
  /** Files that may hold a flux-instance HelmRelease. */
  readonly releases: string[] = [];
  /** Files with a ResourceSet that may generate a FluxInstance or a flux-instance HelmRelease. */
  readonly resourceSets: string[] = [];
  /** Files with ResourceSetInputProviders (a ResourceSet's inputs). */
  readonly providers: string[] = [];
  readonly found: Found[] = [];
  readonly problems: Problem[] = [];
  /** Builds the strategies started; what they find is in `found` once these are done. */
  readonly builds: Promise<void>[] = [];
  private texts = new Map<string, string>();
  private parsed = new Map<string, Obj[]>();

  constructor(readonly o: DiscoverOptions) {
    this.root = o.root;
    const { yaml, kustomizationDirs } = o.under ? mergeWalks(o.under.map((u) => walk(u, o.listings))) : walk(o.root, o.listings);
    this.kustomizationDirs = kustomizationDirs;
    this.tree = new KustomizeTree(o.files, kustomizationDirs, o.ignored);
    for (const abs of yaml) this.look(abs);
  }

  rel(abs: string): string {
    return repoRelative(this.root, abs);
  }

  /** The text of a file the first look kept. */
  text(file: string): string {
    return this.texts.get(file) ?? '';
  }

  /** The documents of a file the first look kept, parsed once (unparseable ones left out). */
  docs(file: string): Obj[] {
    let d = this.parsed.get(file);
    if (!d) {
      const text = this.text(file);
      this.parsed.set(file, (d = this.o.memo ? this.o.memo.get('documents', text, () => parseDocs(text)) : parseDocs(text)));
    }
    return d;
  }

  /** True when building `entry` (repo-relative) the way kustomize-controller builds a spec.path reads `file`. */
  applies(entry: string, file: string): boolean {
    return isDir(path.join(this.root, entry)) && this.tree.filesOf(path.join(this.root, entry)).has(file);
  }

  /**
   * The directory a root's spec.path names, seen from the folder `from` that declares (or includes) it: spec.path is
   * relative to the source's root, which is the repository root unless the Flux repository is a subdirectory of it
   * (the bundled example). spec.path itself when it applies the root's file; else, for a root in a flux-system
   * folder (as `flux bootstrap` writes it), the nearest folder at or above `from` that ends with spec.path and
   * applies it; else spec.path as is. Elsewhere a folder that merely ends like spec.path proves nothing (a tenant's
   * `./update` in its own repository).
   */
  entryFor(specPath: string, from: string, file: string): string {
    if (this.applies(specPath, file) || path.posix.basename(path.posix.dirname(this.rel(file))) !== 'flux-system') return specPath;
    for (let a = from; a !== '.' && a !== ''; a = path.posix.dirname(a)) {
      if ((a === specPath || a.endsWith(`/${specPath}`)) && this.applies(a, file)) return a;
    }
    return specPath;
  }

  /** Which files may hold what: one pass over a file's top-level kinds (most files are looked at only for this). */
  private look(abs: string): void {
    let text: string;
    try {
      text = readFileSync(abs, 'utf8');
    } catch {
      return;
    }
    const kinds = new Set<string>();
    for (const m of text.matchAll(KIND_LINE)) kinds.add(m[1]!);
    const hasSource = kinds.has('GitRepository') || kinds.has('OCIRepository') || kinds.has('Bucket');
    const hasKs = kinds.has('Kustomization') && text.includes('kustomize.toolkit.fluxcd.io/');
    const placeholder = path.basename(abs) === 'gotk-sync.yaml' && path.basename(path.dirname(abs)) === 'flux-system';
    if (hasSource || hasKs || placeholder) {
      const d = path.dirname(abs);
      const e = this.byDir.get(d) ?? { sources: [], kustomizations: [] };
      if (hasSource) e.sources.push(abs);
      if (hasKs || placeholder) e.kustomizations.push(abs);
      this.byDir.set(d, e);
    }
    const isInstance = kinds.has('FluxInstance');
    const isRelease = kinds.has('HelmRelease') && (text.includes('flux-instance') || (/^\s+instance:/m.test(text) && /^\s+sync:/m.test(text)));
    const isRs = kinds.has('ResourceSet') && /FluxInstance|flux-instance/.test(text);
    const isProvider = kinds.has('ResourceSetInputProvider');
    if (isInstance) this.instances.push(abs);
    if (isRelease) this.releases.push(abs);
    if (isRs) this.resourceSets.push(abs);
    if (isProvider) this.providers.push(abs);
    if (hasSource || hasKs || placeholder || isInstance || isRelease || isRs || isProvider) this.texts.set(abs, text);
  }
}

interface Walk {
  yaml: string[];
  kustomizationDirs: string[];
}

function walk(root: string, listings?: ReadonlyMap<string, Dirent[]>): Walk {
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

function mergeWalks(ws: Walk[]): Walk {
  return { yaml: [...new Set(ws.flatMap((w) => w.yaml))].sort(), kustomizationDirs: [...new Set(ws.flatMap((w) => w.kustomizationDirs))].sort() };
}

/** The documents of a YAML text that parse to mappings; an unparseable text has none. */
export function parseDocs(text: string): Obj[] {
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
