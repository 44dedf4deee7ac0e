import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Writes a small repository into a fresh temp dir; returns its path. Remove it with `cleanupRepos()`. */
const made: string[] = [];
export function makeRepo(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'standup-repo-test-'));
  made.push(root);
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(root, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
  return root;
}

export function cleanupRepos(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

export const fixture = (name: string) => path.resolve(import.meta.dirname, '../fixtures/repo', name);

/** A Flux Kustomization document. */
export function ks(name: string, spec: Record<string, unknown>, namespace: string | null = 'flux-system'): string {
  const lines = [
    'apiVersion: kustomize.toolkit.fluxcd.io/v1',
    'kind: Kustomization',
    'metadata:',
    `  name: ${name}`,
    ...(namespace ? [`  namespace: ${namespace}`] : []),
    'spec:',
    '  interval: 10m',
    '  prune: true',
    '  sourceRef:',
    '    kind: GitRepository',
    '    name: flux-system',
    '    namespace: flux-system',
  ];
  for (const [k, v] of Object.entries(spec)) lines.push(`  ${k}: ${JSON.stringify(v)}`);
  return `${lines.join('\n')}\n`;
}

export const cm = (name: string, data: Record<string, string> = { a: 'b' }, namespace?: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${namespace ? `  namespace: ${namespace}\n` : ''}data:\n${Object.entries(data)
    .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`)
    .join('\n')}\n`;

/** tiers.yaml declaring one cluster `dev` at `clusters/dev`. */
export const devTiers = 'clusters:\n  dev:\n    path: clusters/dev\n';

/** A `flux bootstrap` root: GitRepository and Kustomization flux-system/flux-system syncing `path` from `url`. */
export const gotkSync = (p: string, url = 'https://example.com/r.git') => `---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  url: ${url}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  path: ${p}
  sourceRef:
    kind: GitRepository
    name: flux-system
`;
