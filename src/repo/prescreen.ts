// A cheap static look at a kustomization tree for inputs that do not exist (a configMapGenerator file, a resource,
// a component). Such a build will fail; building it alone keeps it from failing a whole batch (see kustomize.ts).
// This is only a scheduling hint: kustomize still decides, and its error is what gets reported.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { KUSTOMIZATION_FILES } from './overlay.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const isRemote = (s: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^(git@|github\.com\/|gitlab\.com\/)/.test(s);

export class Prescreen {
  private cache = new Map<string, boolean>();

  /** True when `dir`'s kustomization tree (or one of `files`) refers to something missing or unreadable. */
  suspect(dir: string, files: string[] = []): boolean {
    if (files.length) {
      for (const f of files) if (statSafe(f)?.isDirectory() && this.dirSuspect(f)) return true;
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
    const kf = KUSTOMIZATION_FILES.map((f) => path.join(dir, f)).find((f) => existsSync(f));
    if (!kf) return false;
    let k: Obj;
    try {
      k = (parse(readFileSync(kf, 'utf8'), { uniqueKeys: false }) ?? {}) as Obj;
    } catch {
      return true;
    }
    if (typeof k !== 'object') return true;
    if (k.helmCharts || k.helmChartInflationGenerator) return true;
    const refs = [...list(k.resources), ...list(k.bases), ...list(k.components)];
    for (const r of refs) {
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

const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x): x is Obj => !!x && typeof x === 'object') : []);

function statSafe(p: string) {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}
