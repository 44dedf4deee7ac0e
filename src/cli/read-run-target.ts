// Everything a run needs, read before it starts: the kubeconfig, the repository and its plan, the static checks, the
// bootstrap manifests and secrets (decrypted in memory), the CRD fallback. The runner gets the result and only talks
// to the cluster. Reading fails here, with exit 2 and the file named, before anything is drawn or written.

import { readChartInstall } from './chart-install.js';
import type { RenderedObject } from '../model/flux.js';
import { readPreFluxInstalls } from '../bootstrap/pre-flux-installs.js';
import { fluxInstanceFromChartValues } from '../bootstrap/flux-instance-chart.js';
import type { Obj } from '../model/k8s.js';
import type { StandupConfig } from '../model/config.js';
import { isFluxInstanceRelease, mergeValues } from '../repo/helm-values.js';
import { ConfigError } from '../model/errors.js';
import { planCluster } from '../plan/plan.js';
import { loadRepository, type LoadedRepository } from '../load/load-repository.js';
import { installFileOf, ManifestReads } from './manifest-reads.js';
import type { LoadSession } from '../load/load-session.js';
import type { TextMemo } from '../repo/lazy-yaml.js';
import { repoFeatureGate } from '../bootstrap/feature-gates.js';
import { parseDuration } from '../status/durations.js';
import { contextRefusal, fluxCrdsPresent, unreachable, type FluxCrds } from '../runner/preflight.js';
import { ClusterError } from '../cluster/errors.js';
import { blockingProblems } from '../runner/blocking.js';
import type { BootstrapInputs, FallbackCrd, RunTarget } from '../runner/run-target.js';
import type { ClusterClient, K8sObject } from '../cluster/client.js';
import type { LoadedKubeconfig } from '../cluster/kubeconfig.js';
import { checkRepository } from './check-repository.js';
import { renderCacheDir } from '../cache/render-cache.js';
import type { ClusterFlags } from './cluster-flags.js';
import { readSecret } from './secrets.js';
import { instanceRootSync, type InstanceManifest } from '../runner/flux-instance.js';
import { mergeDeclaredTwice } from '../runner/declared-twice.js';
import { imageLocator } from './image-line.js';
import { inferredRuntimeCrds } from '../lint/rules/runtime-crd.js';

const instanceForm = (entry: { bootstrap?: { install?: unknown } } | null): boolean => {
  const i = entry?.bootstrap?.install;
  return !!i && typeof i === 'object' && 'instance' in i;
};

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
  /** The run starts with preflight: ask its question of the cluster while the repository loads (see probeFluxCrds). */
  preflight?: boolean;
  /** STANDUP_CONNECT_TIMEOUT: how long preflight waits for the API server's first answer (runner/first-answer.ts). */
  connectTimeout?: string;
  /**
   * The environment the render cache is found from ($XDG_CACHE_HOME, $HOME), used as plan and check use it (unless
   * --no-cache): a run after them renders nothing they rendered (kustomize was ~250 ms of `up`'s start on an 8-tier
   * chain).
   */
  env: NodeJS.ProcessEnv;
  /** The command's load session (cli/main.ts): what the run parses after the load is kept in the memo for the next. */
  session?: LoadSession;
}

/** `--timeout`: a positive Go duration, or none. `0s` would end every wait before it began. */
function overallTimeout(text: string | undefined): number {
  if (text === undefined) return Infinity;
  const ms = parseDuration(text);
  if (ms <= 0) throw new ConfigError('BAD_FLAG', `--timeout ${text} is not a positive duration`, 'Pass a duration such as 30m or 90s, or leave --timeout out to wait as long as the tiers\' own timeouts allow.');
  return ms;
}

/** STANDUP_CONNECT_TIMEOUT: a positive Go duration, or none (the default bound). Read before any work, like --timeout. */
function connectTimeout(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  let ms = 0;
  try {
    ms = parseDuration(text);
  } catch {
    // said below, naming the variable
  }
  if (ms <= 0) throw new ConfigError('BAD_DURATION', `STANDUP_CONNECT_TIMEOUT=${text} is not a positive duration`, 'Set it to a duration such as 30s, or unset it for the default (10s).');
  return ms;
}

/** Reads one cluster's run inputs. Reads only; nothing here writes to the cluster. */
export async function readRunTarget(f: ClusterFlags & { force?: boolean }, need: ReadNeeds, requestTimeoutMs = 30_000): Promise<RunTarget> {
  if (f.cluster.length > 1) throw new ConfigError('BAD_FLAG', 'this command acts on one cluster; pass --cluster once');
  const overallMs = overallTimeout(f.timeout);
  const connectMs = connectTimeout(need.connectTimeout);
  // The Kubernetes client takes ~0.1 s of CPU to load (most of it compiling client-node): it loads while the
  // repository does, once the first kustomize processes have started (mostly waiting on them), not before, which
  // would hold their start back. A kubeconfig error still wins over the repository's, as when it was read first; the
  // load is let finish (its clean-up included) before the error is raised.
  let startClient = (): void => undefined;
  const clientWanted = new Promise<void>((resolve) => (startClient = resolve));
  const cluster = clientWanted.then(() => Promise.all([import('../cluster/kubeconfig.js'), import('../cluster/node-client.js')]));
  let configRead: (c: StandupConfig) => void = () => undefined;
  const config = new Promise<StandupConfig>((resolve) => (configRead = resolve));
  // The bootstrap's files are read while the repository loads, for the cluster tiers.yaml alone says is meant (the
  // one named or the only one); otherwise readTarget reads them once the kubeconfig's context has chosen it.
  let ahead = null as { reads: ManifestReads; config: StandupConfig; name: string } | null; // set by onConfig
  const onConfig = (c: StandupConfig, at: { root: string; memo: TextMemo }) => {
    configRead(c);
    const name = chosenCluster(Object.keys(c.clusters), f.cluster[0], c, null);
    if (need.bootstrap !== 'none' && name !== undefined) ahead = { reads: new ManifestReads(at.root, at.memo), config: c, name };
  };
  const onRendering = () => {
    // The builds first, then the client's import: both want the CPU, and the processes should start at once.
    try {
      ahead?.reads.readAhead(ahead.config, ahead.name, need.fallback !== 'none');
    } catch {
      // Only a head start: readTarget reads the same files again where it needs them, and says what is wrong there.
    }
    startClient();
  };
  const loading = loadRepository({ repo: f.repo, clusters: f.cluster.length ? f.cluster : undefined, path: f.path, source: f.source, localSources: f.localSource, scope: need.checks ? 'all' : 'graph', cache: renderCacheDir(f, need.env), onConfig, onRendering }, need.session);
  void loading.catch(() => undefined).finally(startClient); // awaited below; a load that fails first is not an unhandled rejection
  let kube: LoadedKubeconfig;
  let client: ClusterClient;
  try {
    const [kubeconfig, nodeClient] = await cluster;
    kube = kubeconfig.loadKubeconfig({ kubeconfig: f.kubeconfig, context: f.context });
    client = nodeClient.createClusterClient(kube, { requestTimeoutMs });
  } catch (e) {
    await loading.catch(() => undefined);
    throw e;
  }
  const fluxCrdsProbe = need.preflight ? probeFluxCrds(config, f, kube, client) : undefined;
  try {
    const repo = await loading;
    const t = await readTarget(f, need, overallMs, repo, kube, client, fluxCrdsProbe, ahead?.reads ?? new ManifestReads(repo.root, repo.memo));
    return connectMs === undefined ? t : { ...t, timeouts: { ...t.timeouts, connectMs } };
  } catch (e) {
    client.close?.(); // the question asked ahead is not waited for
    throw e;
  }
}

async function readTarget(f: ClusterFlags & { force?: boolean }, need: ReadNeeds, overallMs: number, repo: LoadedRepository, kube: LoadedKubeconfig, client: ClusterClient, fluxCrdsProbe: Promise<FluxCrds | undefined> | undefined, reads: ManifestReads): Promise<RunTarget> {
  const model = pickCluster(repo, f.cluster[0], kube.context);
  const entry = repo.config.clusters[model.name] ?? null;
  const planned = planCluster(model, new Set(repo.config.exclude));
  const files = [...repo.config.crds, ...(entry?.crds ?? [])];
  const fallback = need.fallback === 'none' ? { objects: [], crds: [] } : await readFallback(reads, files, need.fallback);
  const install = entry?.bootstrap?.install;
  const installsFlux = install !== undefined && install !== 'already-running';
  const guarded = guardInput(model.name, entry, f, kube);
  // The static checks come first: a graph the run's check step will refuse (exit 2) is said as such, never hidden by
  // a secret that cannot be decrypted (no sops) or a cluster that cannot be reached.
  const problems = need.checks ? (await checkRepository(repo, [planned])).kept : [];
  const refused = need.checks && !f.force && blockingProblems(problems, model.name, fallback.crds).length > 0;
  // Secrets are decrypted only for the cluster they are for: none for a context the guard refuses (the run's
  // preflight then refuses it, exit 4, before any write), none for a run its check step refuses.
  const decrypt = !refused && !contextRefusal({ name: model.name, guard: guarded });
  const bootstrap = need.bootstrap === 'none' && !instanceForm(entry) ? null : await readBootstrap(repo, reads, model.name, entry?.bootstrap, need.bootstrap === 'none' ? 'resume' : need.bootstrap, decrypt, model.objects, need.bootstrap !== 'none');
  // A FluxInstance creates the root sync: its Kustomization and source are named after spec.sync.
  const rootSync = bootstrap?.instance ? instanceRootSync(bootstrap.instance.object) : null;
  const ctx = rootSync ? { ...planned, rootSync } : planned;
  return {
    name: model.name,
    ctx,
    client,
    ...(fluxCrdsProbe ? { fluxCrdsProbe } : {}),
    guard: guarded,
    timeouts: {
      defaultMs: parseDuration(repo.config.timeouts.default),
      tiers: Object.fromEntries(Object.entries(repo.config.timeouts.tiers).map(([k, v]) => [k, parseDuration(v)])),
      overallMs,
    },
    resettable: !!entry?.resettable,
    problems,
    fallback: { files, ...fallback },
    crdKnowledge: {
      // Declared first: a declaration's trigger wins over the one inferred from git for the same kind.
      runtimeCrds: [...repo.config.runtimeCrds, ...inferredRuntimeCrds(model.objects).filter((i) => !repo.config.runtimeCrds.some((d) => d.kind === i.kind && d.group === i.group))],
      externalCrds: repo.config.externalCrds,
      groupsInGit: new Set(model.objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => (o.raw.spec as { group?: string } | undefined)?.group).filter((g): g is string => !!g)),
    },
    bootstrap,
    installsFlux,
    ...(need.bootstrap === 'full' && !installsFlux ? { fluxChartInstalls: fluxChartInstalls(repo) } : {}),
    locateImage: imageLocator(repo.root),
    additiveCel: {
      kustomize: repoFeatureGate(model.objects, 'AdditiveCELDependencyCheck', 'kustomize-controller'),
      helm: repoFeatureGate(model.objects, 'AdditiveCELDependencyCheck', 'helm-controller'),
    },
  };
}

/**
 * Preflight's question (which of Flux's CRDs the cluster has), asked while the repository loads, so the connection
 * and its answer are ready when the run starts: reads only, and only of a cluster the context guard lets through by
 * tiers.yaml (a refused or unpinned context is not contacted at all: its credentials plugin could prompt). The answer
 * is used by preflight, after the static checks have spoken (src/runner/preflight.ts); undefined: not asked.
 */
function probeFluxCrds(config: Promise<StandupConfig>, f: ClusterFlags, kube: LoadedKubeconfig, client: ClusterClient): Promise<FluxCrds | undefined> {
  const asked = config.then((c) => {
    const name = chosenCluster(Object.keys(c.clusters), f.cluster[0], c, kube.context);
    const guard = guardInput(name, name ? c.clusters[name] : undefined, f, kube);
    return contextRefusal({ name: name ?? '', guard }) ? undefined : fluxCrdsPresent(client);
  });
  void asked.catch(() => undefined); // preflight awaits it; a load that fails first never does
  return asked;
}

/** The repository's bootstrap steps (helmfile, scripts, k3s HelmCharts) that install flux-operator or flux-instance charts. */
function fluxChartInstalls(repo: LoadedRepository): string[] {
  const { installs } = readPreFluxInstalls(repo.root, repo.config, repo.clusters, repo.problems, repo.memo);
  return installs
    .filter((i) => i.chart !== null && /(^|\/)flux-(operator|instance)$/.test(i.chart))
    .map((i) => `${i.file}${i.line !== null ? `:${i.line}` : ''} (${i.kind === 'helmfile-release' ? 'helmfile release' : 'helm install'} ${i.name}, chart ${i.chart})`);
}

/** The context guard's input for cluster `name` (its tiers.yaml entry, if any) under the kubeconfig in use. */
function guardInput(name: string | undefined, entry: { context?: string; server?: string } | null | undefined, f: ClusterFlags, kube: LoadedKubeconfig): RunTarget['guard'] {
  return {
    cluster: name,
    expectedContext: entry?.context ?? f.context,
    expectedServer: entry?.server,
    actualContext: kube.context,
    actualServer: kube.server,
    pinned: !!(entry?.context || f.context),
  };
}

/**
 * The cluster a run acts on: the one named, the only one, or the one whose pinned context is current; else undefined.
 * `context` null: not known yet (only the first two).
 */
function chosenCluster(names: readonly string[], wanted: string | undefined, config: StandupConfig, context: string | null): string | undefined {
  if (wanted) return wanted;
  if (names.length === 1) return names[0];
  if (context === null) return undefined;
  const byContext = names.filter((n) => config.clusters[n]?.context === context);
  return byContext.length === 1 ? byContext[0] : undefined;
}

function pickCluster(repo: LoadedRepository, wanted: string | undefined, context: string) {
  const name = chosenCluster(repo.clusters.map((c) => c.name), wanted, repo.config, context);
  if (name !== undefined) return repo.clusters.find((c) => c.name === name)!;
  const list = repo.clusters.map((c) => `${c.name} (context ${repo.config.clusters[c.name]?.context ?? 'not pinned'})`).join(', ');
  throw new ConfigError('CLUSTER_AMBIGUOUS', `which cluster? The current context ${context} matches none of: ${list}`,
    'Pass --cluster NAME, or switch to that cluster\'s context (kubectl config use-context).');
}

/** The CRD fallback, read once: the objects to apply, and the CRDs among them (for the deadlock diagnosis). */
async function readFallback(reads: ManifestReads, files: readonly string[], need: 'apply' | 'diagnose'): Promise<{ objects: K8sObject[]; crds: FallbackCrd[] }> {
  const objects: K8sObject[] = [];
  const crds: FallbackCrd[] = [];
  for (const file of files) {
    let read: K8sObject[];
    try {
      read = await reads.read(file);
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

async function readBootstrap(repo: LoadedRepository, reads: ManifestReads, cluster: string, b: Bootstrap | undefined, need: 'full' | 'resume', decrypt: boolean, objects: readonly RenderedObject[], render: boolean): Promise<BootstrapInputs | null> {
  const from = b?.install && b.install !== 'already-running' ? b.install : null;
  let file = installFileOf(b?.install);
  // status and reset need the FluxInstance, not the operator's objects: a chart is not rendered for them (no helm run,
  // no download); up and resume render it with helm (cli/chart-install.ts). Anything else is rendered manifests.
  if (!render && file && reads.chartForm(file)) file = null;
  const chart = from && file && render ? await readChartInstall(repo, cluster, 'path' in from ? 'path' : 'operator', file, objects) : null;
  const install = chart ?? (file ? { file, objects: await reads.read(file) } : null);
  const instance = from && 'instance' in from ? await readInstance(reads, cluster, from.instance) : null;
  if (instance) {
    // The FluxInstance's spec.sync is the root sync: no sync directory to read.
    const secrets = [];
    for (const s of decrypt && need === 'full' ? (b?.secrets ?? []) : []) secrets.push(await readSecret(repo.root, s));
    return { install, instance, secrets, sync: [], syncDir: instance.file };
  }
  if (need === 'resume' && (!install || !b?.sync)) return install ? { install, instance: null, secrets: [], sync: [], syncDir: '' } : null;
  if (!b?.sync) {
    throw new ConfigError('BOOTSTRAP_UNCONFIGURED', `cluster ${cluster} has no bootstrap.sync in tiers.yaml, so standup does not know what to apply`,
      `Add bootstrap: {sync: <the cluster's flux-system directory>} under clusters.${cluster} (and install: already-running or install: {path: ...}).`);
  }
  const secrets = [];
  for (const s of decrypt ? b.secrets : []) secrets.push(await readSecret(repo.root, s));
  const sync = await reads.read(b.sync);
  if (!install) return { install, instance: null, secrets, sync, syncDir: b.sync };
  const both = mergeDeclaredTwice(install.objects, sync);
  return { install: { ...install, objects: both.install }, instance: null, secrets, sync: both.sync, syncDir: b.sync };
}

/**
 * The FluxInstance tiers.yaml's bootstrap.install.instance names: exactly one, `flux`, with a spec.sync. The file may
 * hold it as the flux-instance Helm chart gives it: a HelmRelease of that chart (values inline or from ConfigMaps and
 * Secrets in the same file), or the chart's values file (top-level `instance:`); the FluxInstance is the one the
 * chart renders from those values (src/bootstrap/flux-instance-chart.ts).
 */
async function readInstance(reads: ManifestReads, cluster: string, file: string): Promise<InstanceManifest> {
  const objects = await reads.read(file);
  const found = objects.filter((o) => o.kind === 'FluxInstance');
  const where = `clusters.${cluster}.bootstrap.install.instance in tiers.yaml`;
  if (found.length === 0) {
    const fromChart = instanceFromChart(objects as unknown as Obj[], file, where);
    if (fromChart) found.push(fromChart as unknown as K8sObject);
  }
  if (found.length !== 1) {
    throw new ConfigError('BOOTSTRAP_INSTANCE_INVALID', `${file} holds ${found.length} FluxInstances (${where} must name a file with exactly one)`, 'Point instance: at the file with the cluster\'s FluxInstance.');
  }
  const fi = found[0]!;
  const ns = fi.metadata.namespace ?? 'flux-system';
  if (fi.metadata.name !== 'flux') {
    throw new ConfigError('BOOTSTRAP_INSTANCE_INVALID', `${file}: FluxInstance/${ns}/${fi.metadata.name}: flux-operator reconciles only a FluxInstance named flux (its CRD rejects any other name)`, `Rename it to flux in ${file}.`);
  }
  if (!instanceRootSync(fi)) {
    throw new ConfigError('BOOTSTRAP_INSTANCE_INVALID', `${file}: FluxInstance/${ns}/flux has no spec.sync, so nothing would apply this repository's tiers`, `Add spec.sync (kind, url, ref, path: the cluster's entry path) to the FluxInstance in ${file}.`);
  }
  return { file, object: { ...fi, metadata: { ...fi.metadata, namespace: ns } } };
}

/** The FluxInstance the flux-instance chart renders for the one release (or values file) in `objects`, or null. */
function instanceFromChart(objects: Obj[], file: string, where: string): Obj | null {
  const releases = objects.filter(isFluxInstanceRelease);
  if (releases.length > 1) throw new ConfigError('BOOTSTRAP_INSTANCE_INVALID', `${file} holds ${releases.length} flux-instance HelmReleases (${where} must name a file with exactly one)`, 'Point instance: at the file with the cluster\'s FluxInstance or flux-instance HelmRelease.');
  const hr = releases[0];
  if (hr) {
    const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata?.name === name) ?? null;
    const merged = mergeValues(hr, find);
    const lacking = [...merged.missing, ...merged.unreadable];
    if (lacking.length) throw new ConfigError('BOOTSTRAP_INSTANCE_INVALID', `${file}: HelmRelease/${String(hr.metadata?.name)} takes its values from ${lacking.join(', ')}, which ${file} does not hold, so the FluxInstance it installs is not known`, `Put those ConfigMaps or Secrets in ${file} (or a FluxInstance), then run again.`);
    const ns = String(hr.spec?.targetNamespace ?? hr.metadata?.namespace ?? 'flux-system');
    const release = String(hr.spec?.releaseName ?? (hr.spec?.targetNamespace ? `${String(hr.spec.targetNamespace)}-${String(hr.metadata?.name)}` : hr.metadata?.name));
    return fluxInstanceFromChartValues(merged.values as Obj, release, ns);
  }
  const values = objects.length === 1 && !objects[0]!.kind && objects[0]!.instance && typeof objects[0]!.instance === 'object' ? objects[0]! : null;
  return values ? fluxInstanceFromChartValues(values, 'flux-instance', 'flux-system') : null;
}

/** A read-only look at the cluster (status, fix --context) starts here: an API server that does not answer is said at once. */
export async function ensureReachable(t: RunTarget, requestMs: number): Promise<void> {
  try {
    await t.client.serverVersion({ timeoutMs: requestMs });
  } catch (e) {
    if (e instanceof ClusterError) throw unreachable(t, e);
    throw e;
  }
}
