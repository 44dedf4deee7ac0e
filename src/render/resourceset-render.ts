// A ResourceSet a tier applies, expanded as flux-operator would (src/resourceset): its ResourceSetInputProviders
// looked up among what the cluster applies (waiting for the other renders, as a provider may come from a tier not
// rendered yet), its objects added to the cluster with the ResourceSet as their owner and its file:line as their
// origin, and the Kustomizations and ResourceSets among them rendered in turn. A template that does not render is a
// build-failed error with the operator's words; a provider whose inputs need the network is an input-provider info
// naming the tiers.yaml key that supplies them. Nothing it would apply is guessed.
import type { FluxKustomization, FluxResourceSet, Origin, ResourceSetDependsOn } from '../model/flux.js';
import { resourceSetKey } from '../model/flux.js';
import type { Obj } from '../model/k8s.js';
import { refKey } from '../model/ref.js';
import { materialize, type BuiltObject } from '../repo/kustomize-output.js';
import { expandResourceSet } from '../resourceset/expand.js';
import type { InputSet } from '../resourceset/inputs.js';
import { readResourceSetSpec } from '../resourceset/spec.js';
import { isFluxKustomization, toFluxKustomization } from './flux-kustomization.js';
import type { RenderContext } from './render-context.js';
import type { RenderScheduler } from './render-scheduler.js';
import type { RenderedCluster } from './rendered-cluster.js';

export const isResourceSet = (o: { kind?: unknown; apiVersion?: unknown }): boolean =>
  o.kind === 'ResourceSet' && typeof o.apiVersion === 'string' && o.apiVersion.startsWith('fluxcd.controlplane.io/');

export const isInputProvider = (o: { kind?: unknown; apiVersion?: unknown }): boolean =>
  o.kind === 'ResourceSetInputProvider' && typeof o.apiVersion === 'string' && o.apiVersion.startsWith('fluxcd.controlplane.io/');

/** Namespaced kinds a template commonly generates: without metadata.namespace the operator's apply fails. */
const NAMESPACED = new Set([
  'ConfigMap', 'Secret', 'ServiceAccount', 'Service', 'Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob', 'Role', 'RoleBinding',
  'PersistentVolumeClaim', 'Ingress', 'NetworkPolicy', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Kustomization', 'HelmRelease',
  'GitRepository', 'OCIRepository', 'HelmRepository', 'HelmChart', 'Bucket', 'ResourceSet', 'ResourceSetInputProvider', 'FluxInstance',
  'ImageRepository', 'ImagePolicy', 'ImageUpdateAutomation', 'Alert', 'Provider', 'Receiver',
]);

/** What the cluster's renderer does with the Kustomizations and ResourceSets a ResourceSet generates. */
export interface GeneratedSink {
  kustomization(k: FluxKustomization): void;
  resourceSet(rs: FluxResourceSet): void;
}

export class ResourceSetRender {
  constructor(
    private readonly ctx: RenderContext,
    private readonly cluster: RenderedCluster,
    private readonly scheduler: RenderScheduler,
  ) {}

  /** The model of a ResourceSet in a build's output, not expanded yet. */
  toResourceSet(b: BuiltObject, parent: string | null, defaultNs: string, origin: Origin): FluxResourceSet {
    const raw = materialize(b.text, this.ctx.memo) as Obj;
    return this.fromRaw(raw, parent, defaultNs, origin, b.file && !b.generated ? this.ctx.artifacts.source(b.file) : null);
  }

  /** Expands `rs` and hands what it generates to `sink`; problems go to the cluster. */
  async expand(rs: FluxResourceSet, sink: GeneratedSink): Promise<void> {
    const c = this.cluster;
    const { spec } = readResourceSetSpec(rs.raw);
    const named = (spec?.inputsFrom ?? []).map((r) => r.name).filter((n): n is string => n !== null);
    const providersIn = (ns: string) => c.objects.filter((o) => isInputProvider(o) && (o.namespace ?? ns) === ns).map((o) => o.raw as Obj);
    // A provider may be applied by a tier still rendering (or one put off): look again once the others are done.
    if (named.some((n) => !providersIn(rs.namespace).some((p) => p.metadata?.name === n))) {
      await this.scheduler.lookEverywhere(() => named.some((n) => !providersIn(rs.namespace).some((p) => p.metadata?.name === n)));
    } else if ((spec?.inputsFrom ?? []).some((r) => r.selector !== null)) {
      await this.scheduler.lookEverywhere(() => false);
    }
    const out = expandResourceSet(rs.raw, { inNamespace: providersIn }, this.ctx.resourceSetInputs);
    const object = refKey({ kind: 'ResourceSet', namespace: rs.namespace, name: rs.name });
    if (!out.ok && out.reason === 'build-failed') {
      rs.expansion = 'build-failed';
      c.problem({
        code: 'build-failed',
        severity: 'error',
        message:
          `${object} does not build, so nothing it would apply is in the graph; flux-operator would stall it (BuildFailed): ${out.message}` +
          (out.unsupportedFunction ? `. The template calls ${out.unsupportedFunction}, which standup cannot evaluate offline; use another function or suppress this finding` : ''),
        file: rs.origin.file,
        line: rs.origin.line,
        object,
      });
      return;
    }
    if (!out.ok) {
      rs.expansion = 'inputs-unknown';
      rs.providers = out.providers.map((p) => `${p.namespace}/${p.name}`);
      for (const p of out.providers) {
        c.problem({
          code: 'input-provider',
          severity: 'info',
          message:
            `${object} is not expanded: its ResourceSetInputProvider ${p.namespace}/${p.name} (type ${p.type}) exports inputs only at run time ` +
            `(from its API or the cluster), so what the ResourceSet applies is neither in the graph nor checked. Set ` +
            `resourceSetInputs."${p.namespace}/${p.name}" in tiers.yaml to the input sets it exports to expand it.`,
          file: rs.origin.file,
          line: rs.origin.line,
          object,
        });
      }
      return;
    }
    rs.expansion = 'built';
    rs.inputSets = out.inputSets;
    rs.providers = [...new Set([...(spec?.inputsFrom ?? []).flatMap((r) => (r.name ? [`${rs.namespace}/${r.name}`] : [])), ...out.configured, ...out.standInIds.map((s) => s.provider)])].sort();
    const objects = out.steps.flatMap((s) => s.objects);
    rs.generated = objects.map((o) => refKey({ kind: String(o.kind), namespace: str((o.metadata as Obj | undefined)?.namespace), name: String((o.metadata as Obj | undefined)?.name ?? '') }));
    const base = c.rank.get(rs) ?? [];
    objects.forEach((o, i) => this.add(rs, o as Obj, [...base, i], sink));
    for (const s of out.standInIds) {
      const id = s.id;
      if (!rs.generated.some((g) => g.includes(id))) continue;
      c.problem({
        code: 'input-provider',
        severity: 'info',
        message:
          `${object} names objects after inputs.id of Static ResourceSetInputProvider ${s.provider}; in the cluster that id is the Adler-32 of the ` +
          `provider's UID, known only once it exists, so standup uses the Adler-32 of its name (${id}) as flux-operator's CLI does`,
        file: rs.origin.file,
        line: rs.origin.line,
        object,
      });
    }
  }

  /** One generated object: into the cluster's objects, owned by the ResourceSet, at the ResourceSet's file:line. */
  private add(rs: FluxResourceSet, o: Obj, rank: number[], sink: GeneratedSink): void {
    const c = this.cluster;
    const kind = String(o.kind ?? '');
    const name = String(o.metadata?.name ?? '');
    const namespace = str(o.metadata?.namespace);
    if (namespace === null && NAMESPACED.has(kind)) {
      c.problem({
        code: 'build-failed',
        severity: 'error',
        message:
          `ResourceSet ${rs.namespace}/${rs.name} generates ${kind} ${name} without metadata.namespace: flux-operator sets no namespace, so the ` +
          `API server rejects it ("namespace not specified") and the ResourceSet never becomes Ready; set metadata.namespace in the template`,
        file: rs.origin.file,
        line: rs.origin.line,
        object: refKey({ kind: 'ResourceSet', namespace: rs.namespace, name: rs.name }),
      });
    }
    const ro = { apiVersion: String(o.apiVersion ?? ''), kind, name, namespace, origin: rs.origin, owner: rs.key, raw: o };
    c.rank.set(ro, rank);
    c.objects.push(ro);
    if (isFluxKustomization(o)) {
      const k = toFluxKustomization({ raw: o, defaultNamespace: rs.namespace, parent: rs.key, origin: rs.origin });
      k.generatedBy = rs.key;
      c.rank.set(k, rank);
      c.ks.push(k);
      sink.kustomization(k);
    } else if (isResourceSet(o)) {
      const child = this.fromRaw(o, rs.key, rs.namespace, rs.origin, null);
      c.rank.set(child, rank);
      c.rs.push(child);
      sink.resourceSet(child);
    }
  }

  private fromRaw(raw: Obj, parent: string | null, defaultNs: string, origin: Origin, file: string | null): FluxResourceSet {
    const name = String(raw.metadata?.name ?? '');
    const namespace = str(raw.metadata?.namespace) ?? defaultNs;
    const deps: unknown[] = Array.isArray(raw.spec?.dependsOn) ? raw.spec.dependsOn : [];
    const origins = this.ctx.origins;
    const doc = file ? origins.doc(file, 'ResourceSet', name) : null;
    const depLine = (depName: string): number | null => (file && doc ? origins.dependsOnLine(file, doc, depName) : null);
    const dependsOn: ResourceSetDependsOn[] = deps
      .filter((d): d is Obj => typeof d === 'object' && d !== null)
      .map((d) => ({
        apiVersion: String(d.apiVersion ?? ''),
        kind: String(d.kind ?? ''),
        name: String(d.name ?? ''),
        namespace: str(d.namespace),
        ready: d.ready === true,
        readyExpr: str(d.readyExpr),
        line: depLine(String(d.name ?? '')),
      }));
    return {
      key: resourceSetKey(namespace, name),
      namespace,
      name,
      parent,
      origin,
      dependsOn,
      wait: raw.spec?.wait === true,
      inputSets: null,
      providers: [],
      generated: [],
      expansion: 'built',
      raw,
    };
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export type { InputSet };
