import path from 'node:path';
import type { ClusterClient } from '../cluster/client.js';
import { assertContext } from '../cluster/guard.js';
import { loadKubeconfig, type LoadedKubeconfig } from '../cluster/kubeconfig.js';
import { createClusterClient } from '../cluster/node-client.js';
import type { ClusterConfig, StandupConfig } from '../model/config.js';
import { ConfigError } from '../model/errors.js';
import { planCluster, type PlanContext } from '../plan/plan.js';
import { loadRepository, type LoadedRepository } from '../repo/load.js';
import { parseDuration } from './duration.js';
import type { FallbackCrd } from './explain.js';
import { readManifests } from './manifests.js';

/** Flags of the commands that talk to a cluster (they follow kubectl and flux). */
export interface ClusterFlags {
  repo?: string;
  cluster: string[];
  path?: string;
  /** The root sync's source, KIND/NAMESPACE/NAME (--source). */
  source?: string;
  output?: string;
  kubeconfig?: string;
  context?: string;
  timeout?: string;
  dryRun?: boolean;
  yes?: boolean;
  record?: string;
  sourceUrl?: string;
}

/** One cluster, planned, with a client pointed at it. The guard has not run yet: `guard()` before any write. */
export interface Session {
  repo: LoadedRepository;
  name: string;
  entry: ClusterConfig | null;
  ctx: PlanContext;
  kube: LoadedKubeconfig;
  client: ClusterClient;
  config: StandupConfig;
  guard(): void;
  timeoutFor(key: string): number;
  /** The overall deadline from --timeout, in ms (Infinity when unset). */
  overallMs: number;
  /** The files of the CRD fallback (tiers.yaml `crds:` plus the cluster's own), relative to the repository. */
  fallbackFiles: string[];
}

/**
 * Loads the repository, picks one cluster (the --cluster, else the one whose pinned context is in use, else the only
 * one) and connects. Everything here reads; nothing writes.
 */
export async function openSession(f: ClusterFlags, requestTimeoutMs = 30_000): Promise<Session> {
  if (f.cluster.length > 1) throw new ConfigError('BAD_FLAG', 'this command acts on one cluster; pass --cluster once');
  const kube = loadKubeconfig({ kubeconfig: f.kubeconfig, context: f.context });
  // The runner needs the tier graph, not the apps' objects: leaf tiers are not rendered (see flux-scan.ts).
  const repo = await loadRepository({ repo: f.repo, clusters: f.cluster.length ? f.cluster : undefined, path: f.path, source: f.source, scope: 'graph' });
  const model = pickCluster(repo, f.cluster[0], kube.context);
  const entry = repo.config.clusters[model.name] ?? null;
  const ctx = planCluster(model, new Set(repo.config.exclude));
  const client = createClusterClient(kube, { requestTimeoutMs });
  const defaultMs = parseDuration(repo.config.timeouts.default);
  return {
    repo,
    name: model.name,
    entry,
    ctx,
    kube,
    client,
    config: repo.config,
    guard: () => {
      if (!entry?.context && !f.context) {
        throw new ConfigError('CONTEXT_UNPINNED', `cluster ${model.name} has no kube context pinned in tiers.yaml, so standup will not write to it`,
          `Add \`context: ${kube.context}\` under clusters.${model.name} in tiers.yaml (or pass --context ${kube.context} to confirm it for this run).`);
      }
      assertContext({ expectedContext: entry?.context ?? f.context, expectedServer: entry?.server, actualContext: kube.context, actualServer: kube.server, cluster: model.name });
    },
    timeoutFor: (key) => {
      const t = repo.config.timeouts.tiers[key];
      return t ? parseDuration(t) : defaultMs;
    },
    overallMs: f.timeout ? parseDuration(f.timeout) : Infinity,
    fallbackFiles: [...repo.config.crds, ...(entry?.crds ?? [])],
  };
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

/** Reads every CRD the fallback provides, for the deadlock diagnosis. Unreadable files are left to `standup crds`. */
export async function fallbackCrds(root: string, files: string[]): Promise<FallbackCrd[]> {
  const out: FallbackCrd[] = [];
  for (const file of files) {
    try {
      for (const o of await readManifests(path.resolve(root, file), file)) {
        const spec = (o.spec ?? {}) as { group?: string; names?: { kind?: string } };
        if (o.kind === 'CustomResourceDefinition' && spec.group && spec.names?.kind) {
          out.push({ group: spec.group, kind: spec.names.kind, name: o.metadata.name, file });
        }
      }
    } catch {
      // `standup crds` reports it with file and line; the diagnosis just cannot point at it.
    }
  }
  return out;
}
