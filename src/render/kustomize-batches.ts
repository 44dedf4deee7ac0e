// Runs the real kustomize (the `kustomize` binary or `kubectl kustomize`) with Flux's build settings
// (--load-restrictor LoadRestrictionsNone, no plugins). To keep process spawns low (each costs ~50 ms of CPU before
// any work), requests that are ready at the same time are built together: a batch kustomization lists a wrapper per
// request, each wrapper prepends its request's marker to every object name (so equal objects of two requests cannot
// collide), and the output is split back by that marker and the marker removed. A batch that fails is narrowed down
// until every failure is a request's own solo build, so errors and objects are exactly what a solo build gives.
//
// Debugging: `standup --verbose` prints each kustomize run (time, exit, output size, stderr) to stderr.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { debug } from '../model/debug.js';
import type { Kustomize } from '../repo/find-kustomize.js';
import { cleanError, parseBuilt, type BuildOutcome, type BuiltObject } from '../repo/kustomize-output.js';
import { scanHeader } from '../repo/object-header.js';
import { runProcess } from '../repo/run-process.js';

export interface PreparedRequest {
  /** Request number; its overlay lives in `<work>/r<n>`. */
  n: number;
  overlayDir: string;
  /** Likely to fail (see likely-failures.ts): built alone so it cannot fail a batch. */
  solo?: boolean;
  /** About how many objects the build reads (documents in its input files), when its inputs are known. */
  objects?: number;
}

export interface BuilderOptions {
  kustomize: Kustomize;
  /** Temp directory for overlays and batches. */
  work: string;
  concurrency: number;
  /** Upper bound on requests per batch. */
  maxBatch?: number;
  /** Upper bound on the objects (PreparedRequest.objects) of one batch; a larger request runs alone. */
  maxObjects?: number;
  /** Called as builds are requested and finish (a progress line); `total` grows as nested Kustomizations are found. */
  onProgress?: (done: number, total: number) => void;
}

interface Pending {
  req: PreparedRequest;
  resolve: (o: BuildOutcome) => void;
}

/**
 * Schedules builds: requests queued in the same tick are grouped into at most `concurrency` batches (likely failures
 * run alone), each split further at MAX_BATCH_OBJECTS; at most `concurrency` kustomize processes run at once,
 * retries included.
 */
export class Builder {
  private pending: Pending[] = [];
  private jobs: Pending[][] = [];
  private running = 0;
  private scheduled = false;
  private batchSeq = 0;
  /** Number of kustomize processes started (for tests and benchmarks). */
  spawned = 0;
  private requested = 0;
  private done = 0;

  constructor(private readonly o: BuilderOptions) {}

  build(req: PreparedRequest): Promise<BuildOutcome> {
    const progress = this.o.onProgress;
    if (progress) progress(this.done, ++this.requested);
    return new Promise((resolve) => {
      const settle = progress ? (o: BuildOutcome) => (resolve(o), progress(++this.done, this.requested)) : resolve;
      this.pending.push({ req, resolve: settle });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  /**
   * Turns what was requested in the same tick into jobs: each likely failure alone, the rest split evenly over the
   * process slots (a slot that is busy now takes its share when it frees up).
   */
  private flush(): void {
    const pending = this.pending.splice(0);
    const solo = pending.filter((p) => p.req.solo);
    const rest = pending.filter((p) => !p.req.solo);
    for (const p of solo) this.jobs.push([p]);
    const n = Math.min(this.o.concurrency, rest.length);
    const size = Math.min(this.o.maxBatch ?? 200, Math.ceil(rest.length / Math.max(1, n)));
    const cap = this.o.maxObjects ?? MAX_BATCH_OBJECTS;
    for (let i = 0; i < rest.length; i += size) this.jobs.push(...boundByObjects(rest.slice(i, i + size), cap));
    this.pump();
  }

  private pump(): void {
    while (this.running < this.o.concurrency && this.jobs.length > 0) {
      const chunk = this.jobs.shift()!;
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
      p.resolve(r);
      return;
    }
    const dir = path.join(this.o.work, `b${++this.batchSeq}`);
    mkdirSync(dir, { recursive: true });
    // Each request is wrapped so its objects carry a unique name prefix: without it, two apps with the same object
    // (a Namespace, a CRD, a `${APP}-db` not yet substituted) would collide; it also tells whose each object is.
    const wrappers = chunk.map((p) => {
      const w = path.join(this.o.work, `w${p.req.n}`);
      mkdirSync(w, { recursive: true });
      writeFileSync(path.join(w, 'kustomization.yaml'), wrapperKustomization(path.relative(w, p.req.overlayDir)));
      writeFileSync(
        path.join(w, 'marker.yaml'),
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${MARKER_CONFIGMAP}\ndata:\n  m: ${marker(p.req.n).slice(0, -1)}\n`,
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
      let unattributed = false;
      for (const o of r.objects) {
        // Every object's name starts with its request's marker (see wrapperKustomization).
        const n = Number(/^zsq(\d+)x-/.exec(o.header.name)?.[1] ?? -1);
        if (!by.has(n)) unattributed = true;
        const m = marker(n);
        if (o.header.kind === 'ConfigMap' && o.header.name === `${m}${MARKER_CONFIGMAP}`) continue;
        // Remove the marker from the name, and every other request's: kustomize's name references, resolved across
        // the whole batch, can point a reference that finds nothing in its own request (a RoleBinding's roleRef) at
        // another request's renamed object. Its solo build leaves that reference as written, and so does this.
        const text = o.text.replace(MARKERS, '');
        by.get(n)?.push({ ...o, text, header: text === o.text ? o.header : scanHeader(text) });
      }
      if (unattributed) {
        // An object without a marker: cannot tell whose it is, so build the halves again (a solo build needs no
        // attribution).
        const mid = Math.ceil(chunk.length / 2);
        this.retry(chunk.slice(0, mid), chunk.slice(mid));
        return;
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
      this.retry([culprit], rest.slice(0, mid), rest.slice(mid));
      return;
    }
    const mid = Math.ceil(chunk.length / 2);
    this.retry(chunk.slice(0, mid), chunk.slice(mid));
  }

  /** Queues parts of a failed batch ahead of everything else; they run as slots free up (never over the bound). */
  private retry(...parts: Pending[][]): void {
    this.jobs.unshift(...parts.filter((p) => p.length > 0));
  }

  private async exec(dir: string): Promise<BuildOutcome> {
    const [bin, ...pre] = this.o.kustomize.command;
    this.spawned++;
    const t0 = performance.now();
    const r = await runProcess(bin, [...pre, dir, '--load-restrictor', 'LoadRestrictionsNone'], { env: { ...process.env, KUSTOMIZE_PLUGIN_HOME: path.join(this.o.work, 'no-plugins') } });
    debug(() => `kustomize build ${path.basename(dir)}: ${(performance.now() - t0).toFixed(0)} ms, exit ${r.exitCode}, ${r.stdout.length} bytes` +
      (r.exitCode !== 0 ? `\n${r.stderr.slice(0, 1500)}` : ''));
    if (r.exitCode !== 0) {
      return { ok: false, error: cleanError(r.stderr || r.error || `${bin} exited with ${r.signal ?? r.exitCode}`), reported: r.exitCode === 1 && r.signal === null && r.stderr.trim() !== '' };
    }
    return { ok: true, objects: parseBuilt(r.stdout, dir) };
  }
}

/**
 * Objects per kustomize run: kustomize's cost grows with the square of the objects in one build while a process
 * costs ~50 ms to start, so past a few hundred objects a second process is cheaper than a larger batch
 * (scripts/bench/kustomize-batch-cost.ts measures the curve; BENCHMARKS.md has the figures behind this value).
 */
export const MAX_BATCH_OBJECTS = 400;

/**
 * Splits a batch, in order, into runs of at most `cap` objects (a request larger than the cap alone). A request whose
 * inputs are not known counts as the mean of the known ones; with none known, the batch stays as it is.
 */
export function boundByObjects<T extends { req: { objects?: number } }>(batch: T[], cap: number): T[][] {
  const known = batch.map((p) => p.req.objects).filter((x): x is number => x !== undefined);
  if (known.length === 0) return [batch];
  const mean = known.reduce((a, b) => a + b, 0) / known.length;
  const out: T[][] = [];
  let cur: T[] = [];
  let sum = 0;
  for (const p of batch) {
    const w = p.req.objects ?? mean;
    if (cur.length > 0 && sum + w > cap) {
      out.push(cur);
      cur = [];
      sum = 0;
    }
    cur.push(p);
    sum += w;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

const marker = (n: number) => `zsq${n}x-`;
const MARKERS = /zsq\d+x-/g;
const MARKER_CONFIGMAP = 'standup-batch-marker';

/**
 * The wrapper of request n in a batch: a replacement prepends the request's marker to every object's name (an index
 * out of range prepends), read from a marker ConfigMap that is dropped from the output. Unique names keep equal
 * objects of different requests apart and tell whose each object is. Unlike namePrefix, a replacement rewrites no
 * references and skips no kind (namePrefix leaves CRDs, Namespaces and APIServices alone), and it is cheaper.
 */
function wrapperKustomization(overlayRel: string): string {
  return (
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nbuildMetadata: [originAnnotations]\n` +
    `resources:\n  - ${JSON.stringify(overlayRel)}\n  - marker.yaml\n` +
    `replacements:\n  - source:\n      kind: ConfigMap\n      name: ${MARKER_CONFIGMAP}\n      fieldPath: data.m\n` +
    `    targets:\n      - select: {}\n        fieldPaths: [metadata.name]\n        options: {delimiter: "-", index: -1}\n`
  );
}

