import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  materializeArtifact, parseGenerator, planArtifact, type ArtifactCopy, type GeneratedArtifact,
} from '../../src/render/artifact-generator/index.js';

// The expected copy results were checked against source-watcher's own builder.go (825fa15) run on the same tree.

// clusters/staging/artifacts.yaml of fluxcd/flux2-kustomize-helm-example.
const EXAMPLE = {
  apiVersion: 'source.extensions.fluxcd.io/v1beta1',
  kind: 'ArtifactGenerator',
  metadata: { name: 'flux-system', namespace: 'flux-system' },
  spec: {
    sources: [{ alias: 'monorepo', kind: 'GitRepository', name: 'flux-system' }],
    artifacts: [
      { name: 'infrastructure', originRevision: '@monorepo', copy: [{ from: '@monorepo/infrastructure/**', to: '@artifact/' }] },
      {
        name: 'apps',
        originRevision: '@monorepo',
        copy: [
          { from: '@monorepo/apps/base/**', to: '@artifact/base/' },
          { from: '@monorepo/apps/staging/**', to: '@artifact/staging/' },
        ],
      },
    ],
  },
};

const REPO_FILES = [
  'infrastructure/controllers/kustomization.yaml',
  'infrastructure/controllers/cert-manager.yaml',
  'infrastructure/controllers/descheduler/kustomization.yaml',
  'infrastructure/configs/kustomization.yaml',
  'infrastructure/configs/secret.yaml',
  'apps/base/podinfo/kustomization.yaml',
  'apps/base/podinfo/release.yaml',
  'apps/base/podinfo/README.md',
  'apps/staging/kustomization.yaml',
  'apps/staging/podinfo-values.yaml',
  'apps/production/kustomization.yaml',
  'apps/.env.yaml',
  'apps/testdata/t.yaml',
  'charts/podinfo-6.0.0.tgz',
  'top.yaml',
  'README.md',
  '.hidden/h.yaml',
  '.github/workflows/ci.yaml',
  '.git/config',
  '.gitignore',
  '.sops.yaml',
  'logo.png',
];

let tmp: string;
let repo: string;
let roots: Map<string, string | null>;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'standup-ag-'));
  repo = path.join(tmp, 'repo');
  for (const f of REPO_FILES) {
    mkdirSync(path.dirname(path.join(repo, f)), { recursive: true });
    writeFileSync(path.join(repo, f), `${f}\n`);
  }
  mkdirSync(path.join(tmp, 'outside'));
  writeFileSync(path.join(tmp, 'outside', 'secret.yaml'), 'outside\n');
  symlinkSync('top.yaml', path.join(repo, 'link.yaml'));
  symlinkSync('apps', path.join(repo, 'linkdir'));
  symlinkSync(path.join(tmp, 'outside'), path.join(repo, 'escape'));
  roots = new Map([['r', repo], ['monorepo', repo]]);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const plan = (copy: ArtifactCopy[], aliasRoots: ReadonlyMap<string, string | null> = roots, name = 'art') =>
  planArtifact({ name, copy }, aliasRoots);

describe('parseGenerator', () => {
  it('reads the kustomize-helm-example generator without problems', () => {
    const { spec, problems } = parseGenerator(EXAMPLE);
    expect(problems).toEqual([]);
    expect(spec).toEqual({
      sources: [{ alias: 'monorepo', kind: 'GitRepository', name: 'flux-system' }],
      artifacts: [
        { name: 'infrastructure', copy: [{ from: '@monorepo/infrastructure/**', to: '@artifact/' }] },
        {
          name: 'apps',
          copy: [
            { from: '@monorepo/apps/base/**', to: '@artifact/base/' },
            { from: '@monorepo/apps/staging/**', to: '@artifact/staging/' },
          ],
        },
      ],
    });
  });

  type Spec = Record<string, unknown> & { sources: Record<string, unknown>[]; artifacts: (Record<string, unknown> & { copy: Record<string, unknown>[] })[] };
  const withSpec = (edit: (spec: Spec) => void): unknown => {
    const raw = structuredClone(EXAMPLE);
    edit(raw.spec as unknown as Spec);
    return raw;
  };

  it.each<[string, unknown, string]>([
    ['from without a path after the alias', withSpec((s) => { s.artifacts[0]!.copy[0]!.from = '@monorepo'; }), 'spec.artifacts[0].copy[0].from "@monorepo"'],
    ['from without @', withSpec((s) => { s.artifacts[0]!.copy[0]!.from = 'monorepo/x'; }), 'spec.artifacts[0].copy[0].from "monorepo/x"'],
    ['to outside @artifact/', withSpec((s) => { s.artifacts[0]!.copy[0]!.to = '@artifacts/x'; }), 'spec.artifacts[0].copy[0].to "@artifacts/x"'],
    ['an unknown strategy', withSpec((s) => { s.artifacts[0]!.copy[0]!.strategy = 'Copy'; }), 'must be one of Overwrite, Merge, Extract'],
    ['a duplicate alias', withSpec((s) => { s.sources.push({ ...s.sources[0]! }); }), "duplicate source alias 'monorepo' found"],
    ['a duplicate artifact name', withSpec((s) => { s.artifacts[1]!.name = 'infrastructure'; }), "duplicate artifact name 'infrastructure' found"],
    ['an artifact name that is no object name', withSpec((s) => { s.artifacts[0]!.name = 'Infra_1'; }), 'spec.artifacts[0].name "Infra_1": artifact names must be valid Kubernetes object names'],
    ['an alias with capitals', withSpec((s) => { s.sources[0]!.alias = 'Mono'; }), 'spec.sources[0].alias "Mono"'],
    ['a source kind outside the enum', withSpec((s) => { s.sources[0]!.kind = 'Kustomization'; }), 'spec.sources[0].kind "Kustomization": must be one of Bucket, GitRepository'],
    ['an empty namespace', withSpec((s) => { s.sources[0]!.namespace = ''; }), 'spec.sources[0].namespace ""'],
    ['a revision naming no source', withSpec((s) => { s.artifacts[0]!.revision = '@other'; }), "artifact infrastructure revision source alias 'other' not found"],
    ['no sources', withSpec((s) => { s.sources = []; }), 'spec.sources: must have at least 1 item'],
    ['no copy operations', withSpec((s) => { s.artifacts[0]!.copy = []; }), 'spec.artifacts[0].copy: must have at least 1 item'],
    ['a copy without to', withSpec((s) => { delete s.artifacts[0]!.copy[0]!.to; }), 'spec.artifacts[0].copy[0].to: required'],
    ['exclude that is not a list', withSpec((s) => { s.artifacts[0]!.copy[0]!.exclude = '*.md'; }), 'spec.artifacts[0].copy[0].exclude: must be a list of strings'],
    ['another apiVersion', { ...EXAMPLE, apiVersion: 'source.extensions.fluxcd.io/v1' }, 'expected source.extensions.fluxcd.io/v1beta1 ArtifactGenerator'],
  ])('reports %s', (_n, raw, problem) => {
    const { spec, problems } = parseGenerator(raw);
    expect(problems.some((p) => p.includes(problem)), problems.join('\n')).toBe(true);
    expect(spec).not.toBeNull();
  });

  it('ignores an originRevision naming no source, as validateSpec does', () => {
    expect(parseGenerator(withSpec((s) => { s.artifacts[0]!.originRevision = '@other'; })).problems).toEqual([]);
  });

  it('keeps exclude, strategy and namespace', () => {
    const { spec, problems } = parseGenerator(withSpec((s) => {
      Object.assign(s.artifacts[0]!.copy[0]!, { exclude: ['*.md'], strategy: 'Merge' });
      s.sources[0]!.namespace = 'infra';
    }));
    expect(problems).toEqual([]);
    expect(spec?.artifacts[0]?.copy[0]).toEqual({ from: '@monorepo/infrastructure/**', to: '@artifact/', exclude: ['*.md'], strategy: 'Merge' });
    expect(spec?.sources[0]).toEqual({ alias: 'monorepo', kind: 'GitRepository', name: 'flux-system', namespace: 'infra' });
  });

  it.each<[string, unknown, string]>([
    ['not an object', 'x', 'not an object'],
    ['no spec', { apiVersion: EXAMPLE.apiVersion, kind: 'ArtifactGenerator' }, 'spec: required'],
    ['no artifacts list', withSpec((s) => { delete (s as Record<string, unknown>).artifacts; }), 'spec.artifacts: required list'],
    ['pathPattern directory discovery', withSpec((s) => { s.pathPattern = '@monorepo/apps/{app}'; }), 'spec.pathPattern "@monorepo/apps/{app}": directory discovery is not supported'],
  ])('returns no spec for %s', (_n, raw, problem) => {
    const { spec, problems } = parseGenerator(raw);
    expect(spec).toBeNull();
    expect(problems.some((p) => p.includes(problem)), problems.join('\n')).toBe(true);
  });
});

describe('planArtifact: the kustomize-helm-example generator', () => {
  const artifacts = () => parseGenerator(EXAMPLE).spec!.artifacts;

  it('infrastructure holds controllers/ and configs/ at its root, so path ./controllers resolves', () => {
    const { files, problems, unknownAliases } = planArtifact(artifacts()[0]!, roots);
    expect(problems).toEqual([]);
    expect(unknownAliases).toEqual([]);
    expect(files).toEqual([
      { dest: 'configs/kustomization.yaml', src: path.join(repo, 'infrastructure/configs/kustomization.yaml') },
      { dest: 'configs/secret.yaml', src: path.join(repo, 'infrastructure/configs/secret.yaml') },
      { dest: 'controllers/cert-manager.yaml', src: path.join(repo, 'infrastructure/controllers/cert-manager.yaml') },
      { dest: 'controllers/descheduler/kustomization.yaml', src: path.join(repo, 'infrastructure/controllers/descheduler/kustomization.yaml') },
      { dest: 'controllers/kustomization.yaml', src: path.join(repo, 'infrastructure/controllers/kustomization.yaml') },
    ]);
  });

  it('apps holds base/podinfo and staging, not production', () => {
    const { files, problems } = planArtifact(artifacts()[1]!, roots);
    expect(problems).toEqual([]);
    expect(files.map((f) => f.dest)).toEqual([
      'base/podinfo/README.md',
      'base/podinfo/kustomization.yaml',
      'base/podinfo/release.yaml',
      'staging/kustomization.yaml',
      'staging/podinfo-values.yaml',
    ]);
  });
});

interface PlanCase {
  copy: ArtifactCopy[];
  /** Exactly these destinations, in this order. */
  files?: string[];
  includes?: string[];
  excludes?: string[];
  /** Substring of the build failure; files must then be empty. */
  fatal?: string;
  /** Substrings of problems that do not stop the build; [] = no problems at all. */
  notes?: string[];
}

const CASES: Record<string, PlanCase> = {
  // from: io/fs.Glob, so `**` is one `*` (one directory level) and `*` matches dotfiles
  '** matches one segment only': { copy: [{ from: '@r/apps/**/kustomization.yaml', to: '@artifact/' }], files: ['apps/production/kustomization.yaml', 'apps/staging/kustomization.yaml'] },
  '* matches dotfiles': { copy: [{ from: '@r/apps/*.yaml', to: '@artifact/' }], files: ['apps/.env.yaml'] },
  'a glob not ending in /** keeps the matched path': { copy: [{ from: '@r/apps/sta*', to: '@artifact/out/' }], files: ['out/apps/staging/kustomization.yaml', 'out/apps/staging/podinfo-values.yaml'] },
  'a glob copies into to as a directory even without a slash': { copy: [{ from: '@r/apps/staging/*.yaml', to: '@artifact/out.yaml' }], files: ['out.yaml/apps/staging/kustomization.yaml', 'out.yaml/apps/staging/podinfo-values.yaml'] },
  'dir/** strips dir/': { copy: [{ from: '@r/apps/staging/**', to: '@artifact/x/' }], files: ['x/kustomization.yaml', 'x/podinfo-values.yaml'] },
  'a leading ./ before a literal directory matches nothing': { copy: [{ from: '@r/./apps/*.yaml', to: '@artifact/' }], fatal: "no files match pattern './apps/*.yaml' in source 'r'" },
  'a leading ./ before a glob segment is cleaned away': { copy: [{ from: '@r/./a*/staging/*.yaml', to: '@artifact/' }], files: ['apps/staging/kustomization.yaml', 'apps/staging/podinfo-values.yaml'] },

  // from without glob characters: cp semantics
  'a directory without trailing slashes becomes dest/<dir>': { copy: [{ from: '@r/apps/staging', to: '@artifact/dest' }], files: ['dest/staging/kustomization.yaml', 'dest/staging/podinfo-values.yaml'] },
  'a directory with trailing slashes also becomes dest/<dir>': { copy: [{ from: '@r/apps/staging/', to: '@artifact/dest/' }], files: ['dest/staging/kustomization.yaml', 'dest/staging/podinfo-values.yaml'] },
  'a file into to/ keeps its name': { copy: [{ from: '@r/top.yaml', to: '@artifact/cfg/' }], files: ['cfg/top.yaml'] },
  'a file to a path without slash is renamed': { copy: [{ from: '@r/top.yaml', to: '@artifact/cfg/values.yaml' }], files: ['cfg/values.yaml'] },
  'a file to an existing directory without slash goes inside it': {
    copy: [{ from: '@r/apps/staging', to: '@artifact/' }, { from: '@r/top.yaml', to: '@artifact/staging' }],
    files: ['staging/kustomization.yaml', 'staging/podinfo-values.yaml', 'staging/top.yaml'],
  },
  'the alias root copies the whole artifact': {
    copy: [{ from: '@r/', to: '@artifact/' }],
    includes: ['top.yaml', '.hidden/h.yaml', 'apps/.env.yaml', 'charts/podinfo-6.0.0.tgz', 'infrastructure/controllers/kustomization.yaml'],
    // symlinks, .git/ and .gitignore are never in a source artifact; .github/, .sops.yaml and *.png are dropped when archiving
    excludes: ['link.yaml', 'linkdir/staging/kustomization.yaml', 'escape/secret.yaml', '.git/config', '.gitignore', '.github/workflows/ci.yaml', '.sops.yaml', 'logo.png'],
  },
  'the archive filter applies to destination paths': {
    copy: [{ from: '@r/top.yaml', to: '@artifact/.github/' }, { from: '@r/README.md', to: '@artifact/cloudbuild.yaml' }, { from: '@r/apps/staging/**', to: '@artifact/' }],
    files: ['kustomization.yaml', 'podinfo-values.yaml'],
  },

  // exclude: doublestar, anchored at the alias root or at the non-glob prefix of from; a bare name matches at any depth
  'exclude *.md at any depth': { copy: [{ from: '@r/apps/base/**', to: '@artifact/', exclude: ['*.md'] }], files: ['podinfo/kustomization.yaml', 'podinfo/release.yaml'] },
  'exclude **/testdata/**': { copy: [{ from: '@r/apps/**', to: '@artifact/', exclude: ['**/testdata/**'] }], includes: ['staging/kustomization.yaml', '.env.yaml'], excludes: ['testdata/t.yaml'] },
  'exclude anchored at the alias root': { copy: [{ from: '@r/infrastructure/**', to: '@artifact/', exclude: ['infrastructure/controllers/descheduler/**'] }], includes: ['controllers/kustomization.yaml'], excludes: ['controllers/descheduler/kustomization.yaml'] },
  'exclude anchored at the selected root': { copy: [{ from: '@r/infrastructure/**', to: '@artifact/', exclude: ['controllers/descheduler/**'] }], includes: ['controllers/kustomization.yaml'], excludes: ['controllers/descheduler/kustomization.yaml'] },
  'exclude is not anchored at the walked directory': { copy: [{ from: '@r/infrastructure/**', to: '@artifact/', exclude: ['descheduler/**'] }], includes: ['controllers/descheduler/kustomization.yaml'] },
  'exclude anchored at a copied directory': { copy: [{ from: '@r/infrastructure', to: '@artifact/', exclude: ['controllers/descheduler/**'] }], includes: ['infrastructure/configs/secret.yaml'], excludes: ['infrastructure/controllers/descheduler/kustomization.yaml'] },
  'exclude with alternatives': { copy: [{ from: '@r/apps/base/podinfo/*', to: '@artifact/', exclude: ['{kustomization,release}.yaml'] }], files: ['apps/base/podinfo/README.md'] },
  'an excluded single file is skipped without error': { copy: [{ from: '@r/top.yaml', to: '@artifact/', exclude: ['top.yaml'] }, { from: '@r/README.md', to: '@artifact/' }], files: ['README.md'], notes: [] },
  'everything excluded fails': { copy: [{ from: '@r/*.md', to: '@artifact/', exclude: ['*.md'] }], fatal: "all files matching pattern '*.md' in source 'r' were excluded" },
  'an invalid exclude fails': { copy: [{ from: '@r/top.yaml', to: '@artifact/', exclude: ['['] }], fatal: "invalid exclude pattern '['" },

  // any failing operation fails the whole artifact
  'nothing matching a glob': { copy: [{ from: '@r/top.yaml', to: '@artifact/' }, { from: '@r/nope/*', to: '@artifact/' }], fatal: "no files match pattern 'nope/*' in source 'r'" },
  'a missing literal path': { copy: [{ from: '@r/nope.yaml', to: '@artifact/' }], fatal: "source 'nope.yaml' does not exist" },
  'a path through a file': { copy: [{ from: '@r/top.yaml/x', to: '@artifact/' }], fatal: "failed to stat source 'top.yaml/x': not a directory" },
  'an invalid glob': { copy: [{ from: '@r/[', to: '@artifact/' }], fatal: "invalid glob pattern '[': syntax error in pattern" },
  'from without @': { copy: [{ from: 'r/top.yaml', to: '@artifact/' }], fatal: "invalid copy source 'r/top.yaml': source must start with '@'" },
  'from without a path': { copy: [{ from: '@r', to: '@artifact/' }], fatal: "invalid copy source '@r': source format must be '@alias/pattern'" },
  'to outside @artifact/': { copy: [{ from: '@r/top.yaml', to: '@artifact' }], fatal: "invalid copy destination '@artifact': destination must start with '@artifact/'" },
  'an undeclared alias': { copy: [{ from: '@r/top.yaml', to: '@artifact/' }, { from: '@other/x.yaml', to: '@artifact/' }], fatal: "source alias 'other' not found" },

  // nothing is read outside the alias root or written outside the artifact
  'from escaping with ..': { copy: [{ from: '@r/../outside/secret.yaml', to: '@artifact/' }], fatal: "failed to stat source '../outside/secret.yaml': path escapes from parent" },
  'a glob escaping with .. matches nothing': { copy: [{ from: '@r/../*', to: '@artifact/' }], fatal: "no files match pattern '../*' in source 'r'" },
  'an absolute from': { copy: [{ from: '@r//etc/hostname', to: '@artifact/' }], fatal: "failed to stat source '/etc/hostname': path escapes from parent" },
  'a symlink leaving the root is not followed': { copy: [{ from: '@r/escape/secret.yaml', to: '@artifact/' }], fatal: "source 'escape/secret.yaml' does not exist" },
  'a symlinked file does not exist': { copy: [{ from: '@r/link.yaml', to: '@artifact/' }], fatal: "source 'link.yaml' does not exist" },
  'to escaping with ..': { copy: [{ from: '@r/top.yaml', to: '@artifact/../x.yaml' }], fatal: 'failed to create destination directory: mkdir ..: path escapes from parent' },
  'a glob to escaping with ..': { copy: [{ from: '@r/*.md', to: '@artifact/../d/' }], fatal: "failed to copy file 'README.md' to '../d/README.md'" },
  'an absolute to': { copy: [{ from: '@r/top.yaml', to: '@artifact//tmp/x.yaml' }], fatal: 'path escapes from parent' },
  '.. in to needs the directory before it': { copy: [{ from: '@r/top.yaml', to: '@artifact/a/../b.yaml' }], fatal: 'a/../b.yaml: no such file or directory' },
  '.. in to after an existing directory': { copy: [{ from: '@r/apps/staging', to: '@artifact/a' }, { from: '@r/top.yaml', to: '@artifact/a/../b.yaml' }], files: ['a/staging/kustomization.yaml', 'a/staging/podinfo-values.yaml', 'b.yaml'] },

  // files and directories in each other's way
  'a file where a directory is needed': { copy: [{ from: '@r/top.yaml', to: '@artifact/a' }, { from: '@r/README.md', to: '@artifact/a/b' }], fatal: 'a/b: not a directory' },
  'a directory copied below a file': { copy: [{ from: '@r/top.yaml', to: '@artifact/' }, { from: '@r/apps/staging', to: '@artifact/top.yaml' }], fatal: 'mkdir top.yaml/staging: not a directory' },
  'a glob file onto a directory': { copy: [{ from: '@r/apps/staging', to: '@artifact/top.yaml/' }, { from: '@r/*.yaml', to: '@artifact/' }], fatal: "failed to copy file 'top.yaml' to 'top.yaml': open top.yaml: is a directory" },

  // strategies
  'Extract of a directory fails': { copy: [{ from: '@r/charts', to: '@artifact/', strategy: 'Extract' }], fatal: "extract strategy is not supported for directories, got 'charts'" },
  'Extract of a non-tarball fails': { copy: [{ from: '@r/top.yaml', to: '@artifact/', strategy: 'Extract' }], fatal: "extract strategy requires tarball file (.tar.gz or .tgz), got 'top.yaml'" },
  'Extract of a tarball is reported, not guessed': { copy: [{ from: '@r/top.yaml', to: '@artifact/' }, { from: '@r/charts/podinfo-6.0.0.tgz', to: '@artifact/', strategy: 'Extract' }], files: ['top.yaml'], notes: ["Extract strategy: the contents of tarball 'charts/podinfo-6.0.0.tgz' are not planned"] },
  'Extract with a glob is reported': { copy: [{ from: '@r/charts/*.tgz', to: '@artifact/', strategy: 'Extract' }], files: [], notes: ["Extract strategy: tarballs matching 'charts/*.tgz' are not planned"] },
  'Merge onto nothing is a copy': { copy: [{ from: '@r/apps/staging/kustomization.yaml', to: '@artifact/k.yaml', strategy: 'Merge' }], files: ['k.yaml'], notes: [] },
  'Merge onto a file a glob matched is reported': { copy: [{ from: '@r/apps/staging/**', to: '@artifact/' }, { from: '@r/apps/production/**', to: '@artifact/', strategy: 'Merge' }], files: ['kustomization.yaml', 'podinfo-values.yaml'], notes: ["Merge strategy: 'kustomization.yaml' is the YAML merge"] },
};

describe('planArtifact: copy rules', () => {
  it.each(Object.entries(CASES))('%s', (_name, c) => {
    const { files, problems } = plan(c.copy);
    const got = files.map((f) => f.dest);
    const failures = problems.filter((p) => p.startsWith('art build failed: '));
    if (c.fatal !== undefined) {
      expect(failures).toHaveLength(1);
      expect(failures[0]).toContain(c.fatal);
      expect(files).toEqual([]);
      return;
    }
    expect(failures, problems.join('\n')).toEqual([]);
    if (c.files) expect(got).toEqual(c.files);
    for (const f of c.includes ?? []) expect(got).toContain(f);
    for (const f of c.excludes ?? []) expect(got).not.toContain(f);
    for (const note of c.notes ?? []) expect(problems.some((p) => p.includes(note)), problems.join('\n')).toBe(true);
    if (c.notes?.length === 0) expect(problems).toEqual([]);
  });

  it('later operations overwrite earlier files and keep the rest', () => {
    const { files } = plan([{ from: '@r/apps/staging/**', to: '@artifact/' }, { from: '@r/apps/production/**', to: '@artifact/' }]);
    expect(files).toEqual([
      { dest: 'kustomization.yaml', src: path.join(repo, 'apps/production/kustomization.yaml') },
      { dest: 'podinfo-values.yaml', src: path.join(repo, 'apps/staging/podinfo-values.yaml') },
    ]);
  });

  it('Merge onto an existing file is reported and keeps the later file unmerged', () => {
    const { files, problems } = plan([
      { from: '@r/apps/staging/kustomization.yaml', to: '@artifact/k.yaml' },
      { from: '@r/apps/production/kustomization.yaml', to: '@artifact/k.yaml', strategy: 'Merge' },
    ]);
    expect(files).toEqual([{ dest: 'k.yaml', src: path.join(repo, 'apps/production/kustomization.yaml') }]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("Merge strategy: 'k.yaml' is the YAML merge");
  });

  it('Merge does not apply to files a directory walk copies', () => {
    const { files, problems } = plan([
      { from: '@r/apps/staging/kustomization.yaml', to: '@artifact/production/' },
      { from: '@r/apps/production', to: '@artifact/', strategy: 'Merge' },
    ]);
    expect(problems).toEqual([]);
    expect(files).toEqual([{ dest: 'production/kustomization.yaml', src: path.join(repo, 'apps/production/kustomization.yaml') }]);
  });

  it('skips operations from an unknown source and plans the rest', () => {
    const aliasRoots = new Map<string, string | null>([['r', repo], ['chart', null]]);
    const { files, problems, unknownAliases } = plan([
      { from: '@chart/podinfo/**', to: '@artifact/' },
      { from: '@r/apps/staging/podinfo-values.yaml', to: '@artifact/podinfo/values.yaml' },
    ], aliasRoots);
    expect(problems).toEqual([]);
    expect(unknownAliases).toEqual(['chart']);
    expect(files).toEqual([{ dest: 'podinfo/values.yaml', src: path.join(repo, 'apps/staging/podinfo-values.yaml') }]);
  });

  it('still validates the excludes of an operation from an unknown source', () => {
    const { problems } = plan([{ from: '@chart/x', to: '@artifact/', exclude: ['{a'] }], new Map([['chart', null]]));
    expect(problems).toEqual(["art build failed: failed to apply copy operation from '@chart/x' to '@artifact/': invalid exclude pattern '{a'"]);
  });

  it('reports an artifact named like a source alias, whose staging directory is that source\'s download', () => {
    const { problems, files } = plan([{ from: '@monorepo/top.yaml', to: '@artifact/' }], roots, 'monorepo');
    expect(files.map((f) => f.dest)).toEqual(['top.yaml']);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("artifact 'monorepo': its name equals a source alias");
  });

  it('lists files in byte order of their destination', () => {
    const { files } = plan([{ from: '@r/apps/staging/**', to: '@artifact/' }, { from: '@r/README.md', to: '@artifact/' }, { from: '@r/top.yaml', to: '@artifact/B.yaml' }]);
    expect(files.map((f) => f.dest)).toEqual(['B.yaml', 'README.md', 'kustomization.yaml', 'podinfo-values.yaml']);
  });
});

describe('materializeArtifact', () => {
  it('writes the infrastructure artifact so ./controllers is a buildable directory', () => {
    const artifact: GeneratedArtifact = parseGenerator(EXAMPLE).spec!.artifacts[0]!;
    const out = path.join(tmp, 'materialized');
    const origins = materializeArtifact(planArtifact(artifact, roots).files, out);
    const kustomization = path.join(out, 'controllers', 'kustomization.yaml');
    expect(readFileSync(kustomization, 'utf8')).toBe('infrastructure/controllers/kustomization.yaml\n');
    expect(origins.get(kustomization)).toBe(path.join(repo, 'infrastructure/controllers/kustomization.yaml'));
    expect(origins.size).toBe(5);
    expect([...origins.keys()].every((k) => k.startsWith(`${out}${path.sep}`))).toBe(true);
  });

  it('refuses a destination outside destDir', () => {
    expect(() => materializeArtifact([{ dest: '../x.yaml', src: path.join(repo, 'top.yaml') }], path.join(tmp, 'm2'))).toThrow(/outside/);
  });
});
