// A static map of which files a kustomize build reads objects from, for discovery: does a root Kustomization apply
// itself (its spec.path builds the file that declares it), and which overlays include a base that declares a root
// (and may patch its path)? Only local references are followed (resources, bases, components); a remote base or a
// missing file is simply not part of the map, and the real kustomize decides whenever a build matters.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Obj } from '../model/k8s.js';
import { statSafe } from '../repo/fs-stat.js';
import { generatedResources, type Ignored } from '../repo/generated-kustomization.js';
import { hasKustomizationFile, isRemote, KUSTOMIZATION_FILES, objectRefs, type KustomizationFiles } from '../repo/kustomization-file.js';

/** Kustomization fields that can change an object the build includes from elsewhere (a root's spec.path). */
const TRANSFORMS = ['patchesStrategicMerge', 'replacements', 'components', 'transformers', 'vars'];

/** A patch that may edit a Flux Kustomization: its target's kind matches (kustomize reads it as a regex), or it has none. */
export function mayPatchKustomization(p: unknown): boolean {
  if (!p || typeof p !== 'object') return true;
  const kind = (p as Obj).target?.kind;
  if (typeof kind === 'string' && kind) {
    try {
      return new RegExp(`^(?:${kind})$`).test('Kustomization');
    } catch {
      return true;
    }
  }
  const inline = (p as Obj).patch;
  return typeof inline === 'string' ? /\bKustomization\b/.test(inline) || !/^\s*kind:/m.test(inline) : true;
}

export interface Includer {
  /** Absolute directory of a kustomization file whose build includes the target. */
  dir: string;
  /** Some kustomization on the way from `dir` down to the target (or `dir` itself) transforms what it includes. */
  transformed: boolean;
}

export class KustomizeTree {
  private trees = new Map<string, Set<string>>();
  private texts: { dir: string; text: string }[] | null = null;

  /**
   * @param kustomizationDirs every directory of the repository with a kustomization file (absolute)
   */
  constructor(
    private readonly files: KustomizationFiles,
    private readonly kustomizationDirs: readonly string[],
    private readonly ignored: Ignored = () => false,
  ) {}

  /** Every file (absolute) that building `dir` the way kustomize-controller builds a spec.path reads objects from. */
  filesOf(dir: string): Set<string> {
    const out = new Set<string>();
    this.collect(dir, out, new Set());
    return out;
  }

  private collect(dir: string, out: Set<string>, seen: Set<string>): void {
    if (seen.has(dir)) return;
    seen.add(dir);
    const cached = this.trees.get(dir);
    if (cached) {
      for (const f of cached) out.add(f);
      return;
    }
    const mine = new Set<string>();
    const add = (p: string) => {
      const st = statSafe(p);
      if (st?.isDirectory()) this.collect(p, mine, seen);
      else if (st?.isFile()) mine.add(p);
    };
    if (hasKustomizationFile(dir)) {
      for (const r of this.refs(dir)) add(r);
    } else {
      // Flux's generated kustomization: every YAML file below, and subdirectories that have their own.
      for (const p of generatedResources(dir, this.ignored)) add(p);
    }
    this.trees.set(dir, mine);
    for (const f of mine) out.add(f);
  }

  /** Local resources, bases and components of `dir`'s kustomization file, absolute. */
  private refs(dir: string): string[] {
    const read = this.files.read(dir);
    if (!read || read === 'unparseable' || !read.doc || typeof read.doc !== 'object') return [];
    return objectRefs(read.doc as Obj)
      .filter((r) => !isRemote(r))
      .map((r) => path.resolve(dir, r));
  }

  private transforms(dir: string): boolean {
    const read = this.files.read(dir);
    if (!read || read === 'unparseable' || !read.doc || typeof read.doc !== 'object') return false;
    const k = read.doc as Obj;
    if (TRANSFORMS.some((f) => k[f] !== undefined && k[f] !== null)) return true;
    const patches = [...(Array.isArray(k.patches) ? k.patches : []), ...(Array.isArray(k.patchesJson6902) ? k.patchesJson6902 : [])];
    return patches.some(mayPatchKustomization);
  }

  /**
   * Kustomization directories whose build includes `file` (a file or a directory), directly or through other
   * kustomizations, each with whether a transform lies on the way. A text look first: a kustomization can only refer
   * to a path whose last segment its file mentions.
   */
  includers(file: string): Includer[] {
    const found = new Map<string, boolean>();
    let frontier: Includer[] = [{ dir: file, transformed: false }];
    while (frontier.length > 0) {
      const next: Includer[] = [];
      for (const t of frontier) {
        const base = path.basename(t.dir);
        for (const k of this.kustomizationTexts()) {
          if (k.dir === t.dir || !k.text.includes(base)) continue;
          if (!this.refs(k.dir).includes(t.dir)) continue;
          const transformed = t.transformed || this.transforms(k.dir);
          const prev = found.get(k.dir);
          if (prev !== undefined && (prev || !transformed)) continue;
          found.set(k.dir, transformed);
          next.push({ dir: k.dir, transformed });
        }
      }
      frontier = next;
    }
    return [...found].map(([dir, transformed]) => ({ dir, transformed }));
  }

  private kustomizationTexts(): { dir: string; text: string }[] {
    if (this.texts) return this.texts;
    this.texts = [];
    for (const dir of this.kustomizationDirs) {
      for (const name of KUSTOMIZATION_FILES) {
        try {
          this.texts.push({ dir, text: readFileSync(path.join(dir, name), 'utf8') });
          break;
        } catch {
          /* the next name */
        }
      }
    }
    return this.texts;
  }
}
