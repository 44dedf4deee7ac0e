// flux-operator's BuildResourceSet (internal/builder/resourceset.go): each `resources[i]` (as the YAML text
// sigs.k8s.io/yaml makes of it) and the `resourcesTemplate` rendered with `<< >>`, slim-sprig, slugify, toYaml and
// `inputs`, missingkey=error; objects de-duplicated by group/kind/namespace/name (first wins), those annotated
// `fluxcd.controlplane.io/reconcile: disabled` dropped, per step. Errors carry the operator's words, which its
// Ready condition would show after `build failed: `.
import { fn, GoTemplate, TemplateExecError, TemplateParseError, type GoFunc } from '../gotemplate/template.js';
import { goYaml } from './go-yaml.js';
import type { InputSet } from './inputs.js';
import { readObject, readObjects, type K8sObj } from './read-objects.js';
import { slugify } from './slugify.js';
import type { ResourceSetSpec } from './spec.js';

export class BuildError extends Error {
  constructor(
    message: string,
    /** The function standup does not implement, when that is what failed. */
    readonly unsupportedFunction: string | null = null,
  ) {
    super(message);
  }
}

export interface BuiltStep {
  name: string;
  objects: K8sObj[];
}

const toYaml = (v: unknown): string => {
  try {
    return goYaml(v);
  } catch {
    return '';
  }
};

/** The functions flux-operator adds to slim-sprig's. */
function funcs(inputs: InputSet | null): Record<string, GoFunc> {
  return {
    slugify: fn(['string'], slugify),
    inputs: fn([], () => inputs ?? undefined),
    toYaml: fn(['any'], toYaml),
    mustToYaml: fn(['any'], (v: unknown) => goYaml(v)),
  };
}

function render(text: string, inputs: InputSet | null, parseWords: string, execWords: string): string {
  let t: GoTemplate;
  try {
    t = new GoTemplate(text, { name: 'resourceset', leftDelim: '<<', rightDelim: '>>', missingKeyError: true, funcs: funcs(inputs) });
  } catch (e) {
    if (e instanceof TemplateParseError) throw new BuildError(`${parseWords}: ${e.message}`);
    throw e;
  }
  try {
    return t.execute(undefined);
  } catch (e) {
    if (e instanceof TemplateExecError) throw new BuildError(`${execWords}: ${e.message}`, e.unsupportedFunction ?? null);
    throw e;
  }
}

const GROUP = (apiVersion: unknown) => {
  const v = typeof apiVersion === 'string' ? apiVersion : '';
  const i = v.lastIndexOf('/');
  return i < 0 ? '' : v.slice(0, i);
};
const meta = (o: K8sObj) => (typeof o.metadata === 'object' && o.metadata !== null ? (o.metadata as Record<string, unknown>) : {});
export const objectKey = (o: K8sObj): string => [GROUP(o.apiVersion), String(o.kind ?? ''), String(meta(o).namespace ?? ''), String(meta(o).name ?? '')].join('/');
const disabled = (o: K8sObj) => {
  const a = meta(o).annotations;
  return typeof a === 'object' && a !== null && (a as Record<string, unknown>)['fluxcd.controlplane.io/reconcile'] === 'disabled';
};

/** One step's objects (BuildResourceSet). `inputs` empty: the templates render once with no inputs. */
export function buildStep(resources: unknown[], template: string, inputs: InputSet[]): K8sObj[] {
  const objects: K8sObj[] = [];
  const seen = new Set<string>();
  const add = (o: K8sObj, dedup: boolean) => {
    const k = objectKey(o);
    if (dedup && seen.has(k)) return;
    seen.add(k);
    objects.push(o);
  };
  resources.forEach((tmpl, i) => {
    const text = goYaml(tmpl);
    if (inputs.length === 0) {
      const o = reword(() => wrap(() => readObject(render(text, null, 'failed to parse template', 'failed to execute template')), 'failed to read object'), 'failed to build resource');
      add(o, false);
      return;
    }
    for (const set of inputs) {
      const o = reword(
        () => wrap(() => readObject(render(text, set, 'failed to parse template', 'failed to execute template')), 'failed to read object'),
        `failed to build resources[${i}]`,
      );
      if (disabled(o)) continue;
      add(o, true);
    }
  });
  if (template !== '') {
    const fromTemplate: K8sObj[] = [];
    const once = (set: InputSet | null, prefix: string) =>
      reword(
        () => wrap(() => readObjects(render(template, set, 'failed to parse multi-doc YAML template', 'failed to execute multi-doc YAML template')), 'failed to read objects from multi-doc YAML'),
        prefix,
      );
    if (inputs.length === 0) fromTemplate.push(...once(null, 'failed to build resource'));
    for (const set of inputs) fromTemplate.push(...once(set, 'failed to build resources'));
    for (const o of fromTemplate) if (!disabled(o)) add(o, true);
  }
  return objects;
}

/** Every step's objects (BuildResourceSetFromSpec); an object in two steps is an error. */
export function buildResourceSet(spec: ResourceSetSpec, inputs: InputSet[]): BuiltStep[] {
  const stepOf = new Map<string, string>();
  return spec.steps.map((st) => {
    let objects: K8sObj[];
    try {
      objects = buildStep(st.resources, st.resourcesTemplate, inputs);
    } catch (e) {
      if (e instanceof BuildError && st.name !== '') throw new BuildError(`step "${st.name}": ${e.message}`, e.unsupportedFunction);
      throw e;
    }
    for (const o of objects) {
      const k = objectKey(o);
      const prev = stepOf.get(k);
      if (prev !== undefined && prev !== st.name) {
        const m = meta(o);
        throw new BuildError(`duplicate resource ${String(o.kind)}/${m.namespace ? `${String(m.namespace)}/` : ''}${String(m.name)} in step "${st.name}", already defined in step "${prev}"`);
      }
      stepOf.set(k, st.name);
    }
    return { name: st.name, objects };
  });
}

/** Runs a read, turning its plain errors into a BuildError with the operator's prefix. */
function wrap<T>(f: () => T, words: string): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof BuildError) throw e;
    throw new BuildError(`${words}: ${(e as Error).message}`);
  }
}

/** Prefixes a build error with the resource it came from (`failed to build resources[0]: ...`). */
function reword<T>(f: () => T, prefix: string): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof BuildError) throw new BuildError(`${prefix}: ${e.message}`, e.unsupportedFunction);
    throw e;
  }
}
