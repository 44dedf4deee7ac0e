// Small Flux repositories for the runner's integration tests, written from an inline description (the changesets
// `gitdir` idea): a tiers.yaml pinned to the testbed's context, a root sync in its own namespace, and the tiers.
// Each test gets its own namespace, so tests never share Flux objects.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { GitRepos } from '../testbed/harness.js';

export interface TierSpec {
  dependsOn?: string[];
  /** Files of the tier's directory (`<tier>/<file>`); none: a ConfigMap named after the tier. */
  files?: Record<string, string>;
  wait?: boolean;
  /** spec.timeout (a Go duration): how long KC's health check waits. */
  timeout?: string;
  /** The raw text of the Kustomization file instead of the generated one (a malformed one, say). */
  raw?: string;
}

export interface RepoSpec {
  /** Namespace of the root sync and every tier (also the GitRepository's). */
  ns: string;
  tiers: Record<string, TierSpec>;
  /** The root GitRepository's URL as git has it (default: the URL it is served from). */
  gitUrl?: string;
  /** Extra files anywhere in the repository (tiers.yaml additions come through `tiersYaml`). */
  extra?: Record<string, string>;
  /** Lines appended under the cluster entry in tiers.yaml (indented by the caller), e.g. bootstrap.install. */
  clusterYaml?: string;
  /** Top-level tiers.yaml lines (crds:, runtimeCrds:, timeouts:). */
  tiersYaml?: string;
  /** Replaces `install: already-running`. */
  install?: string;
}

export const cm = (name: string, ns: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: ${ns}
data:
  tier: ${name}
`;

/** The files of a repository served at `url`: entry clusters/t, cluster name `t`. */
export function repoFiles(s: RepoSpec, url: string): Record<string, string> {
  const files: Record<string, string> = {};
  files['tiers.yaml'] = `version: 1
clusters:
  t:
    path: clusters/t
    context: standup-testbed
    resettable: true
    source: {kind: GitRepository, name: src, namespace: ${s.ns}}
    bootstrap:
      install: ${s.install ?? 'already-running'}
      sync: clusters/t/sync
${s.clusterYaml ?? ''}${s.tiersYaml ?? ''}`;
  files['clusters/t/sync/gotk-sync.yaml'] = `apiVersion: v1
kind: Namespace
metadata:
  name: ${s.ns}
  labels:
    kustomize.toolkit.fluxcd.io/prune: disabled
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: src
  namespace: ${s.ns}
spec:
  interval: 1m0s
  ref:
    branch: main
  url: ${s.gitUrl ?? url}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: root
  namespace: ${s.ns}
spec:
  interval: 10m0s
  path: ./clusters/t
  prune: true
  sourceRef:
    kind: GitRepository
    name: src
`;
  files['clusters/t/kustomization.yaml'] = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - sync/gotk-sync.yaml
${Object.keys(s.tiers).map((t) => `  - ${t}.yaml`).join('\n')}
`;
  for (const [name, t] of Object.entries(s.tiers)) {
    files[`clusters/t/${name}.yaml`] =
      t.raw ??
      `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ${name}
  namespace: ${s.ns}
spec:
  interval: 10m0s
  retryInterval: 10m0s
  path: ./${name}
  prune: true
  wait: ${t.wait ?? false}
${t.timeout ? `  timeout: ${t.timeout}\n` : ''}  sourceRef:
    kind: GitRepository
    name: src
${t.dependsOn?.length ? `  dependsOn:\n${t.dependsOn.map((d) => `    - name: ${d}`).join('\n')}\n` : ''}`;
    for (const [f, text] of Object.entries(t.files ?? { 'configmap.yaml': cm(name, s.ns) })) files[`${name}/${f}`] = text;
  }
  Object.assign(files, s.extra ?? {});
  return files;
}

/** Writes the files into a new temp directory and returns it (the working copy standup reads with --repo). */
export function writeTree(files: Record<string, string>, prefix = 'standup-fixture-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), text);
  }
  return dir;
}

/** Serves the repository on the testbed's git server and writes the same tree as the working copy. */
export async function serveFixture(git: GitRepos, name: string, spec: RepoSpec): Promise<{ dir: string; url: string; sha: string }> {
  const url = git.url(name);
  const dir = writeTree(repoFiles(spec, url));
  return { dir, url, sha: await git.createRepo(name, dir) };
}
