// A GitRepository of this repository that reads another branch, tag or commit than the root sync (a release branch,
// a pinned tag): Flux builds its Kustomizations from that ref, not from the checked-out tree. When git here has the
// ref, its tree is exported into the load's work directory (once per ref) and built from there; files map back to
// the repository's paths for origins. Either way one info per source says what was built from what.
import path from 'node:path';
import { archiveInto, resolveRef } from '../repo/git.js';
import type { RenderContext } from './render-context.js';

export interface RefTree {
  /** The tree's directory standing for the repository root (the load's root, inside the exported git root). */
  dir: string;
  commit: string;
  /** The git ref it was read from: `refs/remotes/origin/release`. */
  ref: string;
}

/** The git refs that may hold what a GitRepository's spec.ref names (`branch x`, `tag v1`, `commit c`, `name refs/...`). */
export function gitCandidates(spec: string): string[] {
  const [kind, value] = [spec.slice(0, spec.indexOf(' ')), spec.slice(spec.indexOf(' ') + 1)];
  switch (kind) {
    case 'branch':
      return [`refs/heads/${value}`, `refs/remotes/origin/${value}`];
    case 'tag':
      return [`refs/tags/${value}`];
    case 'commit':
    case 'name':
      return [value];
    default:
      return []; // a semver range: which tag it picks depends on the remote's tags
  }
}

const trees = new WeakMap<RenderContext, Map<string, Promise<RefTree | null>>>();

/** The repository at `spec` (see gitCandidates), exported once per load; null when git here does not have it. */
export function refTree(ctx: RenderContext, spec: string): Promise<RefTree | null> {
  let byRef = trees.get(ctx);
  if (!byRef) trees.set(ctx, (byRef = new Map()));
  let p = byRef.get(spec);
  if (!p) {
    p = (async () => {
      const found = await resolveRef(ctx.root, gitCandidates(spec));
      if (!found) return null;
      const out = path.join(ctx.work, `g${byRef!.size}-${found.commit.slice(0, 12)}`);
      if (!(await archiveInto(found.gitRoot, found.commit, out))) return null;
      const dir = path.join(out, path.relative(found.gitRoot, ctx.root));
      ctx.artifacts.addTree(dir, ctx.root);
      return { dir, commit: found.commit, ref: found.ref };
    })();
    byRef.set(spec, p);
  }
  return p;
}
