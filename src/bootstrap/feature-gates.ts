// A feature gate a repository sets on one Flux controller: in the controller's Deployment (Flux's install manifests
// with their patches, as rendered) or in a FluxInstance's (or flux-instance chart's) kustomize patches, a patch counting
// when its target names that controller (kustomize's target name is a regular expression) or names none.
import type { RenderedObject } from '../model/flux.js';
import { gateInArgs, gateInText, type GateSetting } from '../model/feature-gates.js';
import type { Obj } from '../model/k8s.js';
import { isFluxInstanceRelease } from '../repo/helm-values.js';

export function repoFeatureGate(objects: readonly RenderedObject[], gate: string, controller: string): GateSetting | null {
  let found: GateSetting | null = null;
  for (const o of objects) {
    // Only these kinds can hold a gate: every other object is left unparsed (RenderedObject.raw parses on first read).
    if (!(o.kind === 'Deployment' && o.name === controller) && o.kind !== 'FluxInstance' && o.kind !== 'HelmRelease') continue;
    const raw = o.raw as Obj;
    let on: boolean | null = null;
    if (o.kind === 'Deployment' && o.name === controller) {
      for (const c of (raw.spec?.template?.spec?.containers ?? []) as { args?: unknown[] }[]) on = gateInArgs(c.args ?? [], gate) ?? on;
    } else if (o.kind === 'FluxInstance') on = inPatches(raw.spec?.kustomize?.patches, gate, controller);
    else if (isFluxInstanceRelease(raw)) on = inPatches(raw.spec?.values?.instance?.kustomize?.patches, gate, controller);
    if (on !== null) found = { on, from: `${o.origin.file}${o.origin.line ? `:${o.origin.line}` : ''}` };
  }
  return found;
}

function inPatches(patches: unknown, gate: string, controller: string): boolean | null {
  if (!Array.isArray(patches)) return null;
  let found: boolean | null = null;
  for (const p of patches as { patch?: unknown; target?: { kind?: string; name?: string } }[]) {
    if (p?.target?.kind && p.target.kind !== 'Deployment') continue;
    if (p?.target?.name && !targets(p.target.name, controller)) continue;
    const text = typeof p?.patch === 'string' ? p.patch : JSON.stringify(p?.patch ?? '');
    found = gateInText(text, gate) ?? found;
  }
  return found;
}

/** kustomize matches a target name as an anchored regular expression. */
function targets(name: string, controller: string): boolean {
  try {
    return new RegExp(`^(?:${name})$`).test(controller);
  } catch {
    return name === controller;
  }
}
