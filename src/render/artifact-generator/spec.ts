// ArtifactGenerator (source.extensions.fluxcd.io/v1beta1) spec parsing: the CRD's OpenAPI schema (enforced by the API
// server) plus the controller's validateSpec. Mirrors fluxcd/source-watcher at 825fa15 (v2.2.1):
//   api/v1beta1/artifactgenerator_types.go            CRD schema (patterns, enums, required fields)
//   internal/controller/artifactgenerator_validation.go validateSpec (duplicate aliases/names, revision alias)

export interface ArtifactCopy { from: string; to: string; exclude?: string[]; strategy?: string }
export interface GeneratedArtifact { name: string; copy: ArtifactCopy[] }
export interface GeneratorSpec {
  sources: { alias: string; kind: string; name: string; namespace?: string }[];
  artifacts: GeneratedArtifact[];
}

const API_VERSION = 'source.extensions.fluxcd.io/v1beta1';
const ALIAS_RE = /^[a-z0-9]([a-z0-9_-]*[a-z0-9])?$/;
const SOURCE_NAME_RE = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const NAMESPACE_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const REVISION_RE = /^@([a-z0-9]([a-z0-9_-]*[a-z0-9])?)$/;
const FROM_RE = /^@([a-z0-9]([a-z0-9_-]*[a-z0-9])?)\/(.*)$/;
const TO_RE = /^@(artifact)\/(.*)$/;
const KINDS = ['Bucket', 'GitRepository', 'OCIRepository', 'HelmChart', 'ExternalArtifact'];
const STRATEGIES = ['Overwrite', 'Merge', 'Extract'];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const runeLength = (s: string): number => [...s].length;

/** Parses spec from a raw ArtifactGenerator object; returns problems (strings) for what source-watcher would reject. */
export function parseGenerator(raw: unknown): { spec: GeneratorSpec | null; problems: string[] } {
  const problems: string[] = [];
  if (!isRecord(raw)) return { spec: null, problems: ['ArtifactGenerator: not an object'] };
  if (raw.kind !== 'ArtifactGenerator' || raw.apiVersion !== API_VERSION) {
    problems.push(`${String(raw.apiVersion)}/${String(raw.kind)}: expected ${API_VERSION} ArtifactGenerator`);
  }
  const spec = raw.spec;
  if (!isRecord(spec)) return { spec: null, problems: [...problems, 'spec: required object is missing'] };
  if (typeof spec.pathPattern === 'string' && spec.pathPattern !== '') {
    // Artifacts are then expanded per matching directory with {capture} placeholders (source-watcher 2.2).
    problems.push(`spec.pathPattern "${spec.pathPattern}": directory discovery is not supported by standup`);
    return { spec: null, problems };
  }
  if (!Array.isArray(spec.sources) || !Array.isArray(spec.artifacts)) {
    if (!Array.isArray(spec.sources)) problems.push('spec.sources: required list is missing');
    if (!Array.isArray(spec.artifacts)) problems.push('spec.artifacts: required list is missing');
    return { spec: null, problems };
  }

  const str = (obj: Record<string, unknown>, key: string, at: string, required: boolean): string | undefined => {
    const v = obj[key];
    if (v === undefined || v === null) {
      if (required) problems.push(`${at}.${key}: required`);
      return undefined;
    }
    if (typeof v !== 'string') {
      problems.push(`${at}.${key}: must be a string`);
      return undefined;
    }
    return v;
  };
  const check = (at: string, value: string, ok: boolean, rule: string): void => {
    if (!ok) problems.push(`${at} "${value}": ${rule}`);
  };
  const count = (at: string, n: number, min: number, max: number): void => {
    if (n < min) problems.push(`${at}: must have at least ${min} item${min === 1 ? '' : 's'}`);
    if (n > max) problems.push(`${at}: must have at most ${max} items`);
  };

  const sources: GeneratorSpec['sources'] = [];
  const aliases = new Set<string>();
  count('spec.sources', spec.sources.length, 1, 1000);
  spec.sources.forEach((s: unknown, i) => {
    const at = `spec.sources[${i}]`;
    if (!isRecord(s)) return void problems.push(`${at}: must be an object`);
    const alias = str(s, 'alias', at, true);
    const name = str(s, 'name', at, true);
    const kind = str(s, 'kind', at, true);
    const namespace = str(s, 'namespace', at, false);
    if (alias !== undefined) {
      check(`${at}.alias`, alias, ALIAS_RE.test(alias) && runeLength(alias) <= 63, `must match ${ALIAS_RE.source} (at most 63 characters)`);
      if (aliases.has(alias)) problems.push(`duplicate source alias '${alias}' found`);
      aliases.add(alias);
    }
    if (name !== undefined) check(`${at}.name`, name, SOURCE_NAME_RE.test(name) && runeLength(name) <= 253, `must match ${SOURCE_NAME_RE.source} (at most 253 characters)`);
    if (kind !== undefined) check(`${at}.kind`, kind, KINDS.includes(kind), `must be one of ${KINDS.join(', ')}`);
    if (namespace !== undefined) check(`${at}.namespace`, namespace, NAMESPACE_RE.test(namespace) && runeLength(namespace) <= 63, `must match ${NAMESPACE_RE.source} (at most 63 characters)`);
    if (alias === undefined || name === undefined || kind === undefined) return;
    sources.push(namespace === undefined ? { alias, kind, name } : { alias, kind, name, namespace });
  });

  const artifacts: GeneratedArtifact[] = [];
  const names = new Set<string>();
  count('spec.artifacts', spec.artifacts.length, 1, 1000);
  spec.artifacts.forEach((a: unknown, i) => {
    const at = `spec.artifacts[${i}]`;
    if (!isRecord(a)) return void problems.push(`${at}: must be an object`);
    const name = str(a, 'name', at, true);
    if (name !== undefined) {
      if (names.has(name)) problems.push(`duplicate artifact name '${name}' found`);
      names.add(name);
      check(`${at}.name`, name, DNS_SUBDOMAIN_RE.test(name) && name.length <= 253, 'artifact names must be valid Kubernetes object names (DNS subdomain)');
    }
    for (const key of ['revision', 'originRevision']) {
      const rev = str(a, key, at, false);
      if (rev === undefined) continue;
      check(`${at}.${key}`, rev, REVISION_RE.test(rev) && rev.length <= 64, 'must have the form @<alias>');
      // validateSpec checks only revision; an originRevision naming no source is ignored.
      if (key === 'revision' && REVISION_RE.test(rev) && !aliases.has(rev.slice(1))) {
        problems.push(`artifact ${name ?? `#${i}`} revision source alias '${rev.slice(1)}' not found`);
      }
    }
    if (!Array.isArray(a.copy)) return void problems.push(`${at}.copy: required list is missing`);
    count(`${at}.copy`, a.copy.length, 1, Infinity);
    const copy: ArtifactCopy[] = [];
    a.copy.forEach((c: unknown, j) => {
      const cat = `${at}.copy[${j}]`;
      if (!isRecord(c)) return void problems.push(`${cat}: must be an object`);
      const from = str(c, 'from', cat, true);
      const to = str(c, 'to', cat, true);
      const strategy = str(c, 'strategy', cat, false);
      if (from !== undefined) check(`${cat}.from`, from, FROM_RE.test(from) && runeLength(from) <= 1024, 'must have the form @<alias>/<glob> (at most 1024 characters)');
      if (to !== undefined) check(`${cat}.to`, to, TO_RE.test(to) && runeLength(to) <= 1024, 'must have the form @artifact/<path> (at most 1024 characters)');
      if (strategy !== undefined) check(`${cat}.strategy`, strategy, STRATEGIES.includes(strategy), `must be one of ${STRATEGIES.join(', ')}`);
      let exclude: string[] | undefined;
      if (c.exclude !== undefined && c.exclude !== null) {
        if (!Array.isArray(c.exclude) || !c.exclude.every((e) => typeof e === 'string')) {
          problems.push(`${cat}.exclude: must be a list of strings`);
        } else {
          count(`${cat}.exclude`, c.exclude.length, 0, 100);
          exclude = c.exclude as string[];
        }
      }
      if (from === undefined || to === undefined) return;
      copy.push({ from, to, ...(exclude ? { exclude } : {}), ...(strategy !== undefined ? { strategy } : {}) });
    });
    if (name !== undefined) artifacts.push({ name, copy });
  });

  return { spec: { sources, artifacts }, problems };
}
