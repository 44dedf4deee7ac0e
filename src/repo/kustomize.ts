// Runs the real kustomize (the `kustomize` binary or `kubectl kustomize`) with Flux's build settings. To keep process
// spawns low (each costs ~60 ms of startup), requests that are ready at the same time are built together: a batch
// kustomization lists each request's overlay as a resource, each overlay labels its objects with its request number,
// and the output is split back by that label. A batch that fails is narrowed down until every failure is a request's
// own build, so errors and objects are exactly what a solo build would give.
import { accessSync, constants } from 'node:fs';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { parseAllDocuments } from 'yaml';
import { ConfigError } from '../model/errors.js';

/** Label each request's overlay puts on its objects so a batch's output can be split; removed from the result. */
export const REQUEST_LABEL = 'standup.internal/request';
const ORIGIN_ANNOTATION = 'config.kubernetes.io/origin';

export interface Kustomize {
  /** e.g. ['kustomize', 'build'] or ['kubectl', 'kustomize']. */
  command: readonly [string, ...string[]];
  /** How to show it in messages. */
  display: string;
}

function onPath(name: string, envPath = process.env.PATH ?? ''): string | null {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return null;
}

/** Finds kustomize on PATH: the standalone binary first, else `kubectl kustomize`. Throws ConfigError if neither. */
export function findKustomize(envPath?: string): Kustomize {
  const k = onPath('kustomize', envPath);
  if (k) return { command: [k, 'build'], display: 'kustomize build' };
  const kubectl = onPath('kubectl', envPath);
  if (kubectl) return { command: [kubectl, 'kustomize'], display: 'kubectl kustomize' };
  throw new ConfigError(
    'KUSTOMIZE_NOT_FOUND',
    'neither `kustomize` nor `kubectl` is on PATH; standup renders with the real kustomize',
    'Install kubectl (it bundles kustomize) or the kustomize binary, and make sure it is on PATH.',
  );
}

/** One built object, with where kustomize says it came from. */
export interface BuiltObject {
  raw: Record<string, unknown>;
  /** Absolute path of the file the object was read from (or the kustomization that generated it), if known. */
  file: string | null;
  /** True when kustomize generated it (configMapGenerator and friends): no line to point at. */
  generated: boolean;
}

export type BuildOutcome = { ok: true; objects: BuiltObject[] } | { ok: false; error: string };

export interface PreparedRequest {
  /** Request number; its overlay lives in `<work>/r<n>`. */
  n: number;
  overlayDir: string;
  /** Likely to fail (see prescreen.ts): built alone so it cannot fail a batch. */
  solo?: boolean;
}

export interface BuilderOptions {
  kustomize: Kustomize;
  /** Temp directory for overlays and batches. */
  work: string;
  concurrency: number;
  /** Upper bound on requests per batch. */
  maxBatch?: number;
}

interface Pending {
  req: PreparedRequest;
  resolve: (o: BuildOutcome) => void;
}

/**
 * Schedules builds: requests queued in the same tick are grouped into at most `concurrency` batches; at most
 * `concurrency` kustomize processes run at once.
 */
export class Builder {
  private queue: Pending[] = [];
  private running = 0;
  private scheduled = false;
  private batchSeq = 0;
  /** Number of kustomize processes started (for tests and benchmarks). */
  spawned = 0;

  constructor(private readonly o: BuilderOptions) {}

  build(req: PreparedRequest): Promise<BuildOutcome> {
    return new Promise((resolve) => {
      this.queue.push({ req, resolve });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.pump();
        });
      }
    });
  }

  private pump(): void {
    while (this.running < this.o.concurrency && this.queue.length > 0) {
      const soloAt = this.queue.findIndex((p) => p.req.solo);
      if (soloAt >= 0) {
        const [p] = this.queue.splice(soloAt, 1);
        this.running++;
        void this.runChunk([p!]).finally(() => {
          this.running--;
          this.pump();
        });
        continue;
      }
      const free = this.o.concurrency - this.running;
      const size = Math.min(this.o.maxBatch ?? 200, Math.max(1, Math.ceil(this.queue.length / free)));
      const chunk = this.queue.splice(0, size);
      this.running++;
      void this.runChunk(chunk).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  private async runChunk(chunk: Pending[]): Promise<void> {
    if (chunk.length === 1) {
      const p = chunk[0]!;
      const r = await this.exec(p.req.overlayDir);
      if (r.ok) for (const o of r.objects) stripRequestLabel(o.raw);
      p.resolve(r);
      return;
    }
    const dir = path.join(this.o.work, `b${++this.batchSeq}`);
    mkdirSync(dir, { recursive: true });
    // Each request is wrapped so its objects carry its number (a label) and a unique name prefix: without the
    // prefix, two apps with the same object (a Namespace, a `${APP}-db` not yet substituted) would collide.
    const wrappers = chunk.map((p) => {
      const w = path.join(this.o.work, `w${p.req.n}`);
      mkdirSync(w, { recursive: true });
      writeFileSync(
        path.join(w, 'kustomization.yaml'),
        `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nbuildMetadata: [originAnnotations]\nnamePrefix: ${marker(p.req.n)}\nlabels:\n  - pairs:\n      ${REQUEST_LABEL}: "${p.req.n}"\n    includeSelectors: false\nresources:\n  - ${JSON.stringify(path.relative(w, p.req.overlayDir))}\n`,
      );
      return w;
    });
    writeFileSync(
      path.join(dir, 'kustomization.yaml'),
      // originAnnotations must be on at the top of the build, or kustomize drops the inner ones.
      `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nbuildMetadata: [originAnnotations]\nresources:\n${wrappers
        .map((w) => `  - ${JSON.stringify(path.relative(dir, w))}`)
        .join('\n')}\n`,
    );
    const r = await this.exec(dir);
    if (r.ok) {
      const by = new Map<number, BuiltObject[]>(chunk.map((p) => [p.req.n, []]));
      for (const o of r.objects) {
        const n = requestOf(o.raw);
        stripRequestLabel(o.raw);
        by.get(n)?.push({ ...o, raw: unmark(o.raw, marker(n)) as Record<string, unknown> });
      }
      for (const p of chunk) p.resolve({ ok: true, objects: by.get(p.req.n)! });
      return;
    }
    // Which request broke the batch? kustomize names the overlay it was accumulating ('../r12').
    const culprit = chunk.find((p) => new RegExp(`\\bw${p.req.n}\\b`).test(r.error));
    if (culprit) {
      // The rest is retried in two halves: a second failure then costs half a batch, and the halves run in parallel.
      const rest = chunk.filter((p) => p !== culprit);
      const mid = Math.ceil(rest.length / 2);
      await Promise.all([this.runChunk([culprit]), ...[rest.slice(0, mid), rest.slice(mid)].filter((c) => c.length).map((c) => this.runChunk(c))]);
      return;
    }
    const mid = Math.ceil(chunk.length / 2);
    await Promise.all([this.runChunk(chunk.slice(0, mid)), this.runChunk(chunk.slice(mid))]);
  }

  private async exec(dir: string): Promise<BuildOutcome> {
    const [bin, ...pre] = this.o.kustomize.command;
    this.spawned++;
    const t0 = performance.now();
    const r = await execa(bin, [...pre, dir, '--load-restrictor', 'LoadRestrictionsNone'], {
      reject: false,
      maxBuffer: 1024 * 1024 * 1024,
      stripFinalNewline: false,
      env: { KUSTOMIZE_PLUGIN_HOME: path.join(this.o.work, 'no-plugins') },
    });
    if (process.env.STANDUP_DEBUG_BUILD) process.stderr.write(`build ${path.basename(dir)} ${(performance.now() - t0).toFixed(0)}ms exit=${r.exitCode} out=${String(r.stdout).length}\n`);
    if (process.env.STANDUP_DEBUG_BUILD && r.exitCode !== 0) process.stderr.write(String(r.stderr).slice(0, 1500) + "\n");
    if (r.exitCode !== 0 || r.failed) {
      return { ok: false, error: cleanError(String(r.stderr || r.message)) };
    }
    return { ok: true, objects: parseBuilt(String(r.stdout), dir) };
  }
}

const marker = (n: number) => `zsq${n}x-`;

/** Removes the batch's name prefix wherever kustomize put it (names and the references it rewrote). */
function unmark(v: unknown, m: string): unknown {
  if (typeof v === 'string') return v.includes(m) ? v.split(m).join('') : v;
  if (Array.isArray(v)) return v.map((x) => unmark(x, m));
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = unmark(x, m);
    return o;
  }
  return v;
}

function requestOf(raw: Record<string, unknown>): number {
  const labels = (raw.metadata as { labels?: Record<string, string> } | undefined)?.labels;
  return Number(labels?.[REQUEST_LABEL] ?? -1);
}

/** Parses kustomize output; strips standup's label and the origin annotation, keeping the origin as data. */
export function parseBuilt(out: string, builtDir: string): BuiltObject[] {
  const objects: BuiltObject[] = [];
  for (const doc of parseAllDocuments(out, { uniqueKeys: false })) {
    if (doc.errors.length || doc.contents === null) continue;
    const raw = doc.toJS({ maxAliasCount: -1 }) as unknown;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) continue;
    const obj = raw as Record<string, unknown>;
    const md = (obj.metadata ?? {}) as { labels?: Record<string, string>; annotations?: Record<string, string> };
    let file: string | null = null;
    let generated = false;
    const origin = md.annotations?.[ORIGIN_ANNOTATION];
    if (origin !== undefined) {
      const p = /^path:\s*(.+)$/m.exec(origin);
      const c = /^configuredIn:\s*(.+)$/m.exec(origin);
      if (p) file = path.resolve(builtDir, unquote(p[1]!));
      else if (c) {
        file = path.resolve(builtDir, unquote(c[1]!));
        generated = true;
      }
      delete md.annotations![ORIGIN_ANNOTATION];
      if (Object.keys(md.annotations!).length === 0) delete md.annotations;
    }
    objects.push({ raw: obj, file, generated });
  }
  return objects;
}

/** Removes standup's request label (after the batch is split). */
export function stripRequestLabel(raw: Record<string, unknown>): void {
  const md = raw.metadata as { labels?: Record<string, string> } | undefined;
  if (md?.labels && REQUEST_LABEL in md.labels) {
    delete md.labels[REQUEST_LABEL];
    if (Object.keys(md.labels).length === 0) delete md.labels;
  }
}

const unquote = (s: string) => s.trim().replace(/^['"]|['"]$/g, '');

/** kubectl wraps kustomize's error in a klog line; keep only kustomize's own message. */
export function cleanError(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const out: string[] = [];
  for (const l of lines) {
    const m = /"command failed" err="(.*)"$/.exec(l);
    if (m) out.push(m[1]!.replace(/\\"/g, '"').replace(/\\n/g, '\n'));
    else if (/^Error: /.test(l)) out.push(l.slice(7));
    else if (!/^(Usage:|Examples?:|Flags:|\s*-)/.test(l) && !/^[EWI]\d{4} /.test(l)) out.push(l);
  }
  return (out.length ? out : lines).join('\n').trim();
}
