// Writes the kustomization.yaml that kustomize-controller would build for one path, as fluxcd/pkg's kustomize
// generator makes it (FLUX.md §5): the path's own kustomization file, or Flux's generated one when it has none, with
// the Kustomization's fields merged into it (targetNamespace and namePrefix/Suffix replace, patches and components
// are appended, images merged by name), plus commonMetadata. The merge is into that same file, not a layer over it:
// a path whose kustomization is a `kind: Component` builds, and its own patches see what spec.components add. It lives
// in a temp overlay directory whose references point back at the repository, so nothing is written into the
// user's tree.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generatedResources, type Ignored } from '../repo/generated-kustomization.js';
import type { FluxKustomization } from '../model/flux.js';
import type { Obj } from '../model/k8s.js';
import { hasKustomizationFile, KustomizationFiles } from '../repo/kustomization-file.js';
import { rebaseKustomization } from './rebase-kustomization.js';

/** The spec fields kustomize-controller layers over the kustomization it builds. */
export interface FluxOverlay {
  targetNamespace?: string;
  namePrefix?: string;
  nameSuffix?: string;
  patches?: unknown[];
  images?: unknown[];
  /** Relative to the built path, as in spec.components. */
  components?: string[];
  commonMetadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
}

/** The overlay fields of a Kustomization's spec, as kustomize-controller layers them over its build. */
export function overlayOf(ks: FluxKustomization): FluxOverlay {
  const spec: Obj = ks.raw.spec ?? {};
  const o: FluxOverlay = {};
  if (ks.targetNamespace) o.targetNamespace = ks.targetNamespace;
  if (typeof spec.namePrefix === 'string' && spec.namePrefix) o.namePrefix = spec.namePrefix;
  if (typeof spec.nameSuffix === 'string' && spec.nameSuffix) o.nameSuffix = spec.nameSuffix;
  if (Array.isArray(spec.patches) && spec.patches.length) o.patches = spec.patches;
  if (Array.isArray(spec.images) && spec.images.length) o.images = spec.images;
  if (Array.isArray(spec.components) && spec.components.length) o.components = spec.components.map(String);
  const cm: Obj | undefined = spec.commonMetadata;
  if (cm && (cm.labels || cm.annotations)) o.commonMetadata = { labels: cm.labels, annotations: cm.annotations };
  return o;
}

export interface OverlayFiles {
  overlayDir: string;
  /** True when `dir` had no kustomization file and Flux's generated one was used. */
  generated: boolean;
  /** The files the generated kustomization lists (absolute), for YAML diagnostics. */
  files: string[];
  /**
   * The overlay as written, with every path relative to `keyRoot` instead of to the overlay's temp directory: what
   * the render cache keys it by (the same overlay in another run's temp directory is the same build).
   */
  keyText: string;
  /** The path's own kustomization file when the overlay is that file merged with Flux's fields, else null. */
  mergedFrom: string | null;
  /** True when the merged kustomization is a `kind: Component` (kustomize builds it, but not as another's resource). */
  component: boolean;
}

/** Writes `<overlayDir>/kustomization.yaml` building `dir` (absolute) the way kustomize-controller does. */
export function writeOverlay(
  overlayDir: string,
  dir: string,
  overlay: FluxOverlay,
  keyRoot: string = overlayDir,
  ignored?: Ignored,
  kustomizations: KustomizationFiles = new KustomizationFiles(),
): OverlayFiles {
  mkdirSync(overlayDir, { recursive: true });
  const generated = !hasKustomizationFile(dir);
  const files = generated ? generatedResources(dir, ignored) : [];
  const read = generated ? null : kustomizations.read(dir);
  // A file kustomize cannot read as one kustomization (not YAML, not a map, two of them) stays a resource: kustomize
  // then reports it as it would in Flux.
  const own = read && read !== 'unparseable' && read.count === 1 && isMap(read.doc) ? read : null;
  const text = (base: string) => {
    const rel = (p: string) => path.relative(base, p) || '.';
    const k = own ? mergedKustomization(own.doc as Obj, dir, overlay, rel) : overlayKustomization(dir, overlay, generated, files, rel);
    // JSON is YAML that every parser reads alike (each string quoted, so no `on` or `no` turns boolean), and cheap.
    return JSON.stringify(k, null, 1) + '\n';
  };
  writeFileSync(path.join(overlayDir, 'kustomization.yaml'), text(overlayDir));
  return { overlayDir, generated, files, keyText: text(keyRoot), mergedFrom: own?.file ?? null, component: own !== null && (own.doc as Obj).kind === 'Component' };
}

function overlayKustomization(dir: string, overlay: FluxOverlay, generated: boolean, files: string[], rel: (p: string) => string): Record<string, unknown> {
  const k: Record<string, unknown> = {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    buildMetadata: ['originAnnotations'],
    resources: generated ? files.map(rel) : [rel(dir)],
  };
  if (overlay.targetNamespace) k.namespace = overlay.targetNamespace;
  if (overlay.namePrefix) k.namePrefix = overlay.namePrefix;
  if (overlay.nameSuffix) k.nameSuffix = overlay.nameSuffix;
  if (overlay.patches?.length) k.patches = overlay.patches;
  if (overlay.images?.length) k.images = overlay.images;
  if (overlay.components?.length) k.components = overlay.components.map((c) => rel(path.resolve(dir, c)));
  addCommonMetadata(k, overlay);
  return k;
}

/** The path's own kustomization with the Flux fields merged in, as fluxcd/pkg's Generator.GenerateManifest does. */
function mergedKustomization(doc: Obj, dir: string, overlay: FluxOverlay, rel: (p: string) => string): Obj {
  const k = rebaseKustomization(doc, dir, rel);
  if (overlay.targetNamespace) k.namespace = overlay.targetNamespace;
  if (overlay.namePrefix) k.namePrefix = overlay.namePrefix;
  if (overlay.nameSuffix) k.nameSuffix = overlay.nameSuffix;
  if (overlay.patches?.length) k.patches = [...(Array.isArray(k.patches) ? k.patches : []), ...overlay.patches];
  if (overlay.components?.length) k.components = [...(Array.isArray(k.components) ? k.components : []), ...overlay.components.map((c) => rel(path.resolve(dir, c)))];
  if (overlay.images?.length) k.images = mergeImages(Array.isArray(k.images) ? k.images : [], overlay.images);
  // standup reads each object's file from kustomize's origin annotations.
  const meta = Array.isArray(k.buildMetadata) ? k.buildMetadata : [];
  k.buildMetadata = meta.includes('originAnnotations') ? meta : [...meta, 'originAnnotations'];
  addCommonMetadata(k, overlay);
  return k;
}

/**
 * An image of the Kustomization replaces the fields it sets in an entry of the same name (newTag and digest as one
 * unit: setting either clears the other); a new name is appended.
 */
function mergeImages(own: unknown[], flux: unknown[]): unknown[] {
  const out = own.map((i) => (isMap(i) ? { ...i } : i));
  for (const i of flux) {
    if (!isMap(i)) continue;
    const at = out.findIndex((o) => isMap(o) && o.name === i.name);
    if (at < 0) {
      out.push({ ...i });
      continue;
    }
    const o = out[at] as Obj;
    if (i.newName) o.newName = i.newName;
    if (i.newTag || i.digest) {
      o.newTag = i.newTag;
      o.digest = i.digest;
      for (const f of ['newTag', 'digest']) if (!o[f]) delete o[f];
    }
  }
  return out;
}

/** commonMetadata: kustomize-controller sets these on every object it applies, over what the build gave them. */
function addCommonMetadata(k: Obj, overlay: FluxOverlay): void {
  const labels = overlay.commonMetadata?.labels;
  const annotations = overlay.commonMetadata?.annotations;
  if (labels && Object.keys(labels).length) k.labels = [...(Array.isArray(k.labels) ? k.labels : []), { pairs: labels, includeSelectors: false }];
  if (annotations && Object.keys(annotations).length) k.commonAnnotations = { ...(isMap(k.commonAnnotations) ? k.commonAnnotations : {}), ...annotations };
}

const isMap = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
