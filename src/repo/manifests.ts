// Manifests the runner applies as they are (the Flux install, the root sync, secrets, the CRD fallback), read by the
// CLI before a run, so that the runner reads no files.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { TextMemo } from './lazy-yaml.js';
import type { K8sObject } from '../model/k8s.js';
import { ConfigError } from '../model/errors.js';
import { findKustomize } from './find-kustomize.js';
import { hasKustomizationFile } from './kustomization-file.js';
import { yamlFilesUnder } from './yaml-errors.js';
import { runProcess } from './run-process.js';
import { yamlDocuments } from './yaml-documents.js';

/**
 * Reads the manifests at `target`: a kustomization directory is built with the real kustomize; any other directory
 * contributes every *.yaml/*.yml below it; a file is read as is. Errors name the file and line. `memo`: the load's
 * (what is read here is the repository's own text).
 */
export async function readManifests(target: string, shownAs = target, memo?: TextMemo): Promise<K8sObject[]> {
  let st;
  try {
    st = statSync(target);
  } catch {
    throw new ConfigError('MANIFESTS_MISSING', `${shownAs} does not exist`, 'Fix the path in tiers.yaml (paths there are relative to the repository root).');
  }
  if (st.isDirectory() && hasKustomizationFile(target)) {
    const k = findKustomize();
    const [cmd, ...args] = k.command;
    const r = await runProcess(cmd!, [...args, target, '--load-restrictor', 'LoadRestrictionsNone']);
    if (r.exitCode !== 0) throw new ConfigError('BUILD_FAILED', `${k.display} ${shownAs} failed: ${(r.stderr || r.error || `exited with ${r.signal ?? r.exitCode}`).trim().split('\n').slice(0, 5).join('\n')}`, 'Fix the kustomization, then run again.');
    return parseText(r.stdout, shownAs, memo);
  }
  const files = st.isDirectory() ? yamlFilesUnder(target, Infinity) : [target];
  return files.flatMap((f) => parseText(readFileSync(f, 'utf8'), path.join(shownAs, path.relative(target, f)) || shownAs, memo));
}

/**
 * Parses a multi-document YAML text into objects; a syntax error names file:line:col. `memo` only for the
 * repository's own text (see yamlDocuments): never for a decrypted secret or helm's output.
 */
export function parseText(text: string, file: string, memo?: TextMemo): K8sObject[] {
  const out: K8sObject[] = [];
  for (const doc of yamlDocuments(text, memo)) {
    if ('error' in doc) {
      throw new ConfigError('YAML_INVALID', `${file}${doc.line ? `:${doc.line}:${doc.col}` : ''}: ${doc.error}`, 'Fix the YAML, then run again.');
    }
    const obj = doc.value as K8sObject | null;
    if (obj === null || typeof obj !== 'object') continue;
    if (obj.kind === 'List' && Array.isArray(obj.items)) out.push(...(obj.items as K8sObject[]));
    else out.push(obj);
  }
  return out;
}
