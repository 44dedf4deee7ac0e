// The files a run applies as they are (the Flux install, the root sync, a FluxInstance, the CRD fallback), each read
// once per run, and started while the repository loads: a kustomization directory's build then runs beside the
// load's instead of after it (on an 8-tier chain, `up` waited ~75 ms for the root sync's kustomize once the load was
// done), and a large install file is parsed while the load waits on its own kustomize processes. Reading ahead only
// reads; an error is raised where readTarget uses the result, in the order it uses them, as when it read them itself.
import path from 'node:path';
import { statSync } from 'node:fs';
import type { K8sObject } from '../model/k8s.js';
import type { StandupConfig } from '../model/config.js';
import type { TextMemo } from '../repo/lazy-yaml.js';
import { readManifests } from '../repo/manifests.js';
import { chartForm } from '../bootstrap/operator-chart.js';

type Install = NonNullable<NonNullable<StandupConfig['clusters'][string]['bootstrap']>['install']>;

/** The file or directory tiers.yaml's bootstrap.install names to apply (Flux's install or flux-operator's), or null. */
export function installFileOf(install: Install | undefined): string | null {
  if (!install || install === 'already-running') return null;
  return 'path' in install ? install.path : install.operator;
}

export class ManifestReads {
  private readonly reads = new Map<string, Promise<K8sObject[]>>();

  /** @param root the repository's work tree (paths in tiers.yaml are relative to it) */
  constructor(readonly root: string, private readonly memo: TextMemo) {}

  /**
   * The objects in `file` (relative to the root), read on the first call. Each caller gets objects of its own (one
   * file can be both the install and the CRD fallback, and the runner may add to what it applies): a copy of the
   * read, which stays as it was read.
   */
  read(file: string): Promise<K8sObject[]> {
    return this.start(file).then((objects) => structuredClone(objects));
  }

  private start(file: string): Promise<K8sObject[]> {
    let p = this.reads.get(file);
    if (!p) {
      p = readManifests(path.resolve(this.root, file), file, this.memo);
      void p.catch(() => undefined); // raised where it is awaited: one read ahead and never used is no unhandled rejection
      this.reads.set(file, p);
    }
    return p;
  }

  /** The chart form of `file` (see bootstrap/operator-chart.ts), looked at through the same memo as its objects. */
  chartForm(file: string): ReturnType<typeof chartForm> {
    return chartForm(path.resolve(this.root, file), file, this.memo);
  }

  /**
   * Starts what a run for cluster `name` reads from tiers.yaml's entry: kustomization directories first (their
   * builds run in other processes), files after. A chart (rendered with helm when the run needs it) is not read.
   */
  readAhead(config: StandupConfig, name: string, fallback: boolean): void {
    const entry = config.clusters[name];
    const install = entry?.bootstrap?.install;
    const files = [
      ...(fallback ? [...config.crds, ...(entry?.crds ?? [])] : []),
      ...(install && install !== 'already-running' && 'instance' in install ? [install.instance] : []),
      ...(entry?.bootstrap?.sync ? [entry.bootstrap.sync] : []),
    ];
    const isDir = (f: string) => {
      try {
        return statSync(path.resolve(this.root, f)).isDirectory();
      } catch {
        return false;
      }
    };
    const dirs = files.filter(isDir);
    for (const f of dirs) void this.start(f);
    const installFile = installFileOf(install);
    if (installFile && !this.chartForm(installFile)) void this.start(installFile);
    for (const f of files) if (!dirs.includes(f)) void this.start(f);
  }
}
