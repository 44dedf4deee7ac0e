// CEL for the expressions Flux evaluates: a dependsOn `readyExpr` (kustomize-controller v1.7+, helm-controller v1.4+)
// and a Kustomization's `healthCheckExprs` (README's Design says how standup judges them).
//
// The evaluator is @bufbuild/cel (README "Design" says why), loaded the first time an expression must be evaluated:
// a run without one never loads it. Flux's environment (fluxcd/pkg runtime/cel/expression.go NewExpression) is
// cel-go's standard library with the strings, sets and encoders extensions and optional types; @bufbuild/cel has the
// standard library and the strings extension. An expression using the rest (`.?field`, `sets.contains`,
// `base64.decode`) does not parse or finds no function here, and is reported as not evaluated, never guessed.

/** What evaluating one expression gave. */
export type CelOutcome =
  | { ok: true; value: unknown }
  /** `parse`: the expression does not parse here; `eval`: it failed on this input (a missing field, no overload). */
  | { ok: false; stage: 'parse' | 'eval'; error: string };

export interface CelEngine {
  /** Evaluates `expr` with `vars` bound (JSON values: objects, arrays, numbers as doubles, strings, booleans, null). */
  evaluate(expr: string, vars: Record<string, unknown>): CelOutcome;
}

let loading: Promise<CelEngine> | null = null;
let loaded: CelEngine | null = null;

/**
 * The engine if it is loaded; else starts loading it and returns null, so a synchronous look (a status line) names
 * the expression now and its result on the next look.
 */
export function celIfLoaded(): CelEngine | null {
  if (!loaded) loadCel().catch(() => undefined);
  return loaded;
}

/** Whether any of these Kustomizations (or HelmReleases) has a dependsOn readyExpr, so CEL is worth loading. */
export const hasReadyExpr = (objs: Iterable<{ spec?: { dependsOn?: { readyExpr?: string }[] } }>): boolean =>
  [...objs].some((o) => o.spec?.dependsOn?.some((d) => !!d.readyExpr));

/** The CEL engine, loaded once per process on first use. */
export function loadCel(): Promise<CelEngine> {
  loading ??= (async () => {
    const [{ celEnv, isCelError, parse, plan }, { strings }] = await Promise.all([import('@bufbuild/cel'), import('@bufbuild/cel/ext')]);
    const env = celEnv({ funcs: strings });
    const programs = new Map<string, ReturnType<typeof plan> | Error>();
    return {
      evaluate(expr, vars) {
        let program = programs.get(expr);
        if (program === undefined) {
          try {
            program = plan(env, parse(expr));
          } catch (e) {
            program = e instanceof Error ? e : new Error(String(e));
          }
          programs.set(expr, program);
        }
        if (program instanceof Error) return { ok: false, stage: 'parse', error: program.message };
        let value: unknown;
        try {
          value = program(vars as Parameters<typeof program>[0]);
        } catch (e) {
          return { ok: false, stage: 'eval', error: e instanceof Error ? e.message : String(e) };
        }
        if (isCelError(value)) return { ok: false, stage: 'eval', error: value.message };
        return { ok: true, value };
      },
    };
  })();
  void loading.then((e) => (loaded = e), () => undefined);
  return loading;
}

/** A boolean result, as Flux's EvaluateBoolean wants one: anything else is an error. */
export function evaluateBoolean(cel: CelEngine, expr: string, vars: Record<string, unknown>): { ok: true; value: boolean } | { ok: false; stage: 'parse' | 'eval'; error: string } {
  const r = cel.evaluate(expr, vars);
  if (!r.ok) return r;
  if (typeof r.value !== 'boolean') return { ok: false, stage: 'eval', error: `the expression gives ${typeof r.value === 'bigint' ? 'an int' : typeof r.value}, not a bool` };
  return { ok: true, value: r.value };
}
