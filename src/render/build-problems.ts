// What a failed kustomize build becomes: one build-failed problem naming the tier, with kustomize's error trimmed
// to its cause and stripped of temp paths, plus a yaml-invalid problem (file:line:col) for each malformed file the
// build could have read.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FluxKustomization } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import { refKey } from '../model/ref.js';
import { trimKustomizeError } from '../repo/kustomize-output.js';
import type { TextMemo } from '../repo/lazy-yaml.js';
import { yamlErrors, yamlFilesUnder } from '../repo/yaml-errors.js';

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
  memo?: TextMemo;
}

export function buildFailedProblems(b: FailedBuild): Omit<Problem, 'cluster'>[] {
  const dirRel = b.rel(b.dir) || '.';
  const tier = b.ks ? `tier ${b.ks.key}` : `entry of cluster ${b.entryName}`;
  const object = b.ks ? refKey({ kind: 'Kustomization', namespace: b.ks.namespace, name: b.ks.name }) : null;
  const failed: Omit<Problem, 'cluster'> = {
    code: 'build-failed',
    severity: 'error',
    message: `kustomize build of ${dirRel} failed while rendering ${tier}: ${trimKustomizeError(b.error, b.root, b.work)}`,
    file: b.ks ? b.ks.origin.file : dirRel,
    line: b.ks ? b.ks.origin.line : null,
    object,
  };
  const broken: Omit<Problem, 'cluster'>[] = [];
  for (const f of yamlCandidates(b)) {
    // The first error of a file is the one to fix; the parser's follow-on errors are noise.
    for (const e of yamlErrors(f, b.memo).slice(0, 1)) {
      const at = `${b.rel(e.file)}:${e.line}:${e.col}`;
      broken.push({
        code: 'yaml-invalid', severity: 'error', file: b.rel(e.file), line: e.line, object,
        message: `${at}: ${e.message}. Fix the YAML there: kustomize cannot read the file, so ${tier} does not build.`,
      });
    }
  }
  if (broken.length === 0) return [failed];
  // The build failed because of a file that does not parse: a tier's failure is reported at that file's line, where
  // the fix goes, and names the Kustomization whose build reads it (its own file only points at the directory). An
  // entry's failure stays at the entry (it is what marks the cluster as one without an order), its message names the line.
  const first = broken[0]!;
  const cause = `Cause: ${first.file}:${first.line} is not valid YAML; fix it there`;
  if (!b.ks) return [{ ...failed, message: `${failed.message}. ${cause}.` }, ...broken];
  const via = ` (${b.ks.key}, ${b.ks.origin.file}${b.ks.origin.line ? `:${b.ks.origin.line}` : ''}, builds ${dirRel})`;
  return [{ ...failed, file: first.file, line: first.line, message: `${failed.message}. ${cause}${via}.` }, ...broken];
}

/**
 * The files that may hold the YAML a failed build choked on: those the error names by file name, those Flux's
 * generated kustomization listed, and every kustomization file of the directories the build read (the built one,
 * and any directory of the repository the error names), since kustomize's message for a kustomization that does not
 * parse ("invalid Kustomization: yaml: line 5") names its directory, not the file.
 */
function yamlCandidates(b: FailedBuild): string[] {
  const candidates = new Set<string>(b.generated ? b.files : []);
  for (const f of yamlFilesUnder(b.dir)) if (b.error.includes(path.basename(f))) candidates.add(f);
  const dirs = new Set([b.dir]);
  const root = b.root.endsWith(path.sep) ? b.root : b.root + path.sep;
  for (const m of b.error.matchAll(/(\/[^\s'":]+)/g)) {
    const p = path.normalize(m[1]!);
    if (p.startsWith(root)) dirs.add(p);
  }
  for (const d of dirs) {
    for (const name of KUSTOMIZATION_FILES) {
      const f = path.join(d, name);
      if (existsSync(f)) candidates.add(f);
    }
  }
  return [...candidates].sort();
}

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
