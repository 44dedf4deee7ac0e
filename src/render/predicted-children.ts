// The Kustomizations building a path will apply, read from its files before kustomize runs, so that their builds
// join the same kustomize round as the path's own instead of waiting for its output: each round is at least one
// kustomize process start (~0.2 s for `kubectl kustomize`), and a cold `up` pays every round before its first write.
// build-path.ts keeps one build per directory and overlay, so a right guess is the very build the tier's render asks
// for later, and a wrong one is a build nobody reads: a guess changes how soon, never what. Guessed only where the
// files say for certain what kustomize will print: plain documents of the files it reads, nothing on the way that
// transforms them (a namespace, a prefix, a patch that may touch a Kustomization, replacements, components,
// generators, a remote base), and no variable in the child's spec that postBuild could change.
import path from 'node:path';
import { parseDocs } from '../discover/discovery-scan.js';
import { mayPatchKustomization } from '../discover/kustomize-tree.js';
import type { Obj } from '../model/k8s.js';
import { isDir } from '../repo/fs-stat.js';
import { buildPath, requestKey } from './build-path.js';
import { isFluxKustomization, toFluxKustomization } from './flux-kustomization.js';
import { overlayOf, type FluxOverlay } from './flux-overlay.js';
import { putOffUnderGraph, type RenderContext } from './render-context.js';
import type { RootSources } from './root-sources.js';
import { TierFileScan } from './tier-file-scan.js';

/** Kustomization fields that change the objects it includes (beyond labels and images, which touch no spec.path). */
const TRANSFORMING = ['namespace', 'namePrefix', 'nameSuffix', 'replacements', 'transformers', 'generators', 'components', 'vars', 'patchesJson6902', 'patchesStrategicMerge'];

/** What the build of `dir` with `overlay` starts with its children's builds. */
export interface Prefetch {
  /** The parent's namespace: a child without one gets it (the entry's objects: flux-system). */
  namespace: string;
  /** The entry's build: its root syncs are not read yet, so spec.paths resolve as they will once they are. */
  entry?: boolean;
}

/**
 * Starts the builds of the Kustomizations that building `dir` with `overlay` is certain to apply (see above). Call it
 * right after asking for the build of `dir` itself, in the same tick, so they share its kustomize round.
 */
export function prefetchChildren(ctx: RenderContext, roots: RootSources, dir: string, overlay: FluxOverlay, o: Prefetch): void {
  // Once per build per load: the tier's render calls this again for a build guessed here, and a cycle ends.
  const key = requestKey(dir, overlay);
  if (ctx.guessed.has(key)) return;
  ctx.guessed.add(key);
  if (overlay.targetNamespace || overlay.namePrefix || overlay.nameSuffix || overlay.patches?.length) return;
  // A root source nothing named is adopted from the entry's output (root-sources.ts adoptRoot).
  if (o.entry && roots.assumed) return;
  // Most tiers apply no Kustomization: the (cached) scan that puts off leaf tiers says so without reading them again.
  if (!ctx.fluxScan.mayApplyKustomizations(dir, overlay.components)) return;
  const children = plainKustomizations(ctx, dir, overlay.components ?? []);
  if (!children) return;
  const kss = children.map((raw) => toFluxKustomization({ raw, defaultNamespace: o.namespace, parent: null, origin: { file: '', line: null } }));
  const resolve = o.entry ? roots.resolverAfter(kss) : (p: string | null) => roots.resolve(p);
  // The entry is built again with its root sync's overlay when that has one (cluster-renderer.ts): not a plain build.
  if (o.entry && kss.some((k) => roots.isRootSource(k.sourceRef) && resolve(k.path) === path.relative(ctx.root, dir) && Object.keys(overlayOf(k)).length > 0)) return;
  for (const ks of kss) {
    if (!roots.isRootSource(ks.sourceRef) || ks.path === null || JSON.stringify(ks.raw.spec ?? {}).includes('${')) continue;
    const abs = path.join(ctx.root, resolve(ks.path));
    if (abs === dir || !isDir(abs)) continue;
    const childOverlay = overlayOf(ks);
    // A leaf put off under scope 'graph' may never be built.
    if (putOffUnderGraph(ctx, abs, childOverlay.components)) continue;
    // Its outcome is read by the tier's own render; nothing waits on this promise.
    buildPath(ctx, abs, childOverlay).catch(() => undefined);
    // And what it applies in turn, so a whole tree of plain files is one round.
    prefetchChildren(ctx, roots, abs, childOverlay, { namespace: ks.namespace });
  }
}

/** The Flux Kustomizations among the documents building `dir` reads, or null when its files cannot say for certain. */
function plainKustomizations(ctx: RenderContext, dir: string, components: readonly string[]): Obj[] | null {
  const texts: string[] = [];
  const scan = new TierFileScan(ctx.kustomizations, ctx.ignored, {
    // Every file is read (the answer is "no" for each), its text kept when it may hold a Flux Kustomization.
    test: (text) => {
      if (text.includes('kustomize.toolkit.fluxcd.io')) texts.push(text);
      return false;
    },
    // "Yes" means "cannot tell": a remote base, a Helm chart or plugin, a missing or unreadable file.
    doubt: true,
    kustomization: (k) => TRANSFORMING.some((f) => k[f] !== undefined) || (Array.isArray(k.patches) && k.patches.some(mayPatchKustomization)),
  });
  if (components.length > 0 || scan.may(dir)) return null;
  return texts.flatMap(parseDocs).filter(isFluxKustomization);
}
