// A directory's kustomization file, read once per load for the static walkers over kustomization trees: will a build
// fail (render/likely-failures.ts), can it yield a Flux Kustomization (render/tier-file-scan.ts), which files does it
// read (cache/build-input-hashes.ts, discover/kustomize-tree.ts).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Obj } from '../model/k8s.js';
import { statSafe } from './fs-stat.js';
import { yaml, type TextMemo } from './lazy-yaml.js';

/** The names kustomize looks for in a directory, in its order. */
export const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'] as const;

export function hasKustomizationFile(dir: string): boolean {
  return KUSTOMIZATION_FILES.some((f) => existsSync(path.join(dir, f)));
}

/**
 * `null`: the directory has no kustomization file; `'unparseable'`: not YAML; else the parsed document, as is, the
 * file it was read from, and how many of the kustomization file names exist there (kustomize fails on more than one).
 */
export type KustomizationRead = { doc: unknown; file: string; count: number } | 'unparseable' | null;

export class KustomizationFiles {
  private cache = new Map<string, KustomizationRead>();

  constructor(private readonly memo?: TextMemo) {}

  read(dir: string): KustomizationRead {
    let hit = this.cache.get(dir);
    if (hit === undefined) {
      hit = load(dir, this.memo);
      this.cache.set(dir, hit);
    }
    return hit;
  }
}

function load(dir: string, memo?: TextMemo): KustomizationRead {
  const present = KUSTOMIZATION_FILES.map((f) => path.join(dir, f)).filter((f) => statSafe(f)?.isFile());
  const file = present[0];
  if (!file) return null;
  try {
    const text = readFileSync(file, 'utf8');
    const doc = memo ? memo.get('kustomization', text, () => yaml().parse(text, { uniqueKeys: false }) as unknown) : (yaml().parse(text, { uniqueKeys: false }) as unknown);
    return { doc, file, count: present.length };
  } catch {
    return 'unparseable';
  }
}

/** resources, bases and components: every reference a kustomization accumulates objects from. */
export const objectRefs = (k: Obj): string[] => [...list(k.resources), ...list(k.bases), ...list(k.components)];

/** A remote base (a URL, a git host path, or a `?ref=`): it needs the network, and no local walk can follow it. */
export const isRemote = (s: string): boolean =>
  /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^(git@|github\.com\/|gitlab\.com\/)/.test(s) || s.includes('?ref=');

export const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
