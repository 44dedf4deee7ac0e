// What a failed kustomize build becomes: one build-failed problem naming the tier, with kustomize's error trimmed
// to its cause and stripped of temp paths, plus a yaml-invalid problem (file:line:col) for each malformed file the
// build could have read.
import path from 'node:path';
import type { FluxKustomization } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import { objectId } from '../model/ref.js';
import { yamlErrors, yamlFilesUnder } from './yaml-check.js';
import type { ParseMemo } from './parse-memo.js';

export interface FailedBuild {
  /** The directory built (absolute). */
  dir: string;
  /** Flux's generated kustomization was used; `files` is what it listed. */
  generated: boolean;
  files: string[];
  error: string;
  /** The tier being rendered, or null for a cluster's entry. */
  ks: FluxKustomization | null;
  entryName: string;
  /** Repository root and render work directory (absolute), to remove from messages. */
  root: string;
  work: string;
  /** Repository-relative form of an absolute path. */
  rel: (abs: string) => string;
  /** Where the YAML check of each file is kept between loads. */
  memo?: ParseMemo;
}

export function buildFailedProblems(b: FailedBuild): Omit<Problem, 'cluster'>[] {
  const dirRel = b.rel(b.dir) || '.';
  const tier = b.ks ? `tier ${b.ks.key}` : `entry of cluster ${b.entryName}`;
  const object = b.ks ? objectId('Kustomization', b.ks.namespace, b.ks.name) : null;
  const problems: Omit<Problem, 'cluster'>[] = [
    {
      code: 'build-failed',
      severity: 'error',
      message: `kustomize build of ${dirRel} failed while rendering ${tier}: ${trimKustomizeError(b.error, b.root, b.work)}`,
      file: b.ks ? b.ks.origin.file : dirRel,
      line: b.ks ? b.ks.origin.line : null,
      object,
    },
  ];
  // Point at malformed YAML precisely: files kustomize named, or that Flux's generated kustomization lists.
  const candidates = new Set<string>(b.generated ? b.files : []);
  for (const f of yamlFilesUnder(b.dir)) if (b.error.includes(path.basename(f))) candidates.add(f);
  for (const f of [...candidates].sort()) {
    // The first error of a file is the one to fix; the parser's follow-on errors are noise.
    for (const e of yamlErrors(f, b.memo).slice(0, 1)) {
      problems.push({ code: 'yaml-invalid', severity: 'error', message: `${b.rel(e.file)}:${e.line}:${e.col}: ${e.message}`, file: b.rel(e.file), line: e.line, object });
    }
  }
  return problems;
}

/** kustomize's error, without temp paths (overlays, artifacts) or the per-level nesting, and at most ~600 chars. */
export function trimKustomizeError(error: string, root: string, work: string): string {
  const up = path.relative(path.join(work, 'r1'), root);
  let s = error.split(`${up}/`).join('').split(`${root}/`).join('');
  const w = work.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  s = s.replace(new RegExp(`${w}/r\\d+`, 'g'), '<overlay>');
  s = s.replace(new RegExp(`${w}/a\\d+-([^/\\s']+)`, 'g'), '<artifact $1>');
  // kustomize nests one "accumulating resources from X: read X: is a directory: recursed …" per level; the cause
  // is at the end, so drop the nesting.
  for (let prev = ''; prev !== s; ) {
    prev = s;
    s = s.replace(
      /accumulating resources: accumulation err='accumulating resources from '[^']*': (read [^:]*: is a directory|'[^']*' must resolve to a file)': recursed (accumulation of|merging from) path '[^']*': /,
      '',
    );
  }
  s = s.replace(/\s+/g, ' ').trim();
  return s.length > 600 ? `${s.slice(0, 200)} … ${s.slice(-380)}` : s;
}
