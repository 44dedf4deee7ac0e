// Discovery strategy: a root pair, a Flux Kustomization and the source it reads declared in one folder (gotk-sync.yaml,
// or split over files). In a flux-system folder the Kustomization's spec.path is the entry, as `flux bootstrap`
// writes it; elsewhere only a root that applies itself counts (its spec.path builds the file that declares it), so a
// tier with its own source (a chart's GitRepository, a tenant) is not taken for a cluster, nor is a root reading an
// OCI artifact or a bucket that does not apply itself (Flux's self-upgrade Kustomization at `path: ./`). A flux-system/gotk-sync.yaml
// that holds only comments (the placeholder `flux bootstrap` leaves) makes the folder above it a cluster.
import path from 'node:path';
import type { Obj } from '../model/k8s.js';
import { isDir } from '../repo/fs-stat.js';
import { normalizeRepoPath } from '../repo/repo-path.js';
import { DEFAULT_SOURCE, type SourceSpec } from './cluster-entry.js';
import type { DiscoveryScan } from './discovery-scan.js';
import { isFluxKs, isRootSource, sourceRefOf, sourceOf, sourceUrl, str } from './flux-documents.js';

/** A root Kustomization (with its source) declared beside its source: an overlay that includes it may patch it. */
export interface RootPair {
  /** The parsed Kustomization and the file that declares it. */
  obj: Obj;
  file: string;
  source: SourceSpec;
}

/** Adds the entries root pairs name to `scan.found`; returns every root pair, for the overlays that may patch them. */
export function findRootPairs(scan: DiscoveryScan): RootPair[] {
  const pairs: RootPair[] = [];
  for (const [dir, e] of scan.byDir) {
    const inFluxSystem = path.basename(dir) === 'flux-system';
    if (e.sources.length === 0 && !inFluxSystem) continue;
    const sources = e.sources.flatMap((f) => scan.docs(f).filter(isRootSource));
    const roots = e.kustomizations.flatMap((f) => scan.docs(f).filter(isFluxKs).map((obj) => ({ obj, file: f })));
    for (const f of e.kustomizations) {
      // `flux bootstrap` placeholder (comments only): the cluster is the directory that holds flux-system/.
      if (path.basename(f) === 'gotk-sync.yaml' && inFluxSystem && !scan.docs(f).some((d) => d.kind === 'Kustomization')) {
        scan.found.push({ entry: normalizeRepoPath(scan.rel(path.dirname(dir))), source: { ref: DEFAULT_SOURCE, url: null }, foundIn: scan.rel(f) });
      }
    }
    for (const k of roots) {
      const s = sourceOf(k.obj, sources);
      if (!s) continue;
      const source = { ref: sourceRefOf(k.obj), url: sourceUrl(s) };
      const specPath = k.obj.spec?.path;
      const p = typeof specPath === 'string' || specPath === undefined || specPath === null ? scan.entryFor(normalizeRepoPath(String(specPath ?? '')), scan.rel(dir), k.file) : null;
      if (p !== null && !String(specPath ?? '').includes('${')) {
        const abs = path.join(scan.root, p);
        // Outside flux-system, only a root that applies itself; at the repository root, only through a kustomization
        // file (Flux's generated kustomization of the whole tree would "apply" every file).
        const selfApplying = isDir(abs) && (p !== '' || scan.kustomizationDirs.includes(abs)) && scan.tree.filesOf(abs).has(k.file);
        // An OCIRepository or Bucket is an artifact, not this repository's tree: a root reading one (Flux's own
        // self-upgrade from the flux-manifests image, `path: ./`) is an entry only when its path applies its file.
        const fromGit = s.kind === 'GitRepository';
        if ((inFluxSystem && fromGit) || selfApplying) {
          const unapplied = selfApplying ? undefined : { name: String(k.obj.metadata?.name ?? ''), namespace: str(k.obj.metadata?.namespace) ?? 'flux-system', specPath: String(specPath ?? '') };
          scan.found.push({ entry: p, source, foundIn: scan.rel(k.file), ...(unapplied ? { unapplied } : {}) });
        }
      }
      pairs.push({ ...k, source });
    }
  }
  return pairs;
}
