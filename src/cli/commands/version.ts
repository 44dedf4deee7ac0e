import type { ClusterClient, K8sObject } from '../../cluster/client.js';
import type { LoadedKubeconfig } from '../../cluster/kubeconfig.js';
import { debug } from '../../model/debug.js';
import { ExitCode } from '../../model/errors.js';
import type { CliCommand } from '../command.js';
import type { Io } from '../io.js';
import { flagsOf, isDataFormat, outputFormat, renderDocument, type GlobalOptions } from '../options.js';
import { packageInfo } from '../package-info.js';

export interface VersionOptions extends GlobalOptions {
  client?: boolean;
  kubeconfig?: string;
  context?: string;
  requestTimeout?: string;
}

/** What Flux's objects in the cluster say about the installed Flux (`flux version` reads the same labels and images). */
export interface FluxInfo {
  /** The distribution version (`app.kubernetes.io/version` on the Flux CRDs), null when they carry none. */
  version: string | null;
  /** The Kustomization API versions the cluster serves, e.g. ["v1"]. */
  kustomizationApi: string[];
  /** Controller name -> image tag, from the Deployments labelled app.kubernetes.io/part-of=flux. */
  controllers: Record<string, string>;
  /** The namespaces those Deployments run in. */
  namespaces: string[];
}

/** `standup version -o json` (a contract: fields are added, never renamed). */
export interface VersionReport {
  client: { version: string; node: string; platform: string };
  server: { context: string; url: string; kubernetes: string; flux: FluxInfo | null } | null;
  /** Why there is no server part (no kubeconfig, unreachable, timed out); absent with --client. */
  serverError?: string;
}

const FLUX_KUSTOMIZATION_CRD = 'kustomizations.kustomize.toolkit.fluxcd.io';

const FORMATS = ['text', 'json', 'yaml'] as const;

export const versionCommand: CliCommand = {
  name: 'version',
  readsRepository: false,
  formats: FORMATS,
  define: (command, cli) => command
    .description('print the client version, and the cluster\'s Kubernetes and Flux versions when it is reachable')
    .option('--client', 'the client version only; do not contact a cluster')
    .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'kube context to ask (default: the current context)')
    .option('--request-timeout <duration>', 'give up on each request to the API server after this long', '5s')
    .addHelpText('after', `
The Flux version is the app.kubernetes.io/version label of the Flux CRDs (what \`flux install\` and the Flux
Operator set), with the image tag of each Flux controller Deployment. A cluster that cannot be reached is reported
on stderr and the command still exits 0 with the client version.

Examples:
  standup version
  standup version --client -o json
  standup version -o yaml --context prod`)
    .action(async (o, cmd) => cli.exit(await version(flagsOf(o, cmd), cli.io))),
};

/**
 * `standup version`: the client's version, and when a cluster is reachable its Kubernetes and Flux versions. Every
 * request gives up after --request-timeout (5 s), so it never hangs; an unreachable cluster is reported, exit 0.
 */
export async function version(o: VersionOptions, io: Io): Promise<number> {
  const format = outputFormat(o.output, FORMATS, 'text');
  const report: VersionReport = {
    client: { version: packageInfo().version, node: process.version, platform: `${process.platform}/${process.arch}` },
    server: null,
  };
  if (!o.client) {
    const [{ loadKubeconfig }, { parseDuration }] = await Promise.all([import('../../cluster/kubeconfig.js'), import('../../status/durations.js')]);
    const timeoutMs = o.requestTimeout ? parseDuration(o.requestTimeout) : 5000;
    // A --kubeconfig or --context that names nothing is bad input (exit 2); no kubeconfig at all is only reported.
    const explicit = o.kubeconfig !== undefined || o.context !== undefined;
    const kube = explicit ? loadKubeconfig({ kubeconfig: o.kubeconfig, context: o.context }) : undefined;
    try {
      report.server = await askServer(kube ?? loadKubeconfig({}), timeoutMs);
    } catch (e) {
      report.serverError = e instanceof Error ? e.message : String(e);
    }
  }
  if (isDataFormat(format)) {
    io.out(renderDocument(format, report));
  } else {
    io.out(renderVersionText(report));
    if (report.serverError) io.err(io.errStyle.yellow(`! server: ${report.serverError}\n`));
  }
  return ExitCode.ok;
}

async function askServer(kube: LoadedKubeconfig, timeoutMs: number): Promise<NonNullable<VersionReport['server']>> {
  const { createClusterClient } = await import('../../cluster/node-client.js');
  const client = createClusterClient(kube, { requestTimeoutMs: timeoutMs });
  debug(() => `version: asking ${kube.server} (context ${kube.context}), ${timeoutMs} ms per request`);
  // The three reads are independent; the Kubernetes version is the one that must work.
  const [kubernetes, crd, deployments] = await Promise.all([
    client.serverVersion(),
    optional('the Flux Kustomization CRD', () => client.find({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', namespace: null, name: FLUX_KUSTOMIZATION_CRD })),
    optional('the Flux Deployments', () => fluxDeployments(client)),
  ]);
  return { context: kube.context, url: kube.server, kubernetes: kubernetes.gitVersion, flux: fluxInfo(crd ?? undefined, deployments ?? []) };
}

/** A read that may fail (RBAC, an API the cluster does not serve) without failing the command: logged, then null. */
async function optional<T>(what: string, read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (e) {
    debug(() => `version: could not read ${what}: ${(e as Error).message}`);
    return null;
  }
}

/** Flux's Deployments in any namespace (Flux need not live in flux-system); flux-system alone if listing all is forbidden. */
async function fluxDeployments(client: ClusterClient): Promise<K8sObject[]> {
  const kind = { apiVersion: 'apps/v1', kind: 'Deployment' };
  const labelSelector = 'app.kubernetes.io/part-of=flux';
  try {
    return (await client.list(kind, { labelSelector })).items;
  } catch {
    return (await client.list({ ...kind, namespace: 'flux-system' }, { labelSelector })).items;
  }
}

/** Pure: what the Kustomization CRD and Flux's Deployments say; null when the CRD is not installed. */
export function fluxInfo(crd: K8sObject | undefined, deployments: K8sObject[]): FluxInfo | null {
  if (!crd) return null;
  const versions = ((crd.spec as { versions?: { name: string; served?: boolean }[] } | undefined)?.versions ?? [])
    .filter((v) => v.served !== false)
    .map((v) => v.name);
  const controllers: Record<string, string> = {};
  const namespaces = new Set<string>();
  for (const d of deployments) {
    const containers = ((d.spec as { template?: { spec?: { containers?: { name: string; image?: string }[] } } } | undefined)?.template?.spec?.containers ?? []);
    for (const c of containers) {
      const tag = imageTag(c.image);
      if (tag) controllers[imageName(c.image!) || c.name] = tag;
    }
    if (d.metadata.namespace) namespaces.add(d.metadata.namespace);
  }
  return { version: crd.metadata.labels?.['app.kubernetes.io/version'] ?? null, kustomizationApi: versions, controllers, namespaces: [...namespaces].sort() };
}

/** `ghcr.io/fluxcd/kustomize-controller:v1.3.0@sha256:…` -> `v1.3.0`; null without a tag. */
function imageTag(image: string | undefined): string | null {
  if (!image) return null;
  const noDigest = image.split('@')[0]!;
  const last = noDigest.split('/').pop()!;
  const i = last.lastIndexOf(':');
  return i > 0 ? last.slice(i + 1) : null;
}

const imageName = (image: string): string => image.split('@')[0]!.split('/').pop()!.split(':')[0]!;

export function renderVersionText(r: VersionReport): string {
  const lines = [`standup: ${r.client.version} (node ${r.client.node}, ${r.client.platform})`];
  if (r.server) {
    lines.push(`kubernetes: ${r.server.kubernetes} (context ${r.server.context}, ${r.server.url})`);
    const f = r.server.flux;
    if (!f) lines.push('flux: not installed (no Kustomization CRD)');
    else {
      const api = f.kustomizationApi.length ? `kustomize.toolkit.fluxcd.io/${f.kustomizationApi.join(', ')}` : 'Kustomization API';
      lines.push(`flux: ${f.version ?? 'version unknown (its CRDs carry no app.kubernetes.io/version label)'} (${api})`);
      const ctl = Object.entries(f.controllers).sort(([a], [b]) => a.localeCompare(b));
      if (ctl.length) lines.push(`  ${ctl.map(([n, t]) => `${n}: ${t}`).join(', ')}${f.namespaces.length ? ` (in ${f.namespaces.join(', ')})` : ''}`);
    }
  }
  return lines.join('\n') + '\n';
}
