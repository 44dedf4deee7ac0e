// A small JSON Schema (draft-07) validator for the keywords schema/tiers.schema.json uses, so the test can check the
// generated schema against real tiers.yaml files without a validator dependency. A keyword it does not know throws:
// a schema that grows one must grow this too, rather than pass unchecked.
type Schema = Record<string, unknown>;

const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', 'default']);
const KNOWN = new Set([...ANNOTATIONS, 'type', 'properties', 'additionalProperties', 'required', 'propertyNames', 'pattern', 'const', 'anyOf', 'items', 'minLength', 'format']);

/** The problems of `value` against `schema`, each as `path: message`; empty when valid. */
export function validate(schema: Schema, value: unknown, at = '$'): string[] {
  const errors: string[] = [];
  for (const k of Object.keys(schema)) if (!KNOWN.has(k)) throw new Error(`json-schema.ts does not know the keyword "${k}" (at ${at})`);
  const type = schema.type as string | undefined;
  if (type && !isType(value, type)) return [`${at}: expected ${type}, got ${JSON.stringify(value)}`];
  if ('const' in schema && value !== schema.const) errors.push(`${at}: must be ${JSON.stringify(schema.const)}`);
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) errors.push(`${at}: shorter than ${schema.minLength}`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) errors.push(`${at}: does not match ${schema.pattern}`);
    if (schema.format === 'uri' && !URL.canParse(value)) errors.push(`${at}: not a URI`);
  }
  if (schema.anyOf) {
    const branches = (schema.anyOf as Schema[]).map((s) => validate(s, value, at));
    if (branches.every((b) => b.length > 0)) errors.push(`${at}: matches none of ${branches.length} alternatives (${branches.map((b) => b[0]).join('; ')})`);
  }
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => errors.push(...validate(schema.items as Schema, v, `${at}[${i}]`)));
  if (isType(value, 'object')) {
    const obj = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    for (const r of (schema.required ?? []) as string[]) if (!(r in obj)) errors.push(`${at}: missing "${r}"`);
    for (const [k, v] of Object.entries(obj)) {
      if (schema.propertyNames) errors.push(...validate(schema.propertyNames as Schema, k, `${at}.${k} (name)`));
      if (k in props) errors.push(...validate(props[k]!, v, `${at}.${k}`));
      else if (schema.additionalProperties === false) errors.push(`${at}: unknown key "${k}"`);
      else if (typeof schema.additionalProperties === 'object') errors.push(...validate(schema.additionalProperties as Schema, v, `${at}.${k}`));
    }
  }
  return errors;
}

function isType(v: unknown, type: string): boolean {
  switch (type) {
    case 'object': return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'array': return Array.isArray(v);
    case 'string': return typeof v === 'string';
    case 'number': return typeof v === 'number';
    case 'integer': return Number.isInteger(v);
    case 'boolean': return typeof v === 'boolean';
    case 'null': return v === null;
    default: throw new Error(`unknown type ${type}`);
  }
}
