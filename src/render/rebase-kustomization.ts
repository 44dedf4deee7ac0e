// A kustomization file moved to another directory, every local file reference in it rewritten so that it still names
// the same file: kustomize resolves references against the directory of the kustomization file, and standup builds
// Flux's merged kustomization (flux-overlay.ts) in a temp directory, never in the user's tree.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Obj } from '../model/k8s.js';
import { isRemote } from '../repo/kustomization-file.js';

/** `dir`'s kustomization document with each local reference made relative by `rel` (absolute path -> written form). */
export function rebaseKustomization(doc: Obj, dir: string, rel: (abs: string) => string): Obj {
  const k: Obj = { ...doc };
  const one = (ref: unknown): unknown => (typeof ref === 'string' && ref !== '' && !isRemote(ref) && !path.isAbsolute(ref) ? rel(path.resolve(dir, ref)) : ref);
  // A generator, transformer or validator entry and a strategic-merge patch are a file name or the YAML itself.
  const fileOrInline = (ref: unknown): unknown => (typeof ref === 'string' && !ref.includes('\n') && existsSync(path.resolve(dir, ref)) ? one(ref) : ref);
  const each = (v: unknown, f: (x: unknown) => unknown): unknown => (Array.isArray(v) ? v.map(f) : v);
  const withPath = (v: unknown): unknown => each(v, (p) => (isObj(p) && typeof p.path === 'string' ? { ...p, path: one(p.path) } : p));
  for (const f of ['resources', 'bases', 'components', 'crds', 'configurations']) if (f in k) k[f] = each(k[f], one);
  for (const f of ['generators', 'transformers', 'validators', 'patchesStrategicMerge']) if (f in k) k[f] = each(k[f], fileOrInline);
  for (const f of ['patches', 'patchesJson6902', 'replacements']) if (f in k) k[f] = withPath(k[f]);
  for (const f of ['configMapGenerator', 'secretGenerator']) {
    if (!(f in k)) continue;
    k[f] = each(k[f], (g) => {
      if (!isObj(g)) return g;
      const out: Obj = { ...g };
      // `key=path` keeps its key; a bare path's key is its file name, which the rewritten path keeps.
      if (Array.isArray(g.files)) out.files = g.files.map((e: unknown) => (typeof e === 'string' && e.includes('=') ? `${e.slice(0, e.indexOf('=') + 1)}${one(e.slice(e.indexOf('=') + 1))}` : one(e)));
      if (Array.isArray(g.envs)) out.envs = g.envs.map(one);
      if (typeof g.env === 'string') out.env = one(g.env);
      return out;
    });
  }
  if (isObj(k.openapi) && typeof k.openapi.path === 'string') k.openapi = { ...k.openapi, path: one(k.openapi.path) };
  if (Array.isArray(k.helmCharts)) {
    k.helmCharts = k.helmCharts.map((c: unknown) =>
      isObj(c) ? { ...c, ...(typeof c.valuesFile === 'string' ? { valuesFile: one(c.valuesFile) } : {}), ...(Array.isArray(c.additionalValuesFiles) ? { additionalValuesFiles: c.additionalValuesFiles.map(one) } : {}) } : c,
    );
    // The chart home defaults to `charts` beside the kustomization file.
    const globals: Obj = isObj(k.helmGlobals) ? { ...k.helmGlobals } : {};
    globals.chartHome = one(typeof globals.chartHome === 'string' ? globals.chartHome : 'charts');
    k.helmGlobals = globals;
  }
  return k;
}

const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
