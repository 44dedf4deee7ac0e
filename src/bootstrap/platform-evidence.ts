// Which platforms a repository's clusters run on, when tiers.yaml does not say (`platform:`): inferred from what
// only that platform has, each with the evidence named (the file, and what it is). Talos: a machine configuration,
// a talhelper talconfig.yaml, an Image Factory schematic in a talos/ folder, a TalosUpgrade a tier applies. GKE, EKS,
// AKS: a StorageClass of the provider's CSI driver, a workload-identity annotation, the provider's cluster in
// Terraform or Bicep, an eksctl ClusterConfig. OpenShift/OKD: an install-config.yaml, or objects of the groups only
// OpenShift serves (config, operator, security). k3s: HelmChart manifests for its deploy folder.
import { readFileSync } from 'node:fs';
import type { PlatformUse } from '../model/bootstrap.js';
import type { StandupConfig } from '../model/config.js';
import type { ClusterModel, RenderedObject } from '../model/flux.js';
import type { Obj } from '../model/k8s.js';
import type { Platform } from '../model/platforms.js';
import { groupOf } from '../model/ref.js';
import { findFiles } from './find-files.js';

const read = (f: string): string => {
  try {
    return readFileSync(f, 'utf8');
  } catch {
    return '';
  }
};

/** What a YAML file under talos/ (or talconfig.yaml) is, by its top-level keys; null when it is no Talos file. */
function talosFile(r: string, text: () => string): string | null {
  if (/(^|\/)talconfig\.ya?ml$/.test(r)) return 'a talhelper configuration';
  if (!/(^|\/)talos\//.test(r)) return null;
  const t = text();
  if (/^machine:\s*$/m.test(t)) return 'a Talos machine configuration';
  if (/^talos_?[vV]ersion:/m.test(t)) return 'a talhelper configuration';
  if (/^customization:\s*$/m.test(t)) return 'a Talos Image Factory schematic';
  return null;
}

/**
 * Evidence in what the clusters apply: a CSI provisioner, a workload identity annotation, OpenShift-only groups.
 * `raw` parses the object, so each test looks at kind and group first; `mention` is text the object must contain
 * for the test to hold (most objects are never parsed in full, and an annotation key can only be where it is written).
 */
const OBJECT_EVIDENCE: { platform: Platform; what: string; mention?: string; test: (o: RenderedObject, raw: () => Obj) => boolean }[] = [
  { platform: 'gke', what: 'a StorageClass of the GKE persistent disk driver', test: (o, raw) => o.kind === 'StorageClass' && /^(pd\.csi\.storage\.gke\.io|kubernetes\.io\/gce-pd)$/.test(String(raw().provisioner)) },
  { platform: 'gke', what: 'a GKE workload identity annotation', mention: 'iam.gke.io/gcp-service-account', test: (_o, raw) => 'iam.gke.io/gcp-service-account' in (raw().metadata?.annotations ?? {}) },
  { platform: 'eks', what: 'a StorageClass of the AWS EBS/EFS driver', test: (o, raw) => o.kind === 'StorageClass' && /^(ebs\.csi\.aws\.com|efs\.csi\.aws\.com|kubernetes\.io\/aws-ebs)$/.test(String(raw().provisioner)) },
  { platform: 'eks', what: 'an EKS IAM role annotation (IRSA)', mention: 'eks.amazonaws.com/role-arn', test: (_o, raw) => 'eks.amazonaws.com/role-arn' in (raw().metadata?.annotations ?? {}) },
  { platform: 'aks', what: 'a StorageClass of the Azure disk/file driver', test: (o, raw) => o.kind === 'StorageClass' && /^(disk\.csi\.azure\.com|file\.csi\.azure\.com|kubernetes\.io\/azure-(disk|file))$/.test(String(raw().provisioner)) },
  { platform: 'aks', what: 'an Azure workload identity annotation', mention: 'azure.workload.identity/client-id', test: (_o, raw) => 'azure.workload.identity/client-id' in (raw().metadata?.annotations ?? {}) },
  { platform: 'openshift', what: 'an object of an OpenShift-only API group', test: (o) => /^(config|operator|security)\.openshift\.io$/.test(groupOf(o.apiVersion)) },
  { platform: 'talos', what: 'a TalosUpgrade', test: (o) => o.kind === 'TalosUpgrade' },
];

/** Evidence in infrastructure code beside the manifests: the managed cluster as Terraform, Bicep or eksctl declare it. */
const FILE_EVIDENCE: { platform: Platform; what: string; name: RegExp; text: RegExp }[] = [
  { platform: 'gke', what: 'a GKE cluster in Terraform', name: /\.tf$/, text: /resource\s+"google_container_cluster"/ },
  { platform: 'eks', what: 'an EKS cluster in Terraform', name: /\.tf$/, text: /resource\s+"aws_eks_cluster"|source\s*=\s*"terraform-aws-modules\/eks\/aws"/ },
  { platform: 'eks', what: 'an eksctl ClusterConfig', name: /\.ya?ml$/, text: /^apiVersion:\s*eksctl\.io\//m },
  { platform: 'aks', what: 'an AKS cluster in Terraform', name: /\.tf$/, text: /resource\s+"azurerm_kubernetes_cluster"/ },
  { platform: 'aks', what: 'an AKS cluster in Bicep', name: /\.bicep$/, text: /Microsoft\.ContainerService\/managedClusters/ },
  { platform: 'openshift', what: 'an OpenShift install-config', name: /(^|\/)install-config\.ya?ml$/, text: /^baseDomain:/m },
];

export function inferPlatforms(config: StandupConfig, root: string, yamlFiles: string[], rel: (abs: string) => string, clusters: readonly ClusterModel[], k3sHelmChart: string | null): PlatformUse[] {
  if (config.platform?.length) return config.platform.map((platform) => ({ platform, from: 'tiers.yaml' }));
  const out = new Map<Platform, string>();
  const found = (p: Platform, from: string) => {
    if (!out.has(p)) out.set(p, from);
  };
  // The strongest Talos evidence names the file: a machine configuration, then talhelper's, then a schematic.
  const rank = ['a Talos machine configuration', 'a talhelper configuration', 'a Talos Image Factory schematic'];
  let talos: { r: string; what: string } | null = null;
  for (const f of yamlFiles) {
    const r = rel(f);
    const what = talosFile(r, () => read(f));
    if (what && (!talos || rank.indexOf(what) < rank.indexOf(talos.what))) talos = { r, what };
  }
  if (talos) found('talos', `${talos.r} (${talos.what})`);
  for (const c of clusters) {
    for (const o of c.objects) {
      const raw = () => o.raw as Obj;
      for (const e of OBJECT_EVIDENCE) {
        if (out.has(e.platform) || (e.mention !== undefined && o.mentions?.(e.mention) === false)) continue;
        if (e.test(o, raw)) found(e.platform, `${o.origin.file} (${e.what})`);
      }
    }
  }
  for (const f of [...yamlFiles, ...infraFiles(root)]) {
    const r = rel(f);
    for (const e of FILE_EVIDENCE) if (!out.has(e.platform) && e.name.test(r) && e.text.test(read(f))) found(e.platform, `${r} (${e.what})`);
  }
  if (k3sHelmChart) found('k3s', `${k3sHelmChart} (a k3s HelmChart manifest, installed from its server's manifests folder)`);
  return [...out].map(([platform, from]) => ({ platform, from }));
}

/** Terraform and Bicep files, at most four folders deep (they sit beside the manifests, in terraform/, infra/, bicep/). */
const infraFiles = (root: string): string[] =>
  findFiles(root, { maxDepth: 4, skipDir: (n) => n.startsWith('.') || n === 'node_modules', keep: (p) => /\.(tf|bicep)$/.test(p) });
