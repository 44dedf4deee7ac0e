// Discovery strategy: an overlay that includes a root pair's folder and patches the root (a fleet of clusters over
// one base). The overlay is built with the real kustomize, and the patched spec.path is the entry, one cluster per
// overlay.
import path from 'node:path';
import type { Obj } from '../model/k8s.js';
import { isDir } from '../repo/fs-stat.js';
import { materialize } from '../repo/kustomize-output.js';
import { normalizeRepoPath } from '../repo/repo-path.js';
import type { DiscoveryScan } from './discovery-scan.js';
import { sourceRefOf, sourceUrl } from './flux-documents.js';
import type { RootPair } from './root-pairs.js';

/** Starts a build of every overlay that may patch one of `pairs` (only wanted ones, when the load names entries). */
export function findPatchedRoots(scan: DiscoveryScan, pairs: readonly RootPair[]): void {
  const { o } = scan;
  for (const k of pairs) {
    for (const inc of scan.tree.includers(k.file)) {
      if (!inc.transformed || (o.wanted && !o.wanted.has(scan.rel(inc.dir)))) continue;
      scan.builds.push(
        o.build(inc.dir).then((out) => {
          if (!out.ok) return; // the entry's own build reports it, if it is an entry at all
          for (const b of out.objects.filter((x) => x.file === k.file && x.header.kind === 'Kustomization' && x.header.apiVersion.startsWith('kustomize.toolkit.fluxcd.io/'))) {
            const built = materialize(b.text, o.memo) as Obj;
            const bp = built.spec?.path;
            if (typeof bp !== 'string' || bp.includes('${')) continue;
            const entry = scan.entryFor(normalizeRepoPath(bp), scan.rel(inc.dir), k.file);
            const abs = path.join(scan.root, entry);
            if (!isDir(abs) || (abs !== inc.dir && !scan.tree.filesOf(abs).has(k.file))) continue;
            const ref = sourceRefOf(built);
            const src = out.objects.find((x) => x.header.kind === ref.kind && x.header.name === ref.name);
            scan.found.push({ entry, source: { ref, url: src ? sourceUrl(materialize(src.text, o.memo) as Obj) : k.source.url }, foundIn: scan.rel(path.join(inc.dir, 'kustomization.yaml')) });
          }
        }),
      );
    }
  }
}
