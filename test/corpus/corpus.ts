// Shared helpers for the corpus suite: where the corpus is, its inventories, and checks that a problem is real.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ClusterModel } from '../../src/model/flux.js';
import type { Problem } from '../../src/model/problem.js';

export const projectRoot = path.resolve(import.meta.dirname, '../..');
export const corpusRoot = path.resolve(projectRoot, '../shared/corpus');
export const repoDir = (dir: string) => path.join(corpusRoot, dir);

if (!existsSync(path.join(corpusRoot, 'INDEX.md'))) {
  throw new Error(`the corpus is not at ${corpusRoot}; this suite reads ../shared/corpus in place`);
}

export interface InventoryKs {
  file: string;
  name: string;
  dependsOn: { name: string; namespace?: string | null }[];
}

export function inventory(dir: string): { kustomizations: InventoryKs[] } {
  return JSON.parse(readFileSync(path.join(corpusRoot, '_inventory', `${dir}.json`), 'utf8')) as { kustomizations: InventoryKs[] };
}

/** Kustomizations whose (file, name) is not a Flux Kustomization document of the static inventory. */
export function notInInventory(dir: string, c: ClusterModel): string[] {
  const inv = new Set(inventory(dir).kustomizations.map((k) => `${k.file}#${k.name}`));
  return c.kustomizations.filter((k) => !inv.has(`${k.origin.file}#${k.name}`)).map((k) => `${k.key} (${k.origin.file})`);
}

/**
 * Kustomizations whose dependsOn names differ from what the inventory read in the same document. The inventory
 * reads the file as written, so a difference would mean the build changed dependsOn (none of the corpus does).
 */
export function dependsOnMismatches(dir: string, c: ClusterModel): string[] {
  const inv = new Map(inventory(dir).kustomizations.map((k) => [`${k.file}#${k.name}`, k]));
  const out: string[] = [];
  for (const k of c.kustomizations) {
    const i = inv.get(`${k.origin.file}#${k.name}`);
    if (!i) continue;
    const ours = k.dependsOn.map((d) => d.key.slice(d.key.indexOf('/') + 1)).sort();
    const theirs = i.dependsOn.map((d) => d.name).sort();
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) out.push(`${k.key}: ${ours.join(',')} vs ${theirs.join(',')}`);
    for (const d of i.dependsOn) {
      if (d.namespace && !k.dependsOn.some((x) => x.key === `${d.namespace}/${d.name}`)) out.push(`${k.key}: ${d.namespace}/${d.name} missing`);
    }
  }
  return out;
}

/** Resolved dependsOn edges: those whose target is a Kustomization of the same cluster. */
export const resolvedEdges = (c: ClusterModel) => {
  const keys = new Set(c.kustomizations.map((k) => k.key));
  return c.kustomizations.reduce((n, k) => n + k.dependsOn.filter((d) => keys.has(d.key)).length, 0);
};

/**
 * Why a build-failed problem is real: kustomize could not open a file that the corpus left out (INDEX.md: only
 * *.yaml, *.yml, *.json and Kustomization were copied, so generator inputs such as .sh, .lua, .toml are absent), or
 * it could not fetch a remote resource (no network here). Returns null when the reason is one of those.
 */
export function unrealBuildFailure(dir: string, p: Problem): string | null {
  if (p.code !== 'build-failed') return null;
  const missing = /open ([^:]+): no such file or directory/.exec(p.message);
  if (missing) {
    const file = missing[1]!.trim();
    if (existsSync(path.join(repoDir(dir), file))) return `${file} exists, yet kustomize could not open it`;
    if (/\.(ya?ml|json)$/.test(file)) return `${file} is a YAML/JSON file the corpus would have kept`;
    return null;
  }
  if (/https?:\/\//.test(p.message)) return null; // a remote base or resource: needs the network
  return `unexplained build failure: ${p.message}`;
}

export const summary = (problems: Problem[]) => {
  const by: Record<string, number> = {};
  for (const p of problems) by[`${p.cluster}:${p.code}`] = (by[`${p.cluster}:${p.code}`] ?? 0) + 1;
  return by;
};
