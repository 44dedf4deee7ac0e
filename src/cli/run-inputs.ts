// Everything a run needs, read before it starts: the kubeconfig, the repository and its plan, the static checks, the
// bootstrap manifests and secrets (decrypted in memory), the CRD fallback. The runner gets the result and only talks
// to the cluster. Reading fails here, with exit 2 and the file named, before anything is drawn or written.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadKubeconfig } from '../cluster/kubeconfig.js';
import { createClusterClient } from '../cluster/node-client.js';
import { lint } from '../lint/index.js';
import { applySuppressions } from '../lint/suppress.js';
import type { Problem } from '../model/problem.js';
import type { PlanContext } from '../plan/plan.js';
import { readBootstrap as readBootstrapInstalls } from '../repo/bootstrap.js';
import { ignoreEntryLines } from '../repo/config.js';
import { ConfigError } from '../model/errors.js';
import { planCluster } from '../plan/plan.js';
import { loadRepository, type LoadedRepository } from '../repo/load.js';
import { readManifests } from '../repo/manifests.js';
import { parseDuration } from '../runner/duration.js';
import { guard } from '../runner/preflight.js';
import type { BootstrapInputs, FallbackCrd, RunTarget } from '../runner/inputs.js';
import type { K8sObject } from '../cluster/client.js';
import { readSecret } from './secrets.js';

/** Flags of the commands that talk to a cluster (they follow kubectl and flux). */
export interface ClusterFlags {
  repo?: string;
  cluster: string[];
  path?: string;
  output?: string;
  kubeconfig?: string;
  context?: string;
  timeout?: string;
  dryRun?: boolean;
  yes?: boolean;
  record?: string;
  sourceUrl?: string;
  /** The root sync's source, KIND/NAMESPACE/NAME (--source). */
  source?: string;
  force?: boolean;
}

export interface ReadNeeds {
  /**
   * `full`: install, secrets and sync (up); `resume`: when tiers.yaml installs Flux from the repository, the same, so
   * that resume can wait for the controllers and finish a sync an interrupted `up` never applied; `none`.
   */
  bootstrap: 'full' | 'resume' | 'none';
  /** Render every tier and run check's rules (up, resume refuse what cannot converge). */
  checks: boolean;
  /** `apply`: the fallback must be readable (up, crds); `diagnose`: best effort, for the deadlock diagnosis. */
  fallback: 'apply' | 'diagnose' | 'none';
}

/** `--timeout`: a positive Go duration, or none. `0s` would end every wait before it began. */
function overallTimeout(text: string | undefined): number {
  if (text === undefined) return Infinity;
  const ms = parseDuration(text);
  if (ms <= 0) throw new ConfigError('BAD_FLAG', `--timeout ${text} is not a positive duration`, 'Pass a duration such as 30m or 90s, or leave --timeout out to wait as long as the tiers\' own timeouts allow.');
  return ms;
}

/** Reads one cluster's run inputs. Reads only; nothing here writes to the cluster. */
export async function readRunTarget(f: ClusterFlags, need: ReadNeeds, requestTimeoutMs = 30_000): Promise<RunTarget> {
  if (f.cluster.length > 1) throw new ConfigError('BAD_FLAG', 'this command acts on one cluster; pass --cluster once');
  const overallMs = overallTimeout(f.timeout);
  const kube = loadKubeconfig({ kubeconfig: f.kubeconfig, context: f.context });
  const repo = await loadRepository({ repo: f.repo, clusters: f.cluster.length ? f.cluster : undefined, path: f.path, source: f.source, scope: need.checks ? 'all' : 'graph' });
  const model = pickCluster(repo, f.cluster[0], kube.context);
  const entry = repo.config.clusters[model.name] ?? null;
  const ctx = planCluster(model, new Set(repo.config.exclude));
  const files = [...repo.config.crds, ...(entry?.crds ?? [])];
  const fallback = need.fallback === 'none' ? { objects: [], crds: [] } : await readFallback(repo.root, files, need.fallback);
  const install = entry?.bootstrap?.install;
  const installsFlux = install !== undefined && install !== 'already-running';
  const guarded = {
    cluster: model.name,
    expectedContext: entry?.context ?? f.context,
    expectedServer: entry?.server,
    actualContext: kube.context,
    actualServer: kube.server,
    pinned: !!(entry?.context || f.context),
  };
  // Secrets are decrypted only for the cluster they are for: a wrong context is refused (exit 4) before sops runs.
  if (need.bootstrap !== 'none' && entry?.bootstrap?.secrets?.length) guard({ name: model.name, guard: guarded });
  return {
    name: model.name,
    ctx,
    client: createClusterClient(kube, { requestTimeoutMs }),
    guard: guarded,
    timeouts: {
      defaultMs: parseDuration(repo.config.timeouts.default),
      tiers: Object.fromEntries(Object.entries(repo.config.timeouts.tiers).map(([k, v]) => [k, parseDuration(v)])),
      overallMs,
    },
    resettable: !!entry?.resettable,
    problems: need.checks ? await checkProblems(repo, ctx) : [],
    fallback: { files, ...fallback },
    crdKnowledge: {
      runtimeCrds: repo.config.runtimeCrds,
      externalCrds: repo.config.externalCrds,
      groupsInGit: new Set(model.objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => (o.raw.spec as { group?: string } | undefined)?.group).filter((g): g is string => !!g)),
    },
    bootstrap: need.bootstrap === 'none' ? null : await readBootstrap(repo, model.name, entry?.bootstrap, need.bootstrap),
    installsFlux,
  };
}

/**
 * What `check` would report for this cluster, composed as check composes it (the bootstrap's installs, every rule,
 * suppressions with their reasons), so a refused run says exactly what `check` says.
 */
async function checkProblems(repo: LoadedRepository, ctx: PlanContext): Promise<Problem[]> {
  const bootstrap = readBootstrapInstalls(repo.root, repo.config, repo.clusters, repo.problems);
  const found = [...repo.problems, ...bootstrap.problems, ...lint({ clusters: [ctx], config: repo.config, bootstrap, loadProblems: repo.problems })];
  const ignoreLines = repo.configFile ? ignoreEntryLines(await readFile(repo.configFile, 'utf8')) : [];
  return applySuppressions(found, repo.config, repo.clusters, ignoreLines).kept;
}

function pickCluster(repo: LoadedRepository, wanted: string | undefined, context: string) {
  if (wanted) return repo.clusters.find((c) => c.name === wanted)!;
  if (repo.clusters.length === 1) return repo.clusters[0]!;
  const byContext = repo.clusters.filter((c) => repo.config.clusters[c.name]?.context === context);
  if (byContext.length === 1) return byContext[0]!;
  const list = repo.clusters.map((c) => `${c.name} (context ${repo.config.clusters[c.name]?.context ?? 'not pinned'})`).join(', ');
  throw new ConfigError('CLUSTER_AMBIGUOUS', `which cluster? The current context ${context} matches none of: ${list}`,
    'Pass --cluster NAME, or switch to that cluster\'s context (kubectl config use-context).');
}

/** The CRD fallback, read once: the objects to apply, and the CRDs among them (for the deadlock diagnosis). */
async function readFallback(root: string, files: readonly string[], need: 'apply' | 'diagnose'): Promise<{ objects: K8sObject[]; crds: FallbackCrd[] }> {
  const objects: K8sObject[] = [];
  const crds: FallbackCrd[] = [];
  for (const file of files) {
    let read: K8sObject[];
    try {
      read = await readManifests(path.resolve(root, file), file);
    } catch (e) {
      // resume only diagnoses with it; `standup crds` reports the file with its line.
      if (need === 'apply') throw e;
      continue;
    }
    objects.push(...read);
    for (const o of read) {
      const spec = (o.spec ?? {}) as { group?: string; names?: { kind?: string } };
      if (o.kind === 'CustomResourceDefinition' && spec.group && spec.names?.kind) crds.push({ group: spec.group, kind: spec.names.kind, name: o.metadata.name, file });
    }
  }
  if (need === 'apply' && files.length > 0 && objects.length === 0) {
    throw new ConfigError('CRDS_EMPTY', `the CRD fallback (${files.join(', ')}) holds no objects`, 'Point crds: in tiers.yaml at CRD manifests.');
  }
  return { objects, crds };
}

type Bootstrap = NonNullable<NonNullable<LoadedRepository['config']['clusters'][string]>['bootstrap']>;

async function readBootstrap(repo: LoadedRepository, cluster: string, b: Bootstrap | undefined, need: 'full' | 'resume'): Promise<BootstrapInputs | null> {
  const install = b?.install && b.install !== 'already-running' ? { file: b.install.path, objects: await readManifests(path.resolve(repo.root, b.install.path), b.install.path) } : null;
  if (need === 'resume' && (!install || !b?.sync)) return install ? { install, secrets: [], sync: [], syncDir: '' } : null;
  if (!b?.sync) {
    throw new ConfigError('BOOTSTRAP_UNCONFIGURED', `cluster ${cluster} has no bootstrap.sync in tiers.yaml, so standup does not know what to apply`,
      `Add bootstrap: {sync: <the cluster's flux-system directory>} under clusters.${cluster} (and install: already-running or install: {path: ...}).`);
  }
  const secrets = [];
  for (const s of b.secrets) secrets.push(await readSecret(repo.root, s));
  return { install, secrets, sync: await readManifests(path.resolve(repo.root, b.sync), b.sync), syncDir: b.sync };
}
