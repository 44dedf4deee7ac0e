// YAML parsed once per content: most of a warm load's CPU is the yaml library reading texts it read the run before
// (kustomization files, the documents discovery looks at, the objects a render reads). Keyed by a hash of the exact
// text (and of how it is parsed), a result is the same every time, so it is kept as JSON, which parses many times
// faster, in memory for the load and on disk between loads (one file per repository in the render cache's directory,
// with the cache's header checks, holding what the last KEEP_LOADS loads used, so that plan and check on one
// repository do not evict each other's). Each use gets a fresh copy. A result JSON cannot hold exactly (NaN,
// Infinity, -0, anything but plain data) is never kept. The load saves its memo when it is done, and the load
// session again when the command ends (load/load-session.ts): objects are parsed lazily, and commands (check's
// rules) read most of them after the load has returned. A repository whose own memo does not exist yet (its
// tiers.yaml was edited, a clone with another one) borrows the memo saved last: entries are keyed by text, so what
// it finds there is exact.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { TextMemo } from '../repo/lazy-yaml.js';
import { standupBuildId } from './standup-build-id.js';

const FORMAT = 'standup-parse-memo 2';
const KEEP_LOADS = 8;

/** Beside the memos: the name of the one saved last, for a load whose own memo does not exist yet (see ParseMemo). */
const LATEST = 'latest';
const MEMO_NAME = /^[0-9a-f]{32}\.memo$/;

/**
 * Where the memo of a repository lives in the render cache's directory: one memo per repository and standup build,
 * so two versions sharing the cache keep their own. A repository is known by its tiers.yaml when it has one (its
 * text, so a fresh clone, a worktree or CI's new checkout directory reads what the last load of the same repository
 * parsed: on a first `up` from a new clone that was ~150 ms of CPU, most of it the yaml library's own warm-up),
 * else by its path.
 */
export function memoFileFor(cacheDir: string, repo: { root: string; tiersYaml: string | null }): string {
  const identity = repo.tiersYaml !== null ? `tiers.yaml\u0000${repo.tiersYaml}` : `path\u0000${repo.root}`;
  const name = createHash('sha256').update(`${identity}\u0000${standupBuildId()}`).digest('hex').slice(0, 32);
  return path.join(cacheDir, 'memo', `${name}.memo`);
}

export class ParseMemo implements TextMemo {
  /** From the file: hash -> [JSON, the load that last used it]. */
  private known = new Map<string, [string, number]>();
  /**
   * `known` came from the memo saved last, not this repository's own (which did not exist): a repository whose
   * tiers.yaml was edited, or a new clone with another tiers.yaml, is most often the one loaded last, under a new
   * name. Its entries are keyed by the text they parsed, so every hit is exact; only what this load uses is kept.
   */
  private borrowed = false;
  private used = new Map<string, string>();
  private added = 0;
  /** This load's number: one more than the file's. */
  private gen = 1;

  /** @param file where the memo lives between loads, or null to keep it for this load only */
  constructor(private readonly file: string | null) {
    if (file && !this.read(file, true)) {
      const last = this.latest();
      if (last) this.borrowed = this.read(last, false);
    }
  }

  get<T>(how: string, text: string, parse: () => T): T {
    const hit = this.peek<T>(how, text);
    if (hit !== undefined) return hit;
    const v = parse();
    this.put(how, text, v);
    return v;
  }

  /** What parsing `text` this way gave before, or undefined. */
  peek<T>(how: string, text: string): T | undefined {
    const h = key(how, text);
    const hit = this.used.get(h) ?? this.known.get(h)?.[0];
    if (hit === undefined) return undefined;
    this.used.set(h, hit);
    return JSON.parse(hit) as T;
  }

  /** Keeps what parsing `text` this way gave (when JSON holds it exactly). */
  put(how: string, text: string, value: unknown): void {
    if (!jsonSafe(value)) return;
    this.used.set(key(how, text), JSON.stringify(value));
    this.added++;
  }

  /**
   * Writes what this load used, with what the loads before it used and this one did not, up to KEEP_LOADS loads
   * back; only when this load added something (a load that found everything leaves the file as it is).
   */
  save(): void {
    if (!this.file || this.added === 0) return;
    const entries: Record<string, [string, number]> = {};
    if (!this.borrowed) for (const [h, e] of this.known) if (e[1] > this.gen - KEEP_LOADS && !this.used.has(h)) entries[h] = e;
    for (const [h, j] of this.used) entries[h] = [j, this.gen];
    const payload = Buffer.from(JSON.stringify({ gen: this.gen, entries }), 'utf8');
    const head = `${FORMAT} ${standupBuildId()} ${payload.length} ${createHash('sha256').update(payload).digest('hex')}\n`;
    const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      // Only the memo's own folder: a cache directory removed meanwhile (a test's, a user's) is not brought back.
      try {
        mkdirSync(path.dirname(this.file), { mode: 0o700 });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const fd = openSync(tmp, 'wx', 0o600);
      try {
        writeSync(fd, head);
        writeSync(fd, payload);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.file);
      this.known = new Map(Object.entries(entries));
      this.added = 0;
      this.borrowed = false;
      this.pointLatest();
    } catch {
      try {
        unlinkSync(tmp);
      } catch {
        /* never created */
      }
    }
  }

  /** The memo saved last in this memo's folder, when it is another file than this one's. */
  private latest(): string | null {
    try {
      const name = readFileSync(path.join(path.dirname(this.file!), LATEST), 'utf8').trim();
      return MEMO_NAME.test(name) && name !== path.basename(this.file!) ? path.join(path.dirname(this.file!), name) : null;
    } catch {
      return null;
    }
  }

  /** Names this memo as the one saved last (a small file, renamed into place like the memo). */
  private pointLatest(): void {
    const dir = path.dirname(this.file!);
    const tmp = path.join(dir, `${LATEST}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      writeFileSync(tmp, `${path.basename(this.file!)}\n`, { mode: 0o600 });
      renameSync(tmp, path.join(dir, LATEST));
    } catch {
      try {
        unlinkSync(tmp);
      } catch {
        /* never created */
      }
    }
  }

  /**
   * Reads a memo file; true when it held a valid memo. `own`: this memo's file, removed when damaged or of another
   * build; a borrowed one is left as it is (it is another repository's).
   */
  private read(file: string, own: boolean): boolean {
    let buf: Buffer;
    try {
      buf = readFileSync(file);
    } catch {
      return false;
    }
    const nl = buf.indexOf(0x0a);
    const [a, b, code, len, sum] = nl > 0 ? buf.subarray(0, nl).toString('utf8').split(' ') : [];
    const payload = nl > 0 ? buf.subarray(nl + 1) : Buffer.alloc(0);
    // Another standup's memo (another build, another yaml library) is not this one's to trust.
    let ok = `${a} ${b}` === FORMAT && code === standupBuildId() && Number(len) === payload.length && createHash('sha256').update(payload).digest('hex') === sum;
    if (ok) {
      try {
        const o = JSON.parse(payload.toString('utf8')) as { gen?: unknown; entries?: unknown };
        const entries = o?.entries as Record<string, unknown> | undefined;
        const valid =
          typeof o?.gen === 'number' &&
          !!entries &&
          typeof entries === 'object' &&
          Object.values(entries).every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && typeof e[1] === 'number');
        if (valid) {
          this.known = new Map(Object.entries(entries as Record<string, [string, number]>));
          this.gen = (o.gen as number) + 1;
        } else ok = false;
      } catch {
        ok = false;
      }
    }
    if (!ok && own) {
      try {
        unlinkSync(file);
      } catch {
        /* gone */
      }
    }
    return ok;
  }
}

const key = (how: string, text: string) => createHash('sha1').update(how).update('\u0000').update(text).digest('base64');

/** Plain data that JSON gives back exactly. */
function jsonSafe(v: unknown, depth = 0): boolean {
  if (depth > 200) return false;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (Array.isArray(v)) return v.every((x) => jsonSafe(x, depth + 1));
  if (typeof v === 'object') {
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) return false;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (k === '__proto__' || !jsonSafe(x, depth + 1)) return false;
    return true;
  }
  return false;
}
