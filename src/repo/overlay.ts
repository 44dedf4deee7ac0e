// Writes the kustomization.yaml that kustomize-controller would build for one path: Flux's generated one when the
// path has none (FLUX.md §5), plus the Kustomization's overlay fields (targetNamespace, namePrefix/Suffix, patches,
// images, components, commonMetadata). It lives in a temp overlay directory that points back at the repository, so
// nothing is ever written into the user's tree.
import { existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'] as const;

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

export function hasKustomizationFile(dir: string): boolean {
  return KUSTOMIZATION_FILES.some((f) => existsSync(path.join(dir, f)));
}

/** A file source-controller leaves out of the artifact (sourceignore.ts), by absolute path. */
export type Ignored = (abs: string) => boolean;

/**
 * Flux's generator: walk `dir` recursively (lexical order, dotfiles included); a subdirectory with a kustomization
 * file is one resource and is not descended; every *.yaml / *.yml file is a resource; other files and symlinks are
 * ignored, and so is a file the source artifact does not hold (`ignored`).
 */
export function generatedResources(dir: string, ignored: Ignored = () => false): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const n of names) {
      const p = path.join(d, n);
      let st;
      try {
        // lstat: source-controller drops symlinks from the artifact, so Flux never sees them.
        st = lstatSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (hasKustomizationFile(p)) out.push(p);
        else walk(p);
      } else if (st.isFile() && (n.endsWith('.yaml') || n.endsWith('.yml')) && !ignored(p)) {
        out.push(p);
      }
    }
  };
  walk(dir);
  return out;
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
}

/** Writes `<overlayDir>/kustomization.yaml` building `dir` (absolute) the way kustomize-controller does. */
export function writeOverlay(overlayDir: string, dir: string, overlay: FluxOverlay, keyRoot: string = overlayDir, ignored?: Ignored): OverlayFiles {
  mkdirSync(overlayDir, { recursive: true });
  const generated = !hasKustomizationFile(dir);
  const files = generated ? generatedResources(dir, ignored) : [];
  // JSON is YAML that every parser reads alike (each string quoted, so no `on` or `no` turns boolean), and cheap.
  const text = (base: string) => JSON.stringify(overlayKustomization(dir, overlay, generated, files, (p) => path.relative(base, p) || '.'), null, 1) + '\n';
  writeFileSync(path.join(overlayDir, 'kustomization.yaml'), text(overlayDir));
  return { overlayDir, generated, files, keyText: text(keyRoot) };
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
  const labels = overlay.commonMetadata?.labels;
  const annotations = overlay.commonMetadata?.annotations;
  if (labels && Object.keys(labels).length) k.labels = [{ pairs: labels, includeSelectors: false }];
  if (annotations && Object.keys(annotations).length) k.commonAnnotations = annotations;
  return k;
}
