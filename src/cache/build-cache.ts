// The render cache as one load's builds use it: the key of a build (everything that determines its output) and its
// outcome stored with the paths of this run replaced, so that the next run, in another temp directory, reads it back
// with its own.
import { createHash } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { BuildOutcome } from '../repo/kustomize-output.js';
import { repoRelative } from '../repo/repo-path.js';
import type { BuildInputHashes } from './build-input-hashes.js';
import type { CachedOutcome, RenderCache } from './render-cache.js';
import { standupBuildId } from './standup-build-id.js';

const CACHE_KEY_VERSION = 1;

export interface BuildCacheOptions {
  cache: RenderCache;
  /** What each build reads, hashed once per load. */
  inputs: BuildInputHashes;
  /** The kustomize binary's identity (kustomizeIdentity): a new kustomize is a new key. */
  kustomizeId: string;
  /** Absolute directory the repository is read from. */
  root: string;
  /** This load's temp directory (overlays, batches, materialized artifacts). */
  work: string;
}

export class BuildCache {
  constructor(private readonly o: BuildCacheOptions) {}

  /**
   * The key of building the overlay in `overlayDir` (written as `keyText`, its paths relative to the repository), or
   * null when it is not cached: some input is not known for sure (build-input-hashes.ts), or lives in this load's
   * temp directory (an ExternalArtifact's tree, materialized per load).
   */
  keyOf(overlayDir: string, keyText: string): string | null {
    const inputs = this.o.inputs.ofKustomization(overlayDir);
    if (!inputs) return null;
    const own = path.join(overlayDir, 'kustomization.yaml');
    const parts: [string, string][] = [];
    for (const [f, h] of inputs) {
      if (f === own) continue;
      if (f.startsWith(this.o.work + path.sep)) return null;
      parts.push([repoRelative(this.o.root, f), h]);
    }
    parts.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return createHash('sha256').update(JSON.stringify({ v: CACHE_KEY_VERSION, code: standupBuildId(), kustomize: this.o.kustomizeId, overlay: keyText, inputs: parts })).digest('hex');
  }

  /** The stored outcome of the build keyed `key`, with this run's paths, or null. */
  get(key: string, overlayDir: string): BuildOutcome | null {
    const c = this.o.cache.get(key);
    if (!c) return null;
    if (!c.ok) {
      let error = c.error;
      for (const [to, from] of this.placeholders(overlayDir)) error = error.split(from).join(to);
      return { ok: false, error, reported: true };
    }
    return { ok: true, objects: c.objects.map((b) => ({ text: b.text, header: b.header, file: b.file === null ? null : path.resolve(this.o.root, b.file), generated: b.generated })) };
  }

  /**
   * Stores a build's outcome, unless it cannot be kept (a crash, an object read from the temp directory) or an input
   * changed while kustomize ran (its output must not be filed under the old content's key).
   */
  put(key: string, overlayDir: string, outcome: BuildOutcome): void {
    const stored = this.toCached(outcome, overlayDir);
    if (stored && this.o.inputs.unchanged(overlayDir)) this.o.cache.put(key, stored);
  }

  private toCached(o: BuildOutcome, overlayDir: string): CachedOutcome | null {
    if (!o.ok) {
      if (!o.reported) return null;
      let error = o.error;
      for (const [from, to] of this.placeholders(overlayDir)) if (from) error = error.split(from).join(to);
      return { ok: false, error };
    }
    const objects = [];
    for (const b of o.objects) {
      if (b.file && b.file.startsWith(this.o.work + path.sep)) return null;
      objects.push({ text: b.text, header: b.header, file: b.file ? repoRelative(this.o.root, b.file) : null, generated: b.generated });
    }
    return { ok: true, objects };
  }

  /** Paths in a stored error are this run's; placeholders make them the next run's on the way back. */
  private placeholders(overlayDir: string): [string, string][] {
    return [
      [this.o.work, '\u0000WORK'],
      [this.o.root, '\u0000ROOT'],
      [path.relative(overlayDir, this.o.root), '\u0000UP'],
    ];
  }
}

/**
 * The kustomize that renders, as the cache knows it: the command, and its binary's real path, size and mtime; null
 * when the binary cannot be identified (then nothing it printed before can be trusted to be what it prints now).
 */
export function kustomizeIdentity(command: readonly string[]): string | null {
  try {
    const real = realpathSync(command[0]!);
    const st = statSync(real);
    return JSON.stringify([real, st.size, st.mtimeMs, command.slice(1)]);
  } catch {
    return null;
  }
}
