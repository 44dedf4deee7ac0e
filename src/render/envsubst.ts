// Flux postBuild variable substitution (FLUX.md §6), as pure functions. kustomize-controller runs fluxcd/pkg/envsubst
// over each built object; strict mode (on by default since KC 1.9.0) turns an undefined `${var}` into a build error.

/** Label or annotation that opts one object out of substitution (exact, case-sensitive match). */
export const SUBSTITUTE_OPT_OUT = 'kustomize.toolkit.fluxcd.io/substitute';

const NAME = /^[_a-zA-Z][_a-zA-Z0-9]*/;

export interface Vars {
  /** Variables with known values. */
  known: ReadonlyMap<string, string>;
  /**
   * True when some variables come from a source whose content standup cannot see (a SOPS-encrypted Secret, a
   * ConfigMap or Secret that is not in the repository): an unset variable is then "unknown", not "undefined".
   */
  hasUnknown: boolean;
  /**
   * kustomize-controller's StrictPostBuildSubstitutions (default true): off, an undefined `${var}` becomes an empty
   * string instead of failing the build (still reported as an 'undefined' issue, for an info).
   */
  strict?: boolean;
}

export interface SubstitutionIssue {
  kind: 'undefined' | 'unknown' | 'syntax';
  variable: string;
  message: string;
}

export interface SubstituteResult {
  text: string;
  issues: SubstitutionIssue[];
}

/**
 * Substitutes `${...}` references in one string.
 * - `${v}` is v's value; undefined in strict mode is an issue (the reference is kept as written).
 * - `${v:=d}`, `${v:-d}`, `${v=d}` give d when v is empty or unset (never an issue).
 * - `$${v}` is a literal `${v}`; `$v` without braces is left alone.
 * - `${v-d}`, `${v+d}`, `${v?d}` do not parse in fluxcd/pkg/envsubst: the whole build fails ("missing closing brace").
 * - Case functions (`^`, `^^`, `,`, `,,`) are applied; other transforms (`#`, `%`, `/`, `:n`) keep the value as is
 *   (best effort) but are still strict about an undefined variable.
 */
export function substituteString(input: string, vars: Vars): SubstituteResult {
  if (!input.includes('$')) return { text: input, issues: [] };
  const issues: SubstitutionIssue[] = [];
  let out = '';
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    if (c !== '$') {
      out += c;
      i++;
      continue;
    }
    // `$${` -> literal `${`
    if (input[i + 1] === '$' && input[i + 2] === '{') {
      out += '$';
      i += 2;
      continue;
    }
    if (input[i + 1] !== '{') {
      out += c;
      i++;
      continue;
    }
    const close = findClose(input, i + 2);
    const body = close < 0 ? input.slice(i + 2) : input.slice(i + 2, close);
    const m = NAME.exec(body);
    if (!m) {
      // `${` not followed by a name: envsubst treats `${#v}` as length; anything else is not a variable.
      if (body.startsWith('#') && NAME.test(body.slice(1)) && close >= 0) {
        const name = body.slice(1);
        const v = lookup(name, vars, issues, input.slice(i, close + 1));
        out += v === null ? input.slice(i, close + 1) : String(v.length);
        i = close + 1;
        continue;
      }
      out += c;
      i++;
      continue;
    }
    const name = m[0];
    const rest = body.slice(name.length);
    const whole = close < 0 ? input.slice(i) : input.slice(i, close + 1);
    if (close < 0 || (rest.length > 0 && '-+?'.includes(rest[0]!))) {
      issues.push({
        kind: 'syntax',
        variable: name,
        message: `"${whole.slice(0, 40)}" does not parse in Flux's envsubst (missing closing brace); the whole build fails`,
      });
      out += whole;
      i = close < 0 ? input.length : close + 1;
      continue;
    }
    i = close + 1;
    const dflt = /^(:=|:-|=)([\s\S]*)$/.exec(rest);
    if (dflt) {
      const v = vars.known.get(name);
      out += v !== undefined && v !== '' ? v : substituteString(dflt[2]!, vars).text;
      continue;
    }
    const v = lookup(name, vars, issues, whole);
    if (v === null) {
      out += whole;
      continue;
    }
    out += transform(v, rest);
  }
  return { text: out, issues };
}

function lookup(name: string, vars: Vars, issues: SubstitutionIssue[], whole: string): string | null {
  const v = vars.known.get(name);
  if (v !== undefined) return v;
  if (vars.strict === false && !vars.hasUnknown) {
    issues.push({ kind: 'undefined', variable: name, message: `variable not set: "${name}" (substituted with an empty string)` });
    return '';
  }
  issues.push(
    vars.hasUnknown
      ? { kind: 'unknown', variable: name, message: `variable "${name}" (${whole}) may come from a source standup cannot read` }
      : { kind: 'undefined', variable: name, message: `variable not set (strict mode): "${name}"` },
  );
  return null;
}

function transform(v: string, fn: string): string {
  switch (fn) {
    case '':
      return v;
    case '^^':
      return v.toUpperCase();
    case ',,':
      return v.toLowerCase();
    case '^':
      return v.charAt(0).toUpperCase() + v.slice(1);
    case ',':
      return v.charAt(0).toLowerCase() + v.slice(1);
    default:
      return v;
  }
}

/** Index of the `}` closing a `${` whose body starts at `from`, honouring nested `${...}` in defaults. */
function findClose(s: string, from: number): number {
  let depth = 0;
  for (let j = from; j < s.length; j++) {
    if (s[j] === '$' && s[j + 1] === '{') {
      depth++;
      j++;
    } else if (s[j] === '}') {
      if (depth === 0) return j;
      depth--;
    }
  }
  return -1;
}

/** True when the object opts out of substitution by label or annotation (an object, or its metadata header). */
export function optedOut(obj: { metadata?: unknown; labels?: Record<string, string>; annotations?: Record<string, string> }): boolean {
  const md = (obj.metadata ?? obj) as { labels?: Record<string, unknown>; annotations?: Record<string, unknown> };
  return md.labels?.[SUBSTITUTE_OPT_OUT] === 'disabled' || md.annotations?.[SUBSTITUTE_OPT_OUT] === 'disabled';
}

/** Substitutes a whole YAML document's text (what kustomize-controller does); issues once per variable. */
export function substituteText(text: string, vars: Vars): SubstituteResult {
  const r = substituteString(text, vars);
  return { text: r.text, issues: dedupe(r.issues) };
}

function dedupe(issues: SubstitutionIssue[]): SubstitutionIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.kind}:${i.variable}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Flux strips `\n` from values and accepts only names matching `^[_[:alpha:]][_[:alpha:][:digit:]]*$`. */
export function addVar(into: Map<string, string>, name: string, value: unknown): void {
  if (!/^[_a-zA-Z][_a-zA-Z0-9]*$/.test(name)) return;
  into.set(name, String(value ?? '').replace(/\n/g, ''));
}
