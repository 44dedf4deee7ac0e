import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { apiServerCaPem, apiServerHost, startApiServer, type ApiServerOptions } from './apiserver.js';
import { cdiOperatorOptions } from './cdi.js';
import { startControllerManager, type ControllerManagerOptions } from './controller-manager.js';
import { TestbedStartError } from './errors.js';
import { etcdUrl, startEtcd } from './etcd.js';
import { FLUX_NAMESPACE, installFluxCrds, startFluxController, startFluxControllers, type FluxController, type FluxOptions } from './flux.js';
import { gitRepos, type GitRepos } from './git-repos.js';
import { startHttpServer, type HttpServer } from './http-server.js';
import { apply, ensureNamespace, loadKubeConfig } from './kube.js';
import { CONTEXT_NAME, kubeconfigYaml } from './kubeconfig.js';
import { startCrdOperator, type CrdOperator, type CrdOperatorOptions } from './operator.js';
import { auditPolicyYaml, COMPONENT_USERS } from './audit.js';
import { chartsRoot } from './charts.js';
import { prepareNode, type Node, type NodeInfo } from './node/node.js';
import { corednsImage, fluxImageSpecs, fluxOperatorImageSpec } from './node/images.js';
import { corednsManifests } from './node/coredns.js';
import { waitDeploymentAvailable } from './workloads.js';
import { TestbedError } from './errors.js';
import { startScheduler } from './node/proxy-scheduler.js';
import { runCleanup } from './node/host-state.js';
import { NODE_BINARIES, requireBinaries, testbedBinDir, testbedCrdDir } from './paths.js';
import { randomToken, serviceAccountKeyPem, tokenCsvLine } from './pki.js';
import { freePorts } from './ports.js';
import { killAllSync, livePids, type ManagedProcess } from './process.js';
import { startReaper, writeReaperPids } from './reaper.js';

export { CONTEXT_NAME } from './kubeconfig.js';
export type { NodeInfo } from './node/node.js';
export type { GitRepos, FileChanges } from './git-repos.js';
export type { CrdOperator, CrdOperatorOptions } from './operator.js';

export interface TestbedOptions {
  /** Default: the cache dir for the current Go modules (testbedBinDir()). */
  binDir?: string;
  /** Default: <cache>/crds, next to binDir. */
  crdDir?: string;
  /** Parent of the temporary state dir. Default: os.tmpdir(). */
  tmpRoot?: string;
  /** kustomize-controller --requeue-dependency. Default '5s' (upstream: 30s). */
  requeueDependency?: string;
  /** --concurrent of the Flux controllers (homelab templates set 10 on all of them). Default: theirs. */
  concurrent?: number;
  /** Keep the state dir (logs) after stop(); also set by STANDUP_TESTBED_KEEP=1. */
  keepDir?: boolean;
  /** Kill children on SIGINT/SIGTERM/exit of this process. Default true. */
  handleSignals?: boolean;
  /** Progress lines (component started, timings). */
  log?: (line: string) => void;
  /**
   * A real node: containerd, kubelet, kube-scheduler, kube-proxy and pods on a CNI bridge, all in namespaces of
   * the testbed's own, plus helm-controller. Default true, unless STANDUP_TESTBED_NODE=0. Needs root.
   */
  node?: boolean;
  /** Also import Flux's controller images (under their upstream names) into the node. Default false. */
  fluxImages?: boolean;
  /**
   * 'processes' (default): the Flux controllers run as host processes, CRDs installed, so `bootstrap.install:
   * already-running` fits. 'pods': a bare cluster with a node (CoreDNS, Flux's images imported, no Flux at all), for
   * installing Flux from a repository's gotk-components.yaml. Also STANDUP_TESTBED_FLUX=pods.
   */
  flux?: 'processes' | 'pods';
  /**
   * Also import flux-operator's image (`ghcr.io/controlplaneio-fluxcd/flux-operator:<built version>`, the Flux
   * distribution manifests in /data) into the node, for repositories whose Flux is a FluxInstance. Default false,
   * unless STANDUP_TESTBED_FLUX_OPERATOR=1.
   */
  fluxOperator?: boolean;
}

export interface TestbedPorts {
  etcdClient: number;
  etcdPeer: number;
  apiServer: number;
  controllerManager: number;
  sourceMetrics: number;
  sourceHealth: number;
  sourceStorage: number;
  kustomizeMetrics: number;
  kustomizeHealth: number;
  http: number;
  /** With a node only. */
  scheduler?: number;
  helmMetrics?: number;
  helmHealth?: number;
}

/** Plain data: what a test worker or a shell needs to use a running testbed. */
export interface TestbedInfo {
  kubeconfigPath: string;
  contextName: string;
  /** https://127.0.0.1:<port> */
  server: string;
  /** Bearer token of the admin user (group system:masters). */
  token: string;
  /** Temporary state dir; everything the testbed writes is under it. */
  dir: string;
  logs: string;
  /** Base URL of the git server; a repo is at `${gitBaseUrl}/<name>.git`. */
  gitBaseUrl: string;
  gitRoot: string;
  gitWorkRoot: string;
  /** Control routes served by the host process (e.g. restart-apiserver). */
  controlUrl: string;
  ports: TestbedPorts;
  binDir: string;
  fluxNamespace: string;
  /** ms from start() to everything ready, per step and in total. */
  timings: Record<string, number>;
  /** The API server's audit log (JSON lines; see audit.ts for what it records). */
  auditLog: string;
  /** Where pods reach the git server and chart repositories (the node's link address; gitBaseUrl without a node). */
  clusterGitBaseUrl: string;
  /** How Flux runs: host processes, or nothing yet (installed into the cluster by the test). */
  flux: 'processes' | 'pods';
  /** Present when the testbed has a node. */
  node?: NodeInfo;
}

export interface TestbedOperators {
  /** Starts a CRD-on-appearance operator (see operator.ts); stopped with the testbed/client. */
  start(o: CrdOperatorOptions): CrdOperator;
  /**
   * The seeds' CDI pattern: a CDI appears -> storageprofiles.cdi.kubevirt.io after
   * delayMs. `names` restricts the trigger to CDIs with those names.
   */
  cdi(delayMs?: number, names?: string[]): CrdOperator;
  stopAll(): Promise<void>;
}

/** Components restart() can bounce (etcd holds the state, so it stays up). */
export type RestartableComponent = 'kube-apiserver' | 'kube-controller-manager' | FluxController;
export const RESTARTABLE: readonly RestartableComponent[] = [
  'kube-apiserver',
  'kube-controller-manager',
  'source-controller',
  'kustomize-controller',
  'helm-controller',
];

export interface TestbedClient extends TestbedInfo {
  readonly info: TestbedInfo;
  git: GitRepos;
  operator: TestbedOperators;
  kubeConfig(): KubeConfig;
  /** Stops kube-apiserver and starts it again on the same port with the same state. */
  restartApiServer(): Promise<void>;
  /**
   * Stops one component and starts it again with the same flags and ports.
   * Restarting kustomize-controller also drops its cached API discovery
   * (RESTMapper), which otherwise remembers kinds whose CRDs were deleted.
   */
  restart(component: RestartableComponent): Promise<void>;
}

export interface Testbed extends TestbedClient {
  /** Stops every process (process groups), the git server, and removes `dir`. Idempotent. */
  stop(): Promise<void>;
}

const INFO_FILE = 'testbed.json';

function operators(kubeconfigPath: string): TestbedOperators {
  const running = new Set<CrdOperator>();
  const start = (o: CrdOperatorOptions) => {
    const op = startCrdOperator(kubeconfigPath, o);
    running.add(op);
    return op;
  };
  return {
    start,
    cdi: (delayMs, names) => start(cdiOperatorOptions(delayMs, names)),
    async stopAll() {
      await Promise.all([...running].map((op) => op.stop()));
      running.clear();
    },
  };
}

/** A client for a testbed started elsewhere (vitest global setup, `npm run testbed -- up`). */
export function connect(info: TestbedInfo): TestbedClient {
  return {
    ...info,
    info,
    git: gitRepos(info.gitRoot, info.gitWorkRoot, info.gitBaseUrl),
    operator: operators(info.kubeconfigPath),
    kubeConfig: () => loadKubeConfig(info.kubeconfigPath),
    async restartApiServer() {
      const r = await fetch(`${info.controlUrl}/restart-apiserver`, { method: 'POST' });
      if (!r.ok) throw new Error(`restart-apiserver failed: ${r.status} ${await r.text()}`);
    },
    async restart(component) {
      const r = await fetch(`${info.controlUrl}/restart/${component}`, { method: 'POST' });
      if (!r.ok) throw new Error(`restart ${component} failed: ${r.status} ${await r.text()}`);
    },
  };
}

/** Reads `<dir>/testbed.json` written by start(). */
export function readInfo(dir: string): TestbedInfo {
  return JSON.parse(readFileSync(path.join(dir, INFO_FILE), 'utf8')) as TestbedInfo;
}

// Every testbed of this process, for the signal/exit handlers.
const active = new Set<{ dir: string; keep: boolean; cleanup?: string }>();
let handlersInstalled = false;

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  const emergency = () => {
    killAllSync();
    for (const t of active) {
      if (t.cleanup) runCleanup(t.cleanup);
      if (!t.keep) rmSync(t.dir, { recursive: true, force: true });
    }
    active.clear();
  };
  process.on('exit', emergency);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = () => {
      emergency();
      // If nobody else (e.g. vitest) handles the signal, behave like the default.
      if (process.listenerCount(sig) === 1) {
        process.off(sig, handler);
        process.kill(process.pid, sig);
      }
    };
    process.on(sig, handler);
  }
}

function logTail(file: string | undefined, lines = 25): string {
  if (!file || !existsSync(file)) return '';
  const text = readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  return `\n--- last lines of ${file} ---\n${text}`;
}

/** Whether start() gives the testbed a node when not told: yes, unless STANDUP_TESTBED_NODE=0. */
export const nodeByDefault = (): boolean => process.env.STANDUP_TESTBED_NODE !== '0';

export async function start(opts: TestbedOptions = {}): Promise<Testbed> {
  const t0 = Date.now();
  const timings: Record<string, number> = {};
  const mark = (step: string, since: number) => {
    timings[step] = Date.now() - since;
    opts.log?.(`${step}: ${timings[step]} ms`);
  };
  const fluxMode = opts.flux ?? (process.env.STANDUP_TESTBED_FLUX === 'pods' ? 'pods' : 'processes');
  const withNode = opts.node ?? (fluxMode === 'pods' || nodeByDefault());
  if (fluxMode === 'pods' && !withNode) throw new TestbedError('flux: \'pods\' needs a node (node: true): the Flux controllers run as its pods');
  const binDir = opts.binDir ?? testbedBinDir();
  const crdDir = opts.crdDir ?? (opts.binDir ? path.join(path.dirname(opts.binDir), 'crds') : testbedCrdDir());
  const withOperator = opts.fluxOperator ?? process.env.STANDUP_TESTBED_FLUX_OPERATOR === '1';
  if (withOperator && !withNode) throw new TestbedError('fluxOperator needs a node (node: true): flux-operator runs as its pod');
  const bins = requireBinaries(binDir, withNode ? [...NODE_BINARIES, ...(withOperator ? ['flux-operator'] : [])] : []);
  const keep = opts.keepDir ?? process.env.STANDUP_TESTBED_KEEP === '1';
  if (opts.handleSignals ?? true) installHandlers();

  const tmpRoot = opts.tmpRoot ?? tmpdir();
  mkdirSync(tmpRoot, { recursive: true });
  const dir = mkdtempSync(path.join(tmpRoot, 'standup-testbed-'));
  const self: { dir: string; keep: boolean; cleanup?: string } = { dir, keep };
  active.add(self);
  const logs = path.join(dir, 'logs');
  mkdirSync(logs);
  const reaperPidFile = path.join(dir, 'pids');
  const nodeCleanup = path.join(dir, 'node', 'cleanup.sh');
  const reaperPid = startReaper(process.pid, reaperPidFile, keep ? path.join(dir, '.none') : dir, withNode ? nodeCleanup : '');
  const procs = new Map<string, ManagedProcess>();
  const track = (p: ManagedProcess) => {
    procs.set(p.name, p);
    writeReaperPids(reaperPidFile, livePids());
    return p;
  };
  let http: HttpServer | undefined;
  let node: Node | undefined;
  let stopped = false;
  const ops = operators(path.join(dir, 'kubeconfig'));
  const fluxNames: FluxController[] = fluxMode === 'pods' ? [] : withNode ? ['source-controller', 'kustomize-controller', 'helm-controller'] : ['source-controller', 'kustomize-controller'];

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await ops.stopAll().catch(() => {});
    const stopOne = async (name: string) => {
      const p = procs.get(name);
      if (!p) return;
      const s0 = Date.now();
      const exit = await p.stop(5000);
      opts.log?.(`stopped ${name} in ${Date.now() - s0} ms (${exit.signal ?? `exit ${exit.code}`})`);
    };
    // The node first (its pods go with it, no API needed), then API clients (they would log errors while the
    // apiserver goes away), etcd last.
    if (node) {
      const s0 = Date.now();
      await node.stop();
      opts.log?.(`stopped the node in ${Date.now() - s0} ms`);
    }
    await Promise.all([...fluxNames, 'kube-scheduler', 'kube-controller-manager'].map(stopOne));
    for (const name of ['kube-apiserver', 'etcd']) await stopOne(name);
    await http?.close();
    try {
      process.kill(reaperPid, 'SIGKILL');
    } catch {
      // already gone
    }
    active.delete(self);
    if (!keep) rmSync(dir, { recursive: true, force: true });
  };

  try {
    const [etcdClient, etcdPeer, apiPort, kcmPort, sm, sh, ss, km, kh, schedPort, hm, hh] = (await freePorts(12)) as [
      number, number, number, number, number, number, number, number, number, number, number, number,
    ];
    // One token per component, so the audit log can leave the testbed's own traffic out (audit.ts).
    const token = randomToken();
    const componentTokens = Object.fromEntries(COMPONENT_USERS.map((u) => [u, randomToken()])) as Record<(typeof COMPONENT_USERS)[number], string>;
    const saKeyFile = path.join(dir, 'sa.key');
    const tokenFile = path.join(dir, 'tokens.csv');
    writeFileSync(saKeyFile, serviceAccountKeyPem(), { mode: 0o600 });
    writeFileSync(
      tokenFile,
      tokenCsvLine(token, 'admin', ['system:masters']) + COMPONENT_USERS.map((u) => tokenCsvLine(componentTokens[u], u, ['system:masters'])).join(''),
      { mode: 0o600 },
    );
    const auditPolicy = path.join(dir, 'audit-policy.yaml');
    writeFileSync(auditPolicy, auditPolicyYaml());
    const auditLog = path.join(logs, 'audit.log');

    const gitRoot = path.join(dir, 'git');
    const gitWorkRoot = path.join(dir, 'git-work');
    mkdirSync(gitRoot);
    mkdirSync(gitWorkRoot);
    mkdirSync(chartsRoot(dir));

    // The API server listens on the node's link address, so the node's namespaces come first (~0.1 s); its
    // containerd and images need no API server and come up while the control plane does.
    let s = Date.now();
    let runtime: Promise<void> | undefined;
    if (withNode) {
      node = await prepareNode({ dir, logs, bins, binDir, extraImages: [...(opts.fluxImages || fluxMode === 'pods' ? fluxImageSpecs(binDir) : []), ...(withOperator ? [fluxOperatorImageSpec(binDir)] : [])], track: (p) => track(p), log: opts.log });
      self.cleanup = node.cleanup;
      mark('node-namespace', s);
      const rs = Date.now();
      runtime = node.startRuntime().then(() => mark('node-runtime', rs));
      // Awaited with the rest; never an unhandled rejection meanwhile.
      runtime.catch(() => {});
    }
    const linkHost = node?.info;

    const apiOpts: ApiServerOptions = {
      bin: bins['kube-apiserver'],
      dir,
      logFile: path.join(logs, 'kube-apiserver.log'),
      port: apiPort,
      etcdUrl: '',
      saKeyFile,
      tokenFile,
      host: linkHost?.hostIp,
      serviceCidr: linkHost?.serviceCidr,
      auditLog,
      auditPolicy,
    };
    // Filled in as start-up proceeds; restart() reuses them verbatim.
    let kcmOpts: ControllerManagerOptions | undefined;
    let fluxOpts: FluxOptions | undefined;
    const starters: Record<RestartableComponent, () => Promise<ManagedProcess>> = {
      'kube-apiserver': () => startApiServer(apiOpts),
      'kube-controller-manager': () => startControllerManager(kcmOpts as ControllerManagerOptions),
      'source-controller': () => startFluxController('source-controller', fluxOpts as FluxOptions),
      'kustomize-controller': () => startFluxController('kustomize-controller', fluxOpts as FluxOptions),
      'helm-controller': () => startFluxController('helm-controller', fluxOpts as FluxOptions),
    };
    let restarting: Promise<void> | undefined;
    const restart = async (component: RestartableComponent) => {
      if (!RESTARTABLE.includes(component) || (component.endsWith('-controller') && component !== 'kube-controller-manager' && !fluxNames.includes(component as FluxController))) {
        throw new Error(`cannot restart ${component}${fluxMode === 'pods' ? ' (Flux runs as pods here)' : ''}`);
      }
      // Serialize concurrent requests: one restart at a time.
      while (restarting) await restarting.catch(() => {});
      restarting = (async () => {
        // With clients still watching, kube-apiserver stops listening at once
        // but then lingers for 10 s+ before exiting; a short grace is enough.
        await procs.get(component)?.stop(component === 'kube-apiserver' ? 3000 : 5000);
        track(await starters[component]());
      })();
      try {
        await restarting;
      } finally {
        restarting = undefined;
      }
    };
    const restartApiServer = () => restart('kube-apiserver');
    const controls = Object.fromEntries([
      ['restart-apiserver', async () => restartApiServer()],
      ...RESTARTABLE.map((c) => [`restart/${c}`, async () => restart(c)]),
    ]) as Record<string, () => Promise<void>>;

    s = Date.now();
    http = await startHttpServer(gitRoot, controls, 0, chartsRoot(dir), node ? [node.info.hostIp] : []);
    const ports: TestbedPorts = {
      etcdClient,
      etcdPeer,
      apiServer: apiPort,
      controllerManager: kcmPort,
      sourceMetrics: sm,
      sourceHealth: sh,
      sourceStorage: ss,
      kustomizeMetrics: km,
      kustomizeHealth: kh,
      http: http.port,
      ...(withNode ? { scheduler: schedPort, helmMetrics: hm, helmHealth: hh } : {}),
    };

    s = Date.now();
    track(await startEtcd({ bin: bins.etcd, dataDir: path.join(dir, 'etcd'), logFile: path.join(logs, 'etcd.log'), clientPort: etcdClient, peerPort: etcdPeer }));
    mark('etcd', s);
    apiOpts.etcdUrl = etcdUrl({ clientPort: etcdClient });

    s = Date.now();
    track(await startApiServer(apiOpts));
    mark('kube-apiserver', s);

    const server = `https://${apiServerHost(apiOpts)}:${apiPort}`;
    const caPem = apiServerCaPem(dir);
    const kubeconfigPath = path.join(dir, 'kubeconfig');
    writeFileSync(kubeconfigPath, kubeconfigYaml({ server, caPem, token }), { mode: 0o600 });
    const kc = loadKubeConfig(kubeconfigPath);
    // Each component's own kubeconfig (its own user).
    mkdirSync(path.join(dir, 'kubeconfigs'));
    const componentKubeconfig = (user: (typeof COMPONENT_USERS)[number]) => {
      const file = path.join(dir, 'kubeconfigs', `${user.replace(/[^a-z0-9-]+/g, '-')}.yaml`);
      writeFileSync(file, kubeconfigYaml({ server, caPem, token: componentTokens[user] }), { mode: 0o600 });
      return file;
    };

    s = Date.now();
    kcmOpts = {
      bin: bins['kube-controller-manager'],
      kubeconfig: componentKubeconfig('system:kube-controller-manager'),
      logFile: path.join(logs, 'kube-controller-manager.log'),
      port: kcmPort,
      saKeyFile,
      rootCaFile: path.join(dir, 'pki', 'apiserver.crt'),
    };
    const fluxKubeconfigs = Object.fromEntries(fluxNames.map((n) => [n, componentKubeconfig(`flux:${n}`)])) as Record<FluxController, string>;
    fluxOpts = {
      binDir,
      kubeconfig: (n) => fluxKubeconfigs[n],
      dir,
      logsDir: logs,
      ports: { sourceMetrics: sm, sourceHealth: sh, sourceStorage: ss, kustomizeMetrics: km, kustomizeHealth: kh, helmMetrics: hm, helmHealth: hh },
      requeueDependency: opts.requeueDependency ?? '5s',
      concurrent: opts.concurrent,
    };
    const kcm = (async () => {
      track(await starters['kube-controller-manager']());
      mark('kube-controller-manager', s);
    })();
    const flux = (async () => {
      if (fluxMode === 'pods') return;
      await installFluxCrds(kc, crdDir);
      await ensureNamespace(kc, FLUX_NAMESPACE);
      mark('flux-crds', s);
      const fs = Date.now();
      for (const p of await startFluxControllers(fluxOpts as FluxOptions, fluxNames)) track(p);
      mark('flux-controllers', fs);
    })();
    const nodeJoin = (async () => {
      if (!node) return;
      const n = node;
      await runtime;
      const ns = Date.now();
      track(await startScheduler({ bin: bins['kube-scheduler']!, kubeconfig: componentKubeconfig('system:kube-scheduler'), port: schedPort, logFile: path.join(logs, 'kube-scheduler.log') }));
      await n.join({ kubeconfig: componentKubeconfig('system:node:standup-node'), proxyKubeconfig: componentKubeconfig('system:kube-proxy'), kc, bins });
      mark('node-join', ns);
      // Cluster DNS, as every distribution runs it: pods resolve Services (in-cluster Flux needs it).
      const ds = Date.now();
      for (const m of corednsManifests({ image: corednsImage(binDir), clusterIp: n.info.dnsServiceIp })) await apply(kc, m);
      await waitDeploymentAvailable(kc, 'kube-system', 'coredns');
      mark('coredns', ds);
    })();
    const results = await Promise.allSettled([kcm, flux, nodeJoin]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    mark('total', t0);

    const info: TestbedInfo = {
      kubeconfigPath,
      contextName: CONTEXT_NAME,
      server,
      token,
      dir,
      logs,
      gitBaseUrl: http.baseUrl,
      gitRoot,
      gitWorkRoot,
      controlUrl: `${http.baseUrl}/-`,
      ports,
      binDir,
      fluxNamespace: FLUX_NAMESPACE,
      timings,
      auditLog,
      clusterGitBaseUrl: node ? `http://${node.info.hostIp}:${http.port}` : http.baseUrl,
      flux: fluxMode,
      ...(node ? { node: node.info } : {}),
    };
    writeFileSync(path.join(dir, INFO_FILE), JSON.stringify(info, null, 2));
    return {
      ...info,
      info,
      git: gitRepos(gitRoot, gitWorkRoot, http.baseUrl),
      operator: ops,
      kubeConfig: () => loadKubeConfig(kubeconfigPath),
      restartApiServer,
      restart,
      stop,
    };
  } catch (e) {
    const tail = e instanceof TestbedStartError ? logTail(e.logFile) : '';
    // A node that failed half-way still has to be cleaned up; prepareNode cleans up after itself when it throws.
    await stop();
    if (tail && e instanceof Error) e.message += tail;
    throw e;
  }
}
