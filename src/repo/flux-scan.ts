// Can building a path yield a Flux Kustomization? A static look at every file kustomize could read objects from,
// for `plan` and `graph`, which need the Kustomization graph and not the apps: a leaf tier (its files mention no
// kustomize.toolkit.fluxcd.io object) adds nothing to the graph, so its build can wait until something asks for its
// objects (a substituteFrom ConfigMap, a source's URL), which on the corpus is never. Every doubt answers "yes":
// remote bases, Helm charts, generator or transformer plugins, unreadable or missing inputs (so kustomize reports
// them). Patches, replacements and configMapGenerators cannot create a Kustomization, so they are not read.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { KUSTOMIZATION_FILES, generatedResources, hasKustomizationFile } from './overlay.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FLUX_KUSTOMIZE_API = 'kustomize.toolkit.fluxcd.io';
const isRemote = (s: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^(git@|github\.com\/|gitlab\.com\/)/.test(s) || s.includes('?ref=');
const OPAQUE_FIELDS = ['helmCharts', 'helmChartInflationGenerator', 'helmGlobals', 'generators', 'transformers', 'validators'];

export class FluxScan {
  private dirs = new Map<string, boolean>();
  private files = new Map<string, boolean>();

  /** True when building `dir` (absolute) with these spec.components (relative to `dir`) may apply a Flux Kustomization. */
  mayApplyKustomizations(dir: string, components: readonly string[] = []): boolean {
    if (components.some((c) => this.dirMay(path.resolve(dir, c)))) return true;
    if (hasKustomizationFile(dir)) return this.dirMay(dir);
    // Flux's generated kustomization: every YAML file under dir, and subdirectories that have their own.
    return generatedResources(dir).some((p) => (isDirectory(p) ? this.dirMay(p) : this.fileMay(p)));
  }

  private dirMay(dir: string): boolean {
    const hit = this.dirs.get(dir);
    if (hit !== undefined) return hit;
    this.dirs.set(dir, false); // a cycle adds no file of its own; kustomize reports it when the tier is built
    const r = this.kustomizationMay(dir);
    this.dirs.set(dir, r);
    return r;
  }

  private kustomizationMay(dir: string): boolean {
    const kf = KUSTOMIZATION_FILES.map((f) => path.join(dir, f)).find(isFile);
    if (!kf) return true; // kustomize fails on a resource directory without one; let it say so
    let k: Obj;
    try {
      k = parse(readFileSync(kf, 'utf8'), { uniqueKeys: false }) as Obj;
    } catch {
      return true;
    }
    if (!k || typeof k !== 'object' || Array.isArray(k)) return true;
    if (OPAQUE_FIELDS.some((f) => k[f] !== undefined)) return true;
    for (const r of [...list(k.resources), ...list(k.bases), ...list(k.components)]) {
      if (isRemote(r)) return true;
      const p = path.resolve(dir, r);
      if (isDirectory(p) ? this.dirMay(p) : this.fileMay(p)) return true;
    }
    return false;
  }

  private fileMay(file: string): boolean {
    const hit = this.files.get(file);
    if (hit !== undefined) return hit;
    let r: boolean;
    try {
      r = readFileSync(file, 'utf8').includes(FLUX_KUSTOMIZE_API);
    } catch {
      r = true;
    }
    this.files.set(file, r);
    return r;
  }
}

const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
