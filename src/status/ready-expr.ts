// One dependsOn entry as kustomize-controller's and helm-controller's checkDependencies judges it (their
// internal/controller dependency checks): the dependency must exist; a `readyExpr` is evaluated with `self` (the
// dependent) and `dep` (the dependency) bound and must be true; then, unless a readyExpr replaced it (the
// AdditiveCELDependencyCheck feature gate off, its default), the built-in check. Pure: the objects and the CEL engine
// are handed in.
import { evaluateBoolean, type CelEngine } from './cel.js';

export interface DependencyEntry {
  name: string;
  namespace?: string;
  readyExpr?: string;
}

/** What the controller would conclude, and why, in its own words where it has some. */
export interface DependencyVerdict {
  ready: boolean;
  /**
   * `unknown`: a readyExpr standup could not evaluate (no engine, or the expression does not parse or fails here);
   * the controller's own answer decides.
   */
  state: 'ready' | 'not-found' | 'ready-expr-false' | 'not-ready' | 'unknown';
  /** The readyExpr and what it gave, when the entry has one. */
  expr?: { text: string; result: boolean | null; error?: string };
}

export interface DependencyOptions {
  /** The AdditiveCELDependencyCheck feature gate: the built-in check runs after a true readyExpr too. Default false. */
  additive?: boolean;
  /** Null: not loaded (a readyExpr is then `unknown`). */
  cel: CelEngine | null;
}

/**
 * The verdict on one entry. `builtinReady` is the controller's built-in check of the dependency (for a HelmRelease:
 * generation == observedGeneration and Ready=True; for a Kustomization also the revision gate).
 */
export function judgeDependency(
  entry: DependencyEntry,
  self: object,
  dep: object | undefined,
  builtinReady: (dep: object) => boolean,
  o: DependencyOptions,
): DependencyVerdict {
  if (!dep) return { ready: false, state: 'not-found' };
  let expr: DependencyVerdict['expr'];
  if (entry.readyExpr) {
    const text = entry.readyExpr;
    if (!o.cel) return { ready: false, state: 'unknown', expr: { text, result: null, error: 'CEL not loaded' } };
    const r = evaluateBoolean(o.cel, text, { self, dep });
    if (!r.ok) return { ready: false, state: 'unknown', expr: { text, result: null, error: r.error } };
    expr = { text, result: r.value };
    if (!r.value) return { ready: false, state: 'ready-expr-false', expr };
    if (!o.additive) return { ready: true, state: 'ready', expr };
  }
  const ready = builtinReady(dep);
  return { ready, state: ready ? 'ready' : 'not-ready', ...(expr ? { expr } : {}) };
}

/** A readyExpr and its result in a few words, for a status line: "readyExpr `dep.status.x == 1` is false". */
export function describeExpr(e: NonNullable<DependencyVerdict['expr']>): string {
  const text = e.text.replace(/\s+/g, ' ').trim();
  const shown = text.length > 120 ? `${text.slice(0, 117)}...` : text;
  if (e.result === null) return `readyExpr \`${shown}\` not evaluated by standup (${e.error ?? 'unknown'})`;
  return `readyExpr \`${shown}\` is ${e.result}`;
}
