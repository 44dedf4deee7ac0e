// A cheap static look at a kustomization tree for inputs that do not exist (a configMapGenerator file, a resource,
// a component). Such a build will fail; building it alone keeps it from failing a whole batch (kustomize-batches.ts).
// This is only a scheduling hint: kustomize still decides, and its error is what gets reported.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isDir, statSafe } from '../repo/fs-stat.js';
import { isRemote, list, objectRefs, type KustomizationFiles } from '../repo/kustomization-file.js';
import type { Obj } from '../model/k8s.js';

export class LikelyFailures {
  private cache = new Map<string, boolean>();

  constructor(private readonly files: KustomizationFiles) {}

  /** True when `dir`'s kustomization tree (or one of `files`) refers to something missing or unreadable. */
  suspect(dir: string, files: string[] = []): boolean {
    if (files.length) {
      for (const f of files) if (isDir(f) && this.dirSuspect(f)) return true;
      return false;
    }
    return this.dirSuspect(dir);
  }

  private dirSuspect(dir: string): boolean {
    const hit = this.cache.get(dir);
    if (hit !== undefined) return hit;
    this.cache.set(dir, false); // cycles: assume fine while visiting
    const r = this.check(dir);
    this.cache.set(dir, r);
    return r;
  }

  private check(dir: string): boolean {
    const read = this.files.read(dir);
    if (read === null) return false;
    if (read === 'unparseable') return true;
    const k = (read.doc ?? {}) as Obj;
    if (typeof k !== 'object') return true;
    if (k.helmCharts || k.helmChartInflationGenerator) return true;
    for (const r of objectRefs(k)) {
      // A remote base needs the network and may be slow or fail: build it on its own.
      if (isRemote(r)) return true;
      const p = path.resolve(dir, r);
      const st = statSafe(p);
      if (!st) return true;
      if (st.isDirectory() && this.dirSuspect(p)) return true;
    }
    for (const g of [...arr(k.configMapGenerator), ...arr(k.secretGenerator)]) {
      for (const f of [...list(g.files), ...list(g.envs), ...(typeof g.env === 'string' ? [g.env] : [])]) {
        const file = f.includes('=') ? f.slice(f.indexOf('=') + 1) : f;
        if (!existsSync(path.resolve(dir, file))) return true;
      }
    }
    for (const p of arr(k.patches)) if (typeof p.path === 'string' && !existsSync(path.resolve(dir, p.path))) return true;
    for (const p of arr(k.patchesJson6902)) if (typeof p.path === 'string' && !existsSync(path.resolve(dir, p.path))) return true;
    for (const p of list(k.patchesStrategicMerge)) if (!p.includes('\n') && !existsSync(path.resolve(dir, p))) return true;
    return false;
  }
}

const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x): x is Obj => !!x && typeof x === 'object') : []);
