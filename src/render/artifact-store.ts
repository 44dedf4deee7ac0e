// ExternalArtifacts that an ArtifactGenerator makes from this repository, materialized once per load under the
// render work directory, so a Kustomization reading one is built like kustomize-controller builds it: from the
// artifact's own tree, where a relative path that leaves the artifact fails as it does in Flux. Files keep a map
// back to the repository, so origins (file:line) name the file a person edits.
import path from 'node:path';
import { materializeArtifact, planArtifact, type GeneratedArtifact } from './artifact-generator/index.js';

export interface MaterializedArtifact {
  /** Absolute directory holding the artifact's files. */
  dir: string;
  /** "ArtifactGenerator ns/name, artifact <name>", for messages. */
  label: string;
}

export type ArtifactOutcome =
  /** `warnings`: what standup could not reproduce exactly (a Merge, an Extract); the rest of the artifact is there. */
  | { ok: true; artifact: MaterializedArtifact; warnings: string[] }
  /** Some source is not this repository: the artifact's content is unknown here. */
  | { ok: false; external: true }
  /** source-watcher would fail to build it (or standup cannot reproduce it): the reasons. */
  | { ok: false; external: false; problems: string[] };

export class ArtifactStore {
  private made = new Map<string, ArtifactOutcome>();
  /** Absolute artifact file -> absolute repository file. */
  private files = new Map<string, string>();
  private seq = 0;
  /** A tree of this repository at another revision (source-ref.ts) -> the repository directory it mirrors. */
  private trees = new Map<string, string>();

  constructor(private readonly work: string) {}

  /**
   * The artifact `artifact` of the generator `generator` (namespace/name), its aliases resolved to repository
   * directories (null: a source that is not this repository). Built once per load and reused.
   */
  get(generator: string, artifact: GeneratedArtifact, aliasRoots: ReadonlyMap<string, string | null>): ArtifactOutcome {
    // Two clusters may each have a generator of the same name making different artifacts: key by content.
    const key = `${generator}\u0000${JSON.stringify(artifact)}\u0000${JSON.stringify([...aliasRoots])}`;
    const hit = this.made.get(key);
    if (hit) return hit;
    const label = `ArtifactGenerator ${generator}, artifact ${artifact.name}`;
    const plan = planArtifact(artifact, aliasRoots);
    let out: ArtifactOutcome;
    if (plan.unknownAliases.length > 0) out = { ok: false, external: true };
    else if (plan.files.length === 0 && plan.problems.length > 0) out = { ok: false, external: false, problems: plan.problems };
    else {
      const dir = path.join(this.work, `a${++this.seq}-${artifact.name}`);
      for (const [dest, src] of materializeArtifact(plan.files, dir)) this.files.set(dest, src);
      out = { ok: true, artifact: { dir, label }, warnings: plan.problems };
    }
    this.made.set(key, out);
    return out;
  }

  /** Files under `dir` stand for the same paths under `repoDir` (a revision of this repository). */
  addTree(dir: string, repoDir: string): void {
    this.trees.set(dir, repoDir);
  }

  /** The repository file an artifact (or revision tree) file was copied from; any other path as it is. */
  source(file: string): string {
    const hit = this.files.get(file);
    if (hit) return hit;
    for (const [dir, repoDir] of this.trees) if (file.startsWith(dir + path.sep)) return path.join(repoDir, file.slice(dir.length + 1));
    return file;
  }

  /** The repository directory an artifact directory corresponds to, when one of its files says; else null. */
  sourceDir(dir: string): string | null {
    const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
    for (const [dest, src] of this.files) {
      if (!dest.startsWith(prefix)) continue;
      const tail = dest.slice(prefix.length);
      if (src.endsWith(path.sep + tail)) return src.slice(0, src.length - tail.length - 1);
    }
    return null;
  }
}
