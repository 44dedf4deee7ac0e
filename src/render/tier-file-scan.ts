// Can building a path yield a Flux Kustomization? A static look at every file kustomize could read objects from,
// for `plan` and `graph`, which need the Kustomization graph and not the apps: a leaf tier (its files mention no
// kustomize.toolkit.fluxcd.io object) adds nothing to the graph, so its build can wait until something asks for its
// objects (a substituteFrom ConfigMap, a source's URL), which on the corpus is never. Every doubt answers "yes":
// remote bases, Helm charts, generator or transformer plugins, unreadable or missing inputs (so kustomize reports
// them). Patches, replacements and configMapGenerators cannot create a Kustomization, so they are not read.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Obj } from '../model/k8s.js';
import { isDir } from '../repo/fs-stat.js';
import { generatedResources, type Ignored } from '../repo/generated-kustomization.js';
import { hasKustomizationFile, isRemote, list, objectRefs, type KustomizationFiles } from '../repo/kustomization-file.js';

const FLUX_KUSTOMIZE_API = 'kustomize.toolkit.fluxcd.io';
const FLUX_OPERATOR_NODE = /^kind:[ \t]*["']?ResourceSet["']?[ \t]*$/m;
const OPAQUE_FIELDS = ['helmCharts', 'helmChartInflationGenerator', 'helmGlobals', 'generators', 'transformers', 'validators'];

/**
 * The same walk for another question about a tier's files: `test` says whether one file's text may hold what is
 * looked for; `doubt` is the answer where the files cannot tell (a remote base, a Helm chart, a plugin, a missing
 * or unreadable input). TierFileScan asks for Flux Kustomizations with doubt = yes.
 */
export interface ScanQuestion {
  test: (text: string) => boolean;
  doubt: boolean;
  /** When set, a kustomization's patches are read too (inline or from a file): may this one give what is looked for? */
  patch?: (text: string) => boolean;
  /** When set, a kustomization file for which it says yes answers yes (a generator that may make the object). */
  kustomization?: (k: Obj) => boolean;
}

// A flux-operator ResourceSet is a node of the graph too, and may generate Kustomizations.
const FLUX_KUSTOMIZATIONS: ScanQuestion = { test: (text) => text.includes(FLUX_KUSTOMIZE_API) || FLUX_OPERATOR_NODE.test(text), doubt: true };

export class TierFileScan {
  private dirs = new Map<string, boolean>();
  private files = new Map<string, boolean>();

  constructor(
    private readonly kustomizations: KustomizationFiles,
    private readonly ignored: Ignored = () => false,
    private readonly question: ScanQuestion = FLUX_KUSTOMIZATIONS,
  ) {}

  /** True when building `dir` (absolute) with these spec.components (relative to `dir`) may apply a Flux Kustomization. */
  mayApplyKustomizations(dir: string, components: readonly string[] = []): boolean {
    return this.may(dir, components);
  }

  /** True when building `dir` with these spec.components may yield what the question looks for. */
  may(dir: string, components: readonly string[] = []): boolean {
    if (components.some((c) => this.dirMay(path.resolve(dir, c)))) return true;
    if (hasKustomizationFile(dir)) return this.dirMay(dir);
    // Flux's generated kustomization: every YAML file under dir, and subdirectories that have their own.
    return generatedResources(dir, this.ignored).some((p) => (isDir(p) ? this.dirMay(p) : this.fileMay(p)));
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
    const read = this.kustomizations.read(dir);
    // No kustomization file: kustomize fails on such a resource directory, so let it say so. Unreadable: the same.
    const doubt = this.question.doubt;
    if (read === null || read === 'unparseable') return doubt;
    const k = read.doc as Obj;
    if (!k || typeof k !== 'object' || Array.isArray(k)) return doubt;
    if (doubt && OPAQUE_FIELDS.some((f) => k[f] !== undefined)) return true;
    if (this.question.kustomization?.(k)) return true;
    if (this.question.patch && this.patchesMay(dir, k, this.question.patch)) return true;
    for (const r of objectRefs(k)) {
      if (isRemote(r)) {
        if (doubt) return true;
        continue;
      }
      const p = path.resolve(dir, r);
      if (isDir(p) ? this.dirMay(p) : this.fileMay(p)) return true;
    }
    return false;
  }

  private patchesMay(dir: string, k: Obj, test: (text: string) => boolean): boolean {
    const texts: string[] = [];
    const files: string[] = [];
    for (const p of [...objects(k.patches), ...objects(k.patchesJson6902)]) {
      if (typeof p.patch === 'string') texts.push(p.patch);
      if (typeof p.path === 'string') files.push(p.path);
    }
    for (const p of list(k.patchesStrategicMerge)) (p.includes('\n') ? texts : files).push(p);
    if (texts.some(test)) return true;
    return files.some((f) => {
      try {
        return test(readFileSync(path.resolve(dir, f), 'utf8'));
      } catch {
        return this.question.doubt;
      }
    });
  }

  private fileMay(file: string): boolean {
    const hit = this.files.get(file);
    if (hit !== undefined) return hit;
    let r: boolean;
    try {
      r = this.question.test(readFileSync(file, 'utf8'));
    } catch {
      r = this.question.doubt;
    }
    this.files.set(file, r);
    return r;
  }
}

const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x): x is Obj => !!x && typeof x === 'object') : []);
