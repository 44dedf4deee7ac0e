// Every file one kustomize build reads, found from the kustomization files (for the render cache's key). A build is
// cacheable only when the walk is sure: every field of every kustomization file is one whose file references are
// known here, no reference is remote (a URL, or a path that does not exist, which kustomize would try as a URL),
// and no plugin, Helm chart or transformer config is involved. Any doubt answers null: the build is not cached.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isDir, isFile } from '../repo/fs-stat.js';
import { isRemote, type KustomizationFiles } from '../repo/kustomization-file.js';
import type { Obj } from '../model/k8s.js';


/** Fields whose values hold no file reference, or whose references are read below. Anything else is a doubt. */
const KNOWN_FIELDS = new Set([
  'apiVersion',
  'kind',
  'metadata',
  'namespace',
  'namePrefix',
  'nameSuffix',
  'commonLabels',
  'labels',
  'commonAnnotations',
  'images',
  'replicas',
  'vars',
  'generatorOptions',
  'buildMetadata',
  'sortOptions',
  'resources',
  'bases',
  'components',
  'crds',
  'configurations',
  'openapi',
  'patches',
  'patchesStrategicMerge',
  'patchesJson6902',
  'replacements',
  'configMapGenerator',
  'secretGenerator',
]);

/** A file's content hash; 'absent' for a reference that does not exist (kustomize then fails the same way). */
export type InputHash = string;

export class BuildInputHashes {
  private files = new Map<string, InputHash>();
  /** Top-level `kind:` lines per file read by hash(): about the objects it holds (batch sizes, not correctness). */
  private kinds = new Map<string, number>();
  private dirs = new Map<string, Map<string, InputHash> | null>();

  constructor(private readonly kustomizations: KustomizationFiles) {}

  /** Content hash of a file, once per load. */
  hash(file: string): InputHash {
    let h = this.files.get(file);
    if (h === undefined) {
      try {
        const buf = readFileSync(file);
        h = createHash('sha256').update(buf).digest('hex');
        this.kinds.set(file, countKinds(buf));
      } catch {
        h = 'absent';
      }
      this.files.set(file, h);
    }
    return h;
  }

  /**
   * True when every input of `dir` still has the content it had when the key was made: read again after the build,
   * so an edit made while kustomize ran never files its output under the old content's key.
   */
  unchanged(dir: string): boolean {
    const m = this.dirs.get(dir);
    if (!m) return false;
    for (const [f, h] of m) {
      let now: string;
      try {
        now = createHash('sha256').update(readFileSync(f)).digest('hex');
      } catch {
        now = 'absent';
      }
      if (now !== h) return false;
    }
    return true;
  }

  /**
   * About how many objects building `dir` reads: the documents of its input files other than kustomization files,
   * patches included (an estimate for sizing kustomize runs); undefined when its inputs are not known.
   */
  objectsOf(dir: string): number | undefined {
    const inputs = this.ofKustomization(dir);
    if (!inputs) return undefined;
    let n = 0;
    for (const f of inputs.keys()) if (!KUSTOMIZATION_FILE.test(path.basename(f))) n += this.kinds.get(f) ?? 0;
    return n;
  }

  /**
   * The inputs of building kustomization directory `dir` (absolute): file -> hash, every kustomization file of the
   * tree included; null when the build cannot be keyed with certainty.
   */
  ofKustomization(dir: string): Map<string, InputHash> | null {
    if (this.dirs.has(dir)) return this.dirs.get(dir)!;
    this.dirs.set(dir, null); // a cycle: kustomize reports it; not cached
    const r = this.walk(dir);
    this.dirs.set(dir, r);
    return r;
  }

  private walk(dir: string): Map<string, InputHash> | null {
    const read = this.kustomizations.read(dir);
    // None: kustomize fails ("unable to find one of ..."); several: it fails too; not YAML: the same. Not worth a key.
    if (read === null || read === 'unparseable' || read.count !== 1) return null;
    const out = new Map<string, InputHash>([[read.file, this.hash(read.file)]]);
    const k = read.doc;
    if (k === null || k === undefined) return out;
    if (typeof k !== 'object' || Array.isArray(k)) return null;
    const doc = k as Obj;
    if (Object.keys(doc).some((f) => !KNOWN_FIELDS.has(f))) return null;
    const add = (m: Map<string, InputHash> | null): boolean => {
      if (!m) return false;
      for (const [f, h] of m) out.set(f, h);
      return true;
    };
    // A file whose absence is a deterministic failure; its hash says present or not.
    const fileRef = (ref: unknown): boolean => {
      if (typeof ref !== 'string' || isRemote(ref)) return false;
      const p = path.resolve(dir, ref);
      if (isDir(p)) return false;
      out.set(p, this.hash(p));
      return true;
    };
    for (const ref of [...list(doc.resources), ...list(doc.bases), ...list(doc.components)]) {
      if (typeof ref !== 'string' || isRemote(ref)) return null;
      const p = path.resolve(dir, ref);
      if (isDir(p)) {
        if (!add(this.ofKustomization(p))) return null;
      } else if (isFile(p)) {
        out.set(p, this.hash(p));
      } else {
        return null; // kustomize would try it as a remote base
      }
    }
    for (const ref of [...list(doc.crds), ...list(doc.configurations)]) if (!fileRef(ref)) return null;
    if (doc.openapi !== undefined) {
      if (!isObj(doc.openapi) || (doc.openapi.path !== undefined && !fileRef(doc.openapi.path))) return null;
    }
    for (const p of [...list(doc.patches), ...list(doc.patchesJson6902), ...list(doc.replacements)]) {
      if (!isObj(p)) return null;
      if (p.path !== undefined && !fileRef(p.path)) return null;
    }
    for (const p of list(doc.patchesStrategicMerge)) {
      if (typeof p !== 'string') return null;
      // A path when it names a file, else the patch itself (already in the kustomization file's hash).
      const abs = path.resolve(dir, p);
      if (!p.includes('\n')) out.set(abs, this.hash(abs));
    }
    for (const g of [...list(doc.configMapGenerator), ...list(doc.secretGenerator)]) {
      if (!isObj(g)) return null;
      for (const f of list(g.files)) {
        if (typeof f !== 'string') return null;
        if (!fileRef(f.includes('=') ? f.slice(f.indexOf('=') + 1) : f)) return null;
      }
      for (const f of [...list(g.envs), ...(g.env !== undefined ? [g.env] : [])]) if (!fileRef(f)) return null;
    }
    return out;
  }
}

const KUSTOMIZATION_FILE = /^(kustomization\.ya?ml|Kustomization)$/;
const KIND = Buffer.from('\nkind:');

/** Lines that start with `kind:`: one per document of a manifest file. */
function countKinds(buf: Buffer): number {
  let n = buf.subarray(0, 5).toString() === 'kind:' ? 1 : 0;
  for (let i = buf.indexOf(KIND); i >= 0; i = buf.indexOf(KIND, i + KIND.length)) n++;
  return n;
}

/** A list field; anything else there (kustomize rejects it) is marked so that the walk gives up. */
const NOT_A_LIST = Symbol('not a list');
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [NOT_A_LIST]);
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
