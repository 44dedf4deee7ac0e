// One build of a directory with a Flux overlay, once per load however many clusters or Kustomizations ask for it:
// from the render cache when it holds it, else queued for kustomize; then checked against what the source artifact
// holds.
import path from 'node:path';
import type { BuildOutcome } from '../repo/kustomize-output.js';
import { repoRelative } from '../repo/repo-path.js';
import { writeOverlay, type FluxOverlay } from './flux-overlay.js';
import type { PathBuild, RenderContext } from './render-context.js';

/** What makes two build requests the same build: the directory and the overlay. */
export const requestKey = (dir: string, overlay: FluxOverlay): string => `${dir}\u0000${JSON.stringify(overlay)}`;

/** Builds `dir` with `overlay` once per load. */
export function buildPath(ctx: RenderContext, dir: string, overlay: FluxOverlay): Promise<PathBuild> {
  const key = requestKey(dir, overlay);
  let p = ctx.builds.get(key);
  if (!p) {
    const n = ++ctx.seq.n;
    const overlayDir = path.join(ctx.work, `r${n}`);
    const { generated, files, keyText, mergedFrom, component } = writeOverlay(overlayDir, dir, overlay, ctx.root, ctx.ignored, ctx.kustomizations);
    const own = path.join(overlayDir, 'kustomization.yaml');
    // What the path's own kustomization generates names it as its origin, not the merged copy standup wrote.
    const fromOwn = (o: BuildOutcome): BuildOutcome =>
      mergedFrom && o.ok && o.objects.some((b) => b.file === own) ? { ok: true, objects: o.objects.map((b) => (b.file === own ? { ...b, file: mergedFrom } : b)) } : o;
    const cache = ctx.buildCache;
    const ck = cache ? cache.keyOf(overlayDir, keyText) : null;
    if (cache && !ck) ctx.seq.uncached++;
    const hit = ck ? cache!.get(ck, overlayDir) : null;
    if (hit) {
      p = Promise.resolve({ outcome: outsideArtifact(ctx, overlayDir, fromOwn(hit), mergedFrom), generated, files, dir });
    } else {
      // A Component cannot be another kustomization's resource, as a batch would make it.
      const solo = component || ctx.likelyFailures.suspect(dir, generated ? files : []);
      p = ctx.builder.build({ n, overlayDir, solo, objects: ctx.inputs.objectsOf(overlayDir) }).then((built) => {
        const outcome = fromOwn(built);
        if (ck) cache!.put(ck, overlayDir, outcome);
        return { outcome: outsideArtifact(ctx, overlayDir, outcome, mergedFrom), generated, files, dir };
      });
    }
    ctx.builds.set(key, p);
  }
  return p;
}

/**
 * kustomize read the repository's work tree; kustomize-controller reads the source artifact, which lacks what
 * .sourceignore (or source-controller's defaults) leaves out. A build that read such a file fails in Flux.
 */
function outsideArtifact(ctx: RenderContext, overlayDir: string, o: BuildOutcome, mergedFrom: string | null): BuildOutcome {
  if (!o.ok) return o;
  const own = path.join(overlayDir, 'kustomization.yaml');
  const read = new Set<string>(mergedFrom ? [mergedFrom] : []);
  const inputs = ctx.inputs.ofKustomization(overlayDir);
  if (inputs) for (const [f, h] of inputs) if (f !== own && h !== 'absent') read.add(f);
  for (const b of o.objects) if (b.file && !b.generated) read.add(b.file);
  const left = [...read].filter((f) => ctx.ignored(f)).map((f) => repoRelative(ctx.root, f)).sort();
  if (left.length === 0) return o;
  const files = left.length > 3 ? `${left.slice(0, 3).join(', ')} and ${left.length - 3} more` : left.join(', ');
  return {
    ok: false,
    reported: true,
    error: `${files} ${left.length === 1 ? 'is' : 'are'} not in the source artifact (source-controller leaves ${left.length === 1 ? 'it' : 'them'} out: ${ctx.sourceIgnore.describe()}), so kustomize-controller cannot read ${left.length === 1 ? 'it' : 'them'}`,
  };
}
