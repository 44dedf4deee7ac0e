// The render cache: what one kustomize build printed, kept on disk under a key made of everything that determines
// it (the content of every file the build reads, see build-input-hashes.ts; the overlay standup wrote, which holds
// Flux's generated kustomization and the Kustomization's overlay fields; the kustomize binary; see build-cache.ts).
// A repeat load reuses the output and spawns kustomize only for what changed. postBuild substitution runs after the
// build, in standup, so its inputs are never part of a build's output and need no key.
//
// Correct first: an entry is one file, written to a temporary name and renamed into place (two runs never see half
// an entry), and read back only when its header's format, key, length and SHA-256 all match; anything else is
// deleted and rebuilt. The directory is the user's own ($XDG_CACHE_HOME/standup, else ~/.cache/standup), created
// 0700; one owned by another user, or writable by others, is not used. Its size is bounded: entries are touched on
// use, and when the cache grows past its bound the least recently used are removed.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Header } from '../repo/object-header.js';

const FORMAT = 'standup-render-cache 1';
/** Default bound on the cache's size; STANDUP_CACHE_MAX_MB overrides it. */
const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;
/** After a run that wrote entries, sizes are added up at most this often (the walk costs a stat per entry). */
const GC_INTERVAL_MS = 10 * 60 * 1000;

/** One cached object: kustomize's text, its identity, and its source file relative to the repository root. */
export interface CachedObject {
  text: string;
  header: Header;
  file: string | null;
  generated: boolean;
}

export type CachedOutcome = { ok: true; objects: CachedObject[] } | { ok: false; error: string };

export interface CacheLocation {
  dir: string;
  maxBytes: number;
}

/**
 * Where the cache lives for this user, from the environment (XDG Base Directory: $XDG_CACHE_HOME only when
 * absolute, else $HOME/.cache); null when neither is set.
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv): string | null {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'standup');
  if (env.HOME && path.isAbsolute(env.HOME)) return path.join(env.HOME, '.cache', 'standup');
  return null;
}

/** The render cache a command uses: the user's (defaultCacheDir) unless --no-cache (`cache: false`); false for none. */
export const renderCacheDir = (flags: { cache?: boolean }, env: NodeJS.ProcessEnv): string | false => (flags.cache === false ? false : (defaultCacheDir(env) ?? false));

export function cacheLocation(dir: string, env: NodeJS.ProcessEnv): CacheLocation {
  const mb = Number(env.STANDUP_CACHE_MAX_MB);
  return { dir, maxBytes: Number.isFinite(mb) && mb > 0 ? mb * 1024 * 1024 : DEFAULT_MAX_BYTES };
}

export class RenderCache {
  readonly dir: string;
  private wrote = 0;
  /** Why the cache is not used, when it is not (for the user). */
  readonly disabled: string | null;
  stats = { hits: 0, misses: 0, writes: 0, corrupt: 0 };

  constructor(private readonly loc: CacheLocation) {
    this.dir = path.join(loc.dir, 'render');
    this.disabled = ensurePrivateDir(loc.dir) ?? ensurePrivateDir(this.dir);
  }

  private file(key: string): string {
    return path.join(this.dir, key.slice(0, 2), `${key}.entry`);
  }

  get(key: string): CachedOutcome | null {
    if (this.disabled) return null;
    const f = this.file(key);
    let buf: Buffer;
    try {
      buf = readFileSync(f);
    } catch {
      this.stats.misses++;
      return null;
    }
    const nl = buf.indexOf(0x0a);
    const header = nl > 0 ? buf.subarray(0, nl).toString('utf8').split(' ') : [];
    // FORMAT (two words), key, payload length, payload sha256.
    const [magic, version, k, len, sum] = header;
    const payload = nl > 0 ? buf.subarray(nl + 1) : Buffer.alloc(0);
    const ok =
      `${magic} ${version}` === FORMAT &&
      k === key &&
      Number(len) === payload.length &&
      createHash('sha256').update(payload).digest('hex') === sum;
    let outcome: CachedOutcome | null = null;
    if (ok) {
      try {
        outcome = JSON.parse(payload.toString('utf8')) as CachedOutcome;
      } catch {
        outcome = null;
      }
    }
    if (!outcome || !validOutcome(outcome)) {
      // Partial, corrupt or foreign: never trusted, removed so that the rebuild replaces it.
      this.stats.corrupt++;
      this.stats.misses++;
      try {
        unlinkSync(f);
      } catch {
        /* another run removed it */
      }
      return null;
    }
    this.stats.hits++;
    try {
      const now = new Date();
      utimesSync(f, now, now);
    } catch {
      /* evicted meanwhile: the entry was read whole, it is still good */
    }
    return outcome;
  }

  /**
   * Stores an entry. The file system work runs off the main thread (a cold load writes one entry per build while it
   * waits on kustomize); flush() waits for it.
   */
  put(key: string, outcome: CachedOutcome): void {
    if (this.disabled) return;
    const payload = Buffer.from(JSON.stringify(outcome), 'utf8');
    const head = Buffer.from(`${FORMAT} ${key} ${payload.length} ${createHash('sha256').update(payload).digest('hex')}\n`, 'utf8');
    const f = this.file(key);
    const tmp = `${f}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    this.writes.push(
      (async () => {
        try {
          await this.shard(path.dirname(f));
          await writeFile(tmp, Buffer.concat([head, payload]), { flag: 'wx', mode: 0o600 });
          await rename(tmp, f);
          this.wrote += head.length + payload.length;
          this.stats.writes++;
        } catch {
          // A full disk or a read-only cache costs speed, never correctness.
          await unlink(tmp).catch(() => {});
        }
      })(),
    );
  }

  /** Waits for every entry put so far to be written (or given up). */
  async flush(): Promise<void> {
    while (this.writes.length > 0) await Promise.all(this.writes.splice(0));
  }

  private writes: Promise<void>[] = [];
  private shards = new Map<string, Promise<unknown>>();

  /** Creates a shard folder once per process (mkdir of an existing folder still costs a system call). */
  private shard(dir: string): Promise<unknown> {
    let p = this.shards.get(dir);
    if (!p) {
      p = mkdir(dir, { recursive: true, mode: 0o700 });
      this.shards.set(dir, p);
    }
    return p;
  }

  /**
   * After the load: when this run wrote entries and the last size check is old, evict down to 80% of the bound. The
   * walk (a stat per entry, thousands in a used cache) runs on the thread pool after the load has returned, not on
   * the load's path: done inside it, it held `up` back ~75 ms before its first request once every ten minutes.
   */
  maybeCollect(now = Date.now()): Promise<void> | null {
    if (this.disabled || this.wrote === 0) return null;
    const stamp = path.join(this.dir, 'last-gc');
    try {
      if (now - statSync(stamp).mtimeMs < GC_INTERVAL_MS) return null;
    } catch {
      /* never collected */
    }
    try {
      writeFileSync(stamp, '');
    } catch {
      return null;
    }
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.collect(now)).catch(() => undefined);
  }

  /** Removes the least recently used entries until the cache is under 80% of its bound; stale temp files too. */
  async collect(now = Date.now()): Promise<void> {
    const entries: { f: string; size: number; used: number }[] = [];
    let total = 0;
    let shards: string[];
    try {
      shards = await readdir(this.dir);
    } catch {
      return;
    }
    for (const s of shards) {
      const d = path.join(this.dir, s);
      let names: string[];
      try {
        names = await readdir(d);
      } catch {
        continue;
      }
      const seen = await Promise.all(names.map((n) => stat(path.join(d, n)).then((st) => ({ n, st }), () => null)));
      for (const x of seen) {
        if (!x) continue; // removed meanwhile
        const f = path.join(d, x.n);
        // Another run's temp file is never touched unless it is an hour old (that run died).
        if (x.n.endsWith('.tmp')) {
          if (now - x.st.mtimeMs > 3600_000) await unlink(f).catch(() => undefined);
          continue;
        }
        entries.push({ f, size: x.st.size, used: x.st.mtimeMs });
        total += x.st.size;
      }
    }
    if (total <= this.loc.maxBytes) return;
    entries.sort((a, b) => a.used - b.used);
    for (const e of entries) {
      if (total <= this.loc.maxBytes * 0.8) break;
      try {
        await unlink(e.f);
        total -= e.size;
      } catch {
        /* removed meanwhile */
      }
    }
  }
}

/**
 * Creates `dir` 0700 if missing; returns why it must not be used (owned by someone else, or writable by others),
 * or null when it is this user's own.
 */
function ensurePrivateDir(dir: string): string | null {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    if (!st.isDirectory()) return `${dir} is not a directory`;
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) return `${dir} belongs to another user (uid ${st.uid})`;
    if ((st.mode & 0o022) !== 0) return `${dir} is writable by other users`;
    return null;
  } catch (e) {
    return `${dir} cannot be created: ${(e as Error).message}`;
  }
}

function validOutcome(o: unknown): o is CachedOutcome {
  if (!o || typeof o !== 'object') return false;
  const x = o as { ok?: unknown; objects?: unknown; error?: unknown };
  if (x.ok === false) return typeof x.error === 'string';
  if (x.ok !== true || !Array.isArray(x.objects)) return false;
  return x.objects.every(
    (b: unknown) =>
      !!b &&
      typeof (b as CachedObject).text === 'string' &&
      typeof (b as CachedObject).header === 'object' &&
      typeof (b as CachedObject).header?.kind === 'string' &&
      ((b as CachedObject).file === null || typeof (b as CachedObject).file === 'string') &&
      typeof (b as CachedObject).generated === 'boolean',
  );
}
