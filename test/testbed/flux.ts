import path from 'node:path';
import { mkdirSync } from 'node:fs';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { spawnManaged, type ManagedProcess } from './process.js';
import { pollUntil } from './wait.js';
import { TestbedStartError } from './errors.js';
import { apply, readYamlDir, waitCrdsEstablished } from './kube.js';

export const FLUX_NAMESPACE = 'flux-system';

/** Installs every Flux CRD copied at build time and waits for Established. */
export async function installFluxCrds(kc: KubeConfig, crdDir: string): Promise<string[]> {
  const crds = readYamlDir(crdDir).filter((o) => o.kind === 'CustomResourceDefinition');
  await Promise.all(crds.map((c) => apply(kc, c)));
  const names = crds.map((c: KubernetesObject) => c.metadata?.name ?? '');
  // kustomize-controller watches GitRepository, OCIRepository, Bucket and
  // ExternalArtifact: it must not start before all of them are served.
  await waitCrdsEstablished(kc, names);
  return names;
}

export interface FluxPorts {
  sourceMetrics: number;
  sourceHealth: number;
  sourceStorage: number;
  kustomizeMetrics: number;
  kustomizeHealth: number;
  /** Only when helm-controller runs (a testbed with a node). */
  helmMetrics?: number;
  helmHealth?: number;
}

export interface FluxOptions {
  binDir: string;
  /** Each controller's own kubeconfig (its own user, which the audit policy leaves out). */
  kubeconfig: (name: FluxController) => string;
  dir: string;
  logsDir: string;
  ports: FluxPorts;
  /** kustomize-controller --requeue-dependency; upstream default 30s is slow for tests. */
  requeueDependency: string;
  /** --concurrent of every Flux controller (benchmarks: homelab templates set 10); unset: each controller's default. */
  concurrent?: number;
}

function controllerEnv(kubeconfig: string, tmp: string): NodeJS.ProcessEnv {
  // KUBECONFIG, not --kubeconfig: the mains parse flags with pflag only, and
  // controller-runtime registers --kubeconfig on Go's flag set.
  // TMPDIR of the controller's own: kustomize-controller builds in os.TempDir()/kustomization-*, and at start-up it
  // removes every kustomization-* there as a leftover of an earlier process (main.go purgeStaleTempDirs). With a
  // shared /tmp, each testbed started on the machine deleted the live build dirs of every other running one: tiers
  // failed with `lstat /tmp/kustomization-...: no such file or directory`.
  return { ...process.env, KUBECONFIG: kubeconfig, RUNTIME_NAMESPACE: FLUX_NAMESPACE, TMPDIR: tmp };
}

async function waitHealthy(proc: ManagedProcess, port: number, timeoutMs: number): Promise<void> {
  try {
    await pollUntil(
      `${proc.name} /readyz`,
      async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok ? true : undefined),
      { timeoutMs, abort: () => (proc.exit ? `exited with ${JSON.stringify(proc.exit)}` : undefined) },
    );
  } catch (e) {
    await proc.stop(1000);
    throw new TestbedStartError(proc.name, (e as Error).message, proc.logFile);
  }
}

export type FluxController = 'source-controller' | 'kustomize-controller' | 'helm-controller';

const COMMON = ['--enable-leader-election=false', '--watch-all-namespaces=true', '--log-encoding=console', '--log-level=debug'];

function fluxArgs(name: FluxController, o: FluxOptions): string[] {
  return [...controllerArgs(name, o), ...(o.concurrent ? [`--concurrent=${o.concurrent}`] : [])];
}

function controllerArgs(name: FluxController, o: FluxOptions): string[] {
  if (name === 'source-controller') {
    return [
      ...COMMON,
      `--metrics-addr=127.0.0.1:${o.ports.sourceMetrics}`,
      `--health-addr=127.0.0.1:${o.ports.sourceHealth}`,
      `--storage-path=${path.join(o.dir, 'artifacts')}`,
      `--storage-addr=127.0.0.1:${o.ports.sourceStorage}`,
      // Goes into status.artifact.url, which kustomize-controller downloads.
      `--storage-adv-addr=127.0.0.1:${o.ports.sourceStorage}`,
    ];
  }
  if (name === 'helm-controller') {
    return [
      ...COMMON,
      `--metrics-addr=127.0.0.1:${o.ports.helmMetrics}`,
      `--health-addr=127.0.0.1:${o.ports.helmHealth}`,
      `--requeue-dependency=${o.requeueDependency}`,
    ];
  }
  return [
    ...COMMON,
    `--metrics-addr=127.0.0.1:${o.ports.kustomizeMetrics}`,
    `--health-addr=127.0.0.1:${o.ports.kustomizeHealth}`,
    '--no-remote-bases=true',
    `--requeue-dependency=${o.requeueDependency}`,
  ];
}

/** Starts one controller and waits for its /readyz. */
export async function startFluxController(name: FluxController, o: FluxOptions, timeoutMs = 30_000): Promise<ManagedProcess> {
  mkdirSync(path.join(o.dir, 'artifacts'), { recursive: true });
  const tmp = path.join(o.dir, 'tmp', name);
  mkdirSync(tmp, { recursive: true });
  const proc = spawnManaged(name, path.join(o.binDir, name), fluxArgs(name, o), {
    logFile: path.join(o.logsDir, `${name}.log`),
    env: controllerEnv(o.kubeconfig(name), tmp),
  });
  const health = { 'source-controller': o.ports.sourceHealth, 'kustomize-controller': o.ports.kustomizeHealth, 'helm-controller': o.ports.helmHealth };
  await waitHealthy(proc, health[name] ?? 0, timeoutMs);
  return proc;
}

export async function startFluxControllers(
  o: FluxOptions,
  names: FluxController[] = ['source-controller', 'kustomize-controller'],
  timeoutMs = 30_000,
): Promise<ManagedProcess[]> {
  const results = await Promise.allSettled(names.map((n) => startFluxController(n, o, timeoutMs)));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    // waitHealthy already stopped the one that failed; stop the other.
    for (const r of results) if (r.status === 'fulfilled') await r.value.stop(1000);
    throw failed.reason;
  }
  return results.map((r) => (r as PromiseFulfilledResult<ManagedProcess>).value);
}
