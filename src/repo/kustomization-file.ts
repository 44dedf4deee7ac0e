// Reads the kustomization file of a directory once per load, for the two static walkers over kustomization trees:
// prescreen.ts (will this build fail?) and flux-scan.ts (can it yield a Flux Kustomization?).
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { yaml } from './lazy.js';
import { KUSTOMIZATION_FILES } from './overlay.js';
import type { ParseMemo } from './parse-memo.js';

export type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * `null`: the directory has no kustomization file; `'unparseable'`: not YAML; else the parsed document, as is, the
 * file it was read from, and how many of the kustomization file names exist there (kustomize fails on more than one).
 */
export type KustomizationRead = { doc: unknown; file: string; count: number } | 'unparseable' | null;

export class KustomizationFiles {
  private cache = new Map<string, KustomizationRead>();

  constructor(private readonly memo?: ParseMemo) {}

  read(dir: string): KustomizationRead {
    let hit = this.cache.get(dir);
    if (hit === undefined) {
      hit = load(dir, this.memo);
      this.cache.set(dir, hit);
    }
    return hit;
  }
}

function load(dir: string, memo?: ParseMemo): KustomizationRead {
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

export function statSafe(p: string) {
  try {
    return statSync(p, { throwIfNoEntry: false }) ?? null; // a missing path is the common case: no exception for it
  } catch {
    return null;
  }
}
