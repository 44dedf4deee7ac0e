// Bootstraps done without a helmfile (a justfile module, a Taskfile, a shell script, k3s HelmChart manifests from an
// Ansible role) and the platforms a repository shows evidence of, each naming the file that is that evidence.
import { describe, expect, it, afterAll } from 'vitest';
import { readPreFluxInstalls } from '../../src/bootstrap/pre-flux-installs.js';
import { bootstrapSummary } from '../../src/lint/installers.js';
import { configSchema } from '../../src/model/config.js';
import type { ClusterModel, RenderedObject } from '../../src/model/flux.js';
import { renderedObject } from '../../src/render/rendered-cluster.js';
import { noMemo } from '../../src/repo/lazy-yaml.js';
import { scanHeader } from '../../src/repo/object-header.js';
import { cleanupRepos, makeRepo } from '../helpers/repo-fixtures.js';

afterAll(cleanupRepos);

const crdFile = (group: string, kind: string) =>
  `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${kind.toLowerCase()}s.${group}\nspec:\n  group: ${group}\n  names:\n    kind: ${kind}\n    plural: ${kind.toLowerCase()}s\n`;
const config = configSchema.parse({});
const read = (root: string, clusters: ClusterModel[] = []) => readPreFluxInstalls(root, config, clusters);
const groupsOf = (root: string, clusters: ClusterModel[] = []) => bootstrapSummary(clusters.length ? clusters : [emptyCluster([])], read(root, clusters)).flatMap((b) => b.groups).sort();
const emptyCluster = (objects: RenderedObject[]): ClusterModel => ({ name: 'dev', entry: 'clusters/dev', kustomizations: [], objects, objectsComplete: true, externalSources: [] });

describe('bootstrap commands outside helmfile', () => {
  it('a just module: kubectl apply of a CRD file and helm install of a known chart, with justfile_directory()', () => {
    const root = makeRepo({
      'bootstrap/mod.just': [
        'default:',
        '    kubectl apply --server-side -f {{justfile_directory()}}/crds/widgets.yaml',
        '    helm upgrade --install cert-manager jetstack/cert-manager \\',
        '      --namespace cert-manager --create-namespace',
        '    flux bootstrap github --owner me',
      ].join('\n'),
      'bootstrap/crds/widgets.yaml': crdFile('widgets.example.com', 'Widget'),
    });
    const b = read(root);
    expect(b.installs.map((i) => `${i.kind} ${i.name} ${i.file}:${i.line}`)).toEqual([
      'hook-apply widgets.yaml bootstrap/mod.just:2',
      'chart-install cert-manager bootstrap/mod.just:3',
    ]);
    expect(groupsOf(root)).toEqual(['acme.cert-manager.io', 'cert-manager.io', 'widgets.example.com']);
  });

  it("a shell script's own folder and literal variables are resolved; a variable set from the environment is a note", () => {
    const root = makeRepo({
      'bootstrap/standup.sh': [
        '#!/usr/bin/env bash',
        'HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
        'TOP=$(git rev-parse --show-toplevel)',
        'CRDS="$TOP/manifests/crds"',
        'kubectl apply --server-side -f "$HERE/crds/"',
        'kubectl apply -f "${CRDS}/gadgets.yaml"',
        'kubectl apply -f "${EXTRA:-x}/more.yaml"',
        'kubectl wait --for=condition=Established crd/widgets.widgets.example.com crd/sprockets.widgets.example.com',
      ].join('\n'),
      'bootstrap/crds/widgets.yaml': crdFile('widgets.example.com', 'Widget'),
      'manifests/crds/gadgets.yaml': crdFile('gadgets.example.com', 'Gadget'),
    });
    const b = read(root);
    expect(b.installs.map((i) => `${i.name} ${i.file}:${i.line}`)).toEqual([
      'crds bootstrap/standup.sh:5',
      'gadgets.yaml bootstrap/standup.sh:6',
      'kubectl wait widgets.example.com bootstrap/standup.sh:8',
    ]);
    expect(b.problems.map((p) => `${p.code} ${p.file}:${p.line}`)).toEqual(['bootstrap-unreadable bootstrap/standup.sh:7']);
    expect([...new Set(groupsOf(root))]).toEqual(['gadgets.example.com', 'widgets.example.com']);
  });

  it("a Talos machine configuration's cluster.extraManifests: a known URL is an install, any other a note with file:line", () => {
    const root = makeRepo({
      'talos/machineconfig.yaml.j2': [
        'machine:',
        '  type: {{ role }}',
        'cluster:',
        '  extraManifests:',
        '    - # renovate: datasource=github-releases depName=kubernetes-sigs/gateway-api',
        '      https://github.com/kubernetes-sigs/gateway-api/releases/download/v1.3.0/experimental-install.yaml',
        '    - https://example.com/unknown/manifest.yaml',
        '  allowSchedulingOnControlPlanes: true',
        '  network:',
        '    cni: {name: none}',
        '    podSubnets: [https://not-a-manifest.example]',
      ].join('\n'),
    });
    const b = read(root);
    expect(b.installs.map((i) => `${i.name} ${i.groups.join(',')} ${i.file}:${i.line}`)).toEqual(['experimental-install.yaml gateway.networking.k8s.io talos/machineconfig.yaml.j2:6']);
    expect(b.problems.map((p) => `${p.code} ${p.file}:${p.line}`)).toEqual(['bootstrap-unreadable talos/machineconfig.yaml.j2:7']);
  });

  it("a custom CNI Talos installs (cluster.network.cni.urls, talhelper's cniConfig): the software its URL names, and this repository's copy of the file read for CRDs", () => {
    const root = makeRepo({
      'talos/generated/controlplane.yaml': [
        'cluster:',
        '  network:',
        '    cni:',
        '      name: custom',
        '      urls:',
        '        - https://raw.githubusercontent.com/someone/home/main/talos/integrations/cilium/cilium.yaml',
        '    podSubnets: [10.244.0.0/16]',
        '  extraManifests:',
        '    - https://raw.githubusercontent.com/someone/home/refs/heads/main/talos/integrations/approver/approver.yaml',
        '    - https://raw.githubusercontent.com/someone/home/main/talos/integrations/gadgets/gadgets.yaml',
        '    - https://example.com/elsewhere/thing.yaml',
      ].join('\n'),
      'talconfig.yaml': ['cniConfig:', '  name: custom', '  urls:', '    - https://example.com/calico/tigera-operator.yaml'].join('\n'),
      'talos/integrations/cilium/cilium.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cilium-operator\n',
      'talos/integrations/approver/approver.yaml': 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: approver\n',
      'talos/integrations/gadgets/gadgets.yaml': crdFile('gadgets.example.com', 'Gadget'),
    });
    const b = read(root);
    expect(b.installs.map((i) => `${i.name} chart=${i.chart} groups=${i.groups.join(',')} ${i.file}:${i.line}`).sort()).toEqual([
      'approver.yaml chart=null groups= talos/generated/controlplane.yaml:9',
      'cilium.yaml chart=cilium groups= talos/generated/controlplane.yaml:6',
      'gadgets.yaml chart=null groups=gadgets.example.com talos/generated/controlplane.yaml:10',
      'tigera-operator.yaml chart=tigera-operator groups= talconfig.yaml:4',
    ]);
    expect(b.problems.map((p) => `${p.code} ${p.file}:${p.line} ${p.message.includes('(cluster.extraManifests)')}`)).toEqual(['bootstrap-unreadable talos/generated/controlplane.yaml:11 true']);
  });

  it('a Taskfile: {{.ROOT_DIR}} is resolved; a command whose target is a variable is a note with file:line', () => {
    const root = makeRepo({
      'Taskfile.yaml': [
        'version: "3"',
        'tasks:',
        '  bootstrap:',
        '    cmds:',
        '      - kubectl apply -f {{.ROOT_DIR}}/bootstrap/crds.yaml',
        '      - kubectl apply -k {{.CLUSTER_DIR}}/crds',
        '      - flux install',
      ].join('\n'),
      'bootstrap/crds.yaml': crdFile('gadgets.example.com', 'Gadget'),
    });
    const b = read(root);
    expect(b.installs.map((i) => `${i.name} ${i.file}:${i.line}`)).toEqual(['crds.yaml Taskfile.yaml:5']);
    expect(b.problems.map((p) => `${p.severity} ${p.code} ${p.file}:${p.line}`)).toEqual(['info bootstrap-unreadable Taskfile.yaml:6']);
    expect(b.problems[0]!.message).toContain('{{.CLUSTER_DIR}}/crds');
  });

  it('a shell script applying a CRD URL before flux bootstrap; a script that does not bootstrap Flux is not read', () => {
    const root = makeRepo({
      'scripts/setup.sh': '#!/bin/sh\nset -e\nkubectl apply -f https://raw.githubusercontent.com/prometheus-operator/prometheus-operator/v0.80.0/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml\nflux bootstrap git --url=ssh://x\n',
      'scripts/test.sh': '#!/bin/sh\nkubectl apply -f crds/other.yaml\n',
      'scripts/crds/other.yaml': crdFile('other.example.com', 'Other'),
    });
    expect(groupsOf(root)).toEqual(['monitoring.coreos.com']);
  });

  it('a k3s HelmChart template of an Ansible role installs its chart before Flux; one a tier applies does not', () => {
    const root = makeRepo({
      'ansible/roles/k3s/templates/cilium.yaml.j2': 'apiVersion: helm.cattle.io/v1\nkind: HelmChart\nmetadata:\n  name: cilium\n  namespace: kube-system\nspec:\n  repo: https://helm.cilium.io/\n  chart: cilium\n  version: "{{ cilium_version }}"\n  targetNamespace: kube-system\n',
      'ansible/roles/k3s/templates/other.yaml.j2': 'apiVersion: helm.cattle.io/v1\nkind: HelmChart\nmetadata:\n  name: other\nspec:\n  chart: "{{ other_chart }}"\n',
    });
    const b = read(root);
    expect(b.installs.map((i) => `${i.kind} ${i.name} ${i.chart} ${i.file}:${i.line}`)).toEqual(['chart-install cilium cilium ansible/roles/k3s/templates/cilium.yaml.j2:8']);
    expect(b.problems.map((p) => `${p.code} ${p.file}:${p.line}`)).toEqual(['bootstrap-unreadable ansible/roles/k3s/templates/other.yaml.j2:6']);
    expect(groupsOf(root)).toContain('cilium.io');
    expect(b.platforms).toEqual([{ platform: 'k3s', from: expect.stringContaining('ansible/roles/k3s/templates/cilium.yaml.j2 (a k3s HelmChart manifest') }]);
  });
});

describe('helmfiles rendered for their CRDs only', () => {
  it('a helmfile whose helmDefaults pass --include-crds (a helm template flag) installs no release; one without does', () => {
    const root = makeRepo({
      'bootstrap/helmfile.d/00-crds.yaml': 'helmDefaults:\n  args:\n    - --include-crds\n    - --no-hooks\nreleases:\n  - name: envoy-gateway\n    namespace: network\n    chart: oci://docker.io/envoyproxy/gateway-helm\n',
      'bootstrap/helmfile.d/01-apps.yaml': 'helmDefaults:\n  wait: true\nreleases:\n  - name: cilium\n    namespace: kube-system\n    chart: cilium/cilium\n',
    });
    expect(read(root).installs.map((i) => [i.name, i.crdsOnly ?? false])).toEqual([['envoy-gateway', true], ['cilium', false]]);
  });
});

describe('platforms inferred from evidence, each naming what the file is', () => {
  const obj = (kind: string, apiVersion: string, raw: Record<string, unknown>, file: string): RenderedObject => ({ apiVersion, kind, name: 'x', namespace: null, origin: { file, line: 1 }, owner: 'flux-system/infra', raw: { apiVersion, kind, ...raw } });

  it('a schematic is named a schematic; a machine configuration beside it wins and is named as one', () => {
    const only = makeRepo({ 'talos/schematic.yaml': 'customization:\n  systemExtensions: {}\n' });
    expect(read(only).platforms).toEqual([{ platform: 'talos', from: 'talos/schematic.yaml (a Talos Image Factory schematic)' }]);
    const both = makeRepo({ 'talos/schematic.yaml': 'customization:\n  systemExtensions: {}\n', 'talos/nodes/cp1.yaml': 'version: v1alpha1\nmachine:\n  type: controlplane\n' });
    expect(read(both).platforms).toEqual([{ platform: 'talos', from: 'talos/nodes/cp1.yaml (a Talos machine configuration)' }]);
    // The summary's install names the evidence; its file is the file alone (JSON consumers open it).
    const summary = bootstrapSummary([emptyCluster([])], read(both)).find((b) => b.name === 'platform talos')!;
    expect(summary).toMatchObject({ file: 'talos/nodes/cp1.yaml', via: 'declared in talos/nodes/cp1.yaml (a Talos machine configuration)' });
  });

  it.each([
    ['gke', obj('StorageClass', 'storage.k8s.io/v1', { provisioner: 'pd.csi.storage.gke.io' }, 'infra/sc.yaml'), 'infra/sc.yaml (a StorageClass of the GKE persistent disk driver)'],
    ['eks', obj('ServiceAccount', 'v1', { metadata: { annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::1:role/x' } } }, 'infra/sa.yaml'), 'infra/sa.yaml (an EKS IAM role annotation (IRSA))'],
    ['aks', obj('StorageClass', 'storage.k8s.io/v1', { provisioner: 'disk.csi.azure.com' }, 'infra/sc.yaml'), 'infra/sc.yaml (a StorageClass of the Azure disk/file driver)'],
    ['openshift', obj('SecurityContextConstraints', 'security.openshift.io/v1', {}, 'infra/scc.yaml'), 'infra/scc.yaml (an object of an OpenShift-only API group)'],
  ])('%s from what a tier applies', (platform, o, from) => {
    expect(read(makeRepo({ 'README.md': 'x' }), [emptyCluster([o])]).platforms).toEqual([{ platform, from }]);
  });

  it('objects read from kustomize output: the annotation is found, and an object that does not mention one is never parsed', () => {
    const parsed: string[] = [];
    const rendered = (text: string, file: string) => {
      const o = renderedObject(scanHeader(text), { file, line: 1 }, 'flux-system/infra', text, noMemo);
      const raw = Object.getOwnPropertyDescriptor(o, 'raw')!.get!;
      Object.defineProperty(o, 'raw', { enumerable: true, get: () => (parsed.push(o.name), raw()) });
      return o;
    };
    const plain = rendered('apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    a: b\n', 'apps/web.yaml');
    const sa = rendered('apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n  annotations:\n    eks.amazonaws.com/role-arn: arn:aws:iam::1:role/x\n', 'infra/sa.yaml');
    // Named in a value, not as an annotation: parsed, and not evidence.
    const value = rendered('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  note: iam.gke.io/gcp-service-account\n', 'apps/cm.yaml');
    expect(read(makeRepo({ 'README.md': 'x' }), [emptyCluster([plain, value, sa])]).platforms).toEqual([{ platform: 'eks', from: 'infra/sa.yaml (an EKS IAM role annotation (IRSA))' }]);
    expect(parsed).not.toContain('web');
    expect(parsed).toEqual(expect.arrayContaining(['cm', 'sa']));
  });

  it.each([
    ['eks', 'terraform/main.tf', 'module "eks" {\n  source = "terraform-aws-modules/eks/aws"\n}\n', 'terraform/main.tf (an EKS cluster in Terraform)'],
    ['aks', 'bicep/main.bicep', "resource aks 'Microsoft.ContainerService/managedClusters@2024-01-01' = {}\n", 'bicep/main.bicep (an AKS cluster in Bicep)'],
    ['gke', 'infra/gke.tf', 'resource "google_container_cluster" "main" {}\n', 'infra/gke.tf (a GKE cluster in Terraform)'],
    ['eks', 'eksctl/cluster.yaml', 'apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\n', 'eksctl/cluster.yaml (an eksctl ClusterConfig)'],
  ])('%s from infrastructure code (%s)', (platform, file, text, from) => {
    expect(read(makeRepo({ [file]: text })).platforms).toEqual([{ platform, from }]);
  });
});
