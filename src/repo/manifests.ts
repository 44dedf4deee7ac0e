// Manifests the runner applies as they are (the Flux install, the root sync, secrets, the CRD fallback), read by the
// CLI before a run, so that the runner reads no files.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { yaml } from './lazy-yaml.js';
import type { K8sObject } from '../model/k8s.js';
import { ConfigError } from '../model/errors.js';
import { findKustomize } from './find-kustomize.js';
import { hasKustomizationFile } from './kustomization-file.js';
import { yamlFilesUnder } from './yaml-errors.js';
import { runProcess } from './run-process.js';

/**
 * Reads the manifests at `target`: a kustomization directory is built with the real kustomize; any other directory
 * contributes every *.yaml/*.yml below it; a file is read as is. Errors name the file and line.
 */
export async function readManifests(target: string, shownAs = target): Promise<K8sObject[]> {
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
    return parseText(r.stdout, shownAs);
  }
  const files = st.isDirectory() ? yamlFilesUnder(target, Infinity) : [target];
  return files.flatMap((f) => parseText(readFileSync(f, 'utf8'), path.join(shownAs, path.relative(target, f)) || shownAs));
}

/** Parses a multi-document YAML text into objects; a syntax error names file:line:col. */
export function parseText(text: string, file: string): K8sObject[] {
  const out: K8sObject[] = [];
  for (const doc of yaml().parseAllDocuments(text, { prettyErrors: true })) {
    const err = doc.errors[0];
    if (err) {
      const at = err.linePos?.[0];
      throw new ConfigError('YAML_INVALID', `${file}${at ? `:${at.line}:${at.col}` : ''}: ${err.message.split('\n')[0]}`, 'Fix the YAML, then run again.');
    }
    const obj = doc.toJS() as K8sObject | null;
    if (obj === null || typeof obj !== 'object') continue;
    if (obj.kind === 'List' && Array.isArray(obj.items)) out.push(...(obj.items as K8sObject[]));
    else out.push(obj);
  }
  return out;
}
