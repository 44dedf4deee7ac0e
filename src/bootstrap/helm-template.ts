// Renders a flux-operator chart with the real helm (`helm template`), for bootstrap.install naming a chart: the
// objects then go the way rendered manifests go (context guard, dry-run, server-side apply, wait), carrying helm's
// ownership metadata so that the repository's own HelmRelease of the chart adopts them later (helm-ownership.ts).
import { spawn } from 'node:child_process';
import type { K8sObject } from '../model/k8s.js';
import { parseText } from '../repo/manifests.js';
import { yaml } from '../repo/lazy-yaml.js';
import type { ChartSource } from './chart-source.js';
import { withHelmOwnership } from './helm-ownership.js';

/**
 * Whether an oci:// chart lives on this machine's loopback (127.0.0.0/8, localhost, [::1]): helm then talks plain HTTP
 * to it (`--plain-http`), as a local registry (a test's, `registry:2` on localhost) serves no TLS; any other host is
 * the user's registry over HTTPS, as helm does by default.
 */
export function isLoopbackOci(chart: string): boolean {
  const m = /^oci:\/\/(\[[^\]]+\]|[^/:]+)/.exec(chart);
  if (!m) return false;
  const host = m[1]!.toLowerCase();
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const isLocal = (chart: string) => chart.startsWith('/');

/** helm's arguments for rendering `src`: `template <release> <chart> --namespace <ns> --include-crds [--version] [--repo] [-f ...] [-f -]`. */
export function helmArgv(src: ChartSource): string[] {
  return [
    'template', src.release, src.chart,
    '--namespace', src.namespace,
    // CRDs are what the FluxInstance needs first: without this flag helm template leaves a chart's crds/ out.
    '--include-crds',
    // A local chart is what it is: --version is for charts helm downloads.
    ...(src.version && !isLocal(src.chart) ? ['--version', src.version] : []),
    ...(src.repo ? ['--repo', src.repo] : []),
    ...(isLoopbackOci(src.chart) ? ['--plain-http'] : []),
    ...src.valueFiles.flatMap((f) => ['-f', f]),
    // Inline values come on stdin, last (they win), never through a file: they may come from a Secret.
    ...(src.values ? ['-f', '-'] : []),
  ];
}

export type HelmOutcome =
  | { ok: true; objects: K8sObject[] }
  | { ok: false; reason: 'not-started'; message: string }
  | { ok: false; reason: 'failed'; exitCode: number | null; stderr: string };

/** Runs `helm template` and returns the rendered objects with helm's ownership metadata, or why it did not render. */
export async function renderChart(helm: string, src: ChartSource, shownChart: string): Promise<HelmOutcome> {
  const r = await run(helm, helmArgv(src), src.values ? yaml().stringify(src.values) : null, src.cwd);
  if (r.error) return { ok: false, reason: 'not-started', message: r.error };
  if (r.exitCode !== 0) return { ok: false, reason: 'failed', exitCode: r.exitCode, stderr: r.stderr.trim() };
  const objects = parseText(r.stdout, `helm template ${src.release} ${shownChart}`).filter((o) => o && typeof o === 'object' && o.kind && o.metadata?.name);
  return { ok: true, objects: withHelmOwnership(objects, src.release, src.namespace) };
}

interface Ran {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  error: string | null;
}

/** Like repo/run-process.ts, with `input` on stdin (the values; nothing on disk). */
function run(bin: string, args: readonly string[], input: string | null, cwd: string): Promise<Ran> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let error: string | null = null;
    const child = spawn(bin, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) => (error = e.message));
    // helm may exit before reading stdin (a chart it cannot find): that EPIPE is not the error to report.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
    child.on('close', (exitCode) => resolve({ exitCode, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), error }));
  });
}
