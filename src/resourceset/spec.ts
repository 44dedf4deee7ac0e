// A ResourceSet's spec as flux-operator v0.58.1 reads it (api/v1/resourceset_types.go), from the object a
// Kustomization applies, with the checks its CRD and ValidateResourceSetSpec make. Pure.
import type { ResourceSetDependsOn } from '../model/flux.js';

export interface LabelSelector {
  matchLabels: Record<string, string>;
  matchExpressions: { key: string; operator: string; values: string[] }[];
}

export interface InputsFromRef {
  name: string | null;
  selector: LabelSelector | null;
}

/** One spec.dependsOn entry as written (flux-operator does not default its namespace); the model's, without its line. */
export type ResourceSetDependency = Omit<ResourceSetDependsOn, 'line'>;

export interface ResourceSetStep {
  /** '' for the one anonymous step of a ResourceSet without spec.steps. */
  name: string;
  resources: unknown[];
  resourcesTemplate: string;
}

export interface ResourceSetSpec {
  inputs: Record<string, unknown>[];
  inputsFrom: InputsFromRef[];
  strategy: 'Flatten' | 'Permute';
  includeEmptyProviders: boolean;
  steps: ResourceSetStep[];
  dependsOn: ResourceSetDependency[];
  commonMetadata: { labels: Record<string, string>; annotations: Record<string, string> };
  wait: boolean;
  serviceAccountName: string | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const strMap = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(isObj(v) ? v : {}).filter(([, x]) => typeof x === 'string') as [string, string][]);

function selectorOf(v: unknown): LabelSelector | null {
  if (!isObj(v)) return null;
  const exprs = Array.isArray(v.matchExpressions) ? v.matchExpressions : [];
  return {
    matchLabels: strMap(v.matchLabels),
    matchExpressions: exprs.filter(isObj).map((e) => ({
      key: String(e.key ?? ''),
      operator: String(e.operator ?? ''),
      values: Array.isArray(e.values) ? e.values.map(String) : [],
    })),
  };
}

/** The spec, or the errors that keep the operator from building it (its own words where it has them). */
export function readResourceSetSpec(raw: Obj): { spec: ResourceSetSpec | null; errors: string[] } {
  const s = isObj(raw.spec) ? raw.spec : {};
  const errors: string[] = [];
  const inputs = Array.isArray(s.inputs) ? s.inputs : [];
  inputs.forEach((i, n) => {
    if (!isObj(i)) errors.push(`spec.inputs[${n}] is not a map of inputs`);
  });
  const inputsFrom = (Array.isArray(s.inputsFrom) ? s.inputsFrom : []).filter(isObj).map((r) => ({
    name: typeof r.name === 'string' && r.name !== '' ? r.name : null,
    selector: selectorOf(r.selector),
  }));
  const strategyName = isObj(s.inputStrategy) && typeof s.inputStrategy.name === 'string' ? s.inputStrategy.name : 'Flatten';
  if (strategyName !== 'Flatten' && strategyName !== 'Permute') errors.push(`unknown input strategy: '${strategyName}'`);
  const resources = Array.isArray(s.resources) ? s.resources : [];
  const template = typeof s.resourcesTemplate === 'string' ? s.resourcesTemplate : '';
  const rawSteps = Array.isArray(s.steps) ? s.steps.filter(isObj) : [];
  let steps: ResourceSetStep[];
  if (rawSteps.length > 0) {
    if (resources.length > 0 || template !== '') errors.push('spec.steps is mutually exclusive with spec.resources and spec.resourcesTemplate');
    steps = rawSteps.map((st) => ({
      name: String(st.name ?? ''),
      resources: Array.isArray(st.resources) ? st.resources : [],
      resourcesTemplate: typeof st.resourcesTemplate === 'string' ? st.resourcesTemplate : '',
    }));
    for (const st of steps) if (st.resources.length === 0 && st.resourcesTemplate === '') errors.push(`step "${st.name}": at least one of resources or resourcesTemplate must be set`);
  } else {
    if (resources.length === 0 && template === '') errors.push('at least one of spec.resources, spec.resourcesTemplate or spec.steps must be set');
    steps = [{ name: '', resources, resourcesTemplate: template }];
  }
  const dependsOn = (Array.isArray(s.dependsOn) ? s.dependsOn : []).filter(isObj).map((d) => ({
    apiVersion: String(d.apiVersion ?? ''),
    kind: String(d.kind ?? ''),
    name: String(d.name ?? ''),
    namespace: typeof d.namespace === 'string' && d.namespace !== '' ? d.namespace : null,
    ready: d.ready === true,
    readyExpr: typeof d.readyExpr === 'string' ? d.readyExpr : null,
  }));
  const cm = isObj(s.commonMetadata) ? s.commonMetadata : {};
  const spec: ResourceSetSpec = {
    inputs: inputs.filter(isObj),
    inputsFrom,
    strategy: strategyName === 'Permute' ? 'Permute' : 'Flatten',
    includeEmptyProviders: isObj(s.inputStrategy) && s.inputStrategy.includeEmptyProviders === true,
    steps,
    dependsOn,
    commonMetadata: { labels: strMap(cm.labels), annotations: strMap(cm.annotations) },
    wait: s.wait === true,
    serviceAccountName: typeof s.serviceAccountName === 'string' ? s.serviceAccountName : null,
  };
  return { spec: errors.length > 0 ? null : spec, errors };
}

/** Whether `labels` satisfy a Kubernetes label selector (matchLabels and matchExpressions). */
export function selects(sel: LabelSelector, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(sel.matchLabels)) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions) {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    switch (e.operator) {
      case 'In':
        if (!has || !e.values.includes(labels[e.key]!)) return false;
        break;
      case 'NotIn':
        if (has && e.values.includes(labels[e.key]!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}
