// k3s (and rke2) install every HelmChart manifest placed in the server's manifests folder before anything else runs;
// Ansible roles and cluster templates keep them in the repository (often as Jinja templates, `*.yaml.j2`). A
// HelmChart (helm.cattle.io) that no cluster's tier applies is such a pre-Flux install: its chart is looked up in
// the chart table. Read as text, since a template need not parse as YAML; a chart that is a template variable is a
// `bootstrap-unreadable` note.
import { readFileSync } from 'node:fs';
import type { BootstrapInstall } from '../model/bootstrap.js';
import type { ClusterModel } from '../model/flux.js';
import type { Problem } from '../model/problem.js';

/** Adds the k3s HelmCharts no tier applies to `installs`; returns the first such file (evidence of k3s), or null. */
export function readK3sHelmCharts(files: string[], rel: (abs: string) => string, clusters: readonly ClusterModel[], installs: BootstrapInstall[], problems: Problem[]): string | null {
  const applied = new Set(clusters.flatMap((c) => c.objects.filter((o) => o.kind === 'HelmChart').map((o) => o.origin.file)));
  let found: string | null = null;
  for (const f of files) {
    if (applied.has(rel(f))) continue;
    let text: string;
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    if (!/kind:\s*HelmChart\b/.test(text) || !/apiVersion:\s*helm\.cattle\.io\//.test(text)) continue;
    let offset = 0;
    for (const doc of text.split(/^---.*$/m)) {
      const line = text.slice(0, text.indexOf(doc, offset)).split('\n').length;
      offset += doc.length;
      if (!/^kind:\s*HelmChart\s*$/m.test(doc) || !/^apiVersion:\s*helm\.cattle\.io\//m.test(doc)) continue;
      found ??= rel(f);
      const name = /^metadata:\s*\n(?:\s+.*\n)*?\s+name:\s*["']?([^\s"'#]+)/m.exec(doc)?.[1] ?? null;
      const chart = /^\s+chart:\s*["']?([^\s"'#]+)/m.exec(doc)?.[1] ?? null;
      const ns = /^\s+targetNamespace:\s*["']?([^\s"'#]+)/m.exec(doc)?.[1] ?? null;
      const chartLine = chart ? line + doc.slice(0, doc.search(/^\s+chart:/m)).split('\n').length - 1 : line;
      if (!chart || /\{\{|\{%|\$/.test(chart)) {
        problems.push({
          code: 'bootstrap-unreadable',
          severity: 'info',
          message: `${rel(f)}:${chartLine} is a k3s HelmChart installed before Flux, but its chart ${chart ? `(${chart}) is a template variable` : 'is not set'}: which CRDs it brings is not known. If the tiers use them, declare them in tiers.yaml (externalCrds).`,
          file: rel(f),
          line: chartLine,
          object: null,
          cluster: null,
        });
        continue;
      }
      installs.push({ name: name && !/\{\{|\{%/.test(name) ? name : chart, namespace: ns && !/\{\{|\{%/.test(ns) ? ns : null, kind: 'chart-install', chart, groups: [], file: rel(f), line: chartLine });
    }
  }
  return found;
}
