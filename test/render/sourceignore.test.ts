// What source-controller leaves out of a repository's artifact (fluxcd/pkg sourceignore + its go-git gitignore
// matcher, with source-controller's SourceIgnoreFilter: each regular file matched with isDir false), and what that
// does to a render: kustomize-controller never sees those files.
import { afterAll, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/load/load-repository.js';
import { goMatch } from '../../src/render/artifact-generator/go-match.js';
import { parsePattern, readPatterns, SourceIgnore } from '../../src/render/sourceignore.js';
import { cleanupRepos, cm, devTiers, ks, makeRepo } from '../helpers/repo-fixtures.js';

afterAll(cleanupRepos);

const matcher = (files: Record<string, string>) => new SourceIgnore(Object.entries(files).map(([dir, text]) => ({ file: `${dir}/.sourceignore`, patterns: readPatterns(text, dir ? dir.split('/') : []) })));

describe('SourceIgnore', () => {
  it('without a .sourceignore: the VCS files and the default patterns (images, archives, CI, .sops.yaml)', () => {
    const m = new SourceIgnore([]);
    for (const f of ['.git/config', '.gitignore', 'a/.gitattributes', 'docs/logo.png', 'a/b/c.tar.gz', '.github/workflows/ci.yaml', 'apps/.sops.yaml', '.sops.yaml', 'x/.flux.yaml', 'cloudbuild.yaml']) {
      expect(m.ignores(f), f).toBe(true);
    }
    for (const f of ['apps/app.yaml', 'apps/github/x.yaml', 'sops.yaml', 'a/png', 'apps/logo.png.txt']) expect(m.ignores(f), f).toBe(false);
  });

  it('with one: its patterns and the VCS files only, the other defaults dropped', () => {
    const m = matcher({ '': 'docs/\n*.txt\n' });
    expect(m.ignores('docs/a.yaml')).toBe(true);
    expect(m.ignores('apps/docs/a.yaml')).toBe(true);
    expect(m.ignores('notes.txt')).toBe(true);
    expect(m.ignores('.git/HEAD')).toBe(true);
    expect(m.ignores('.github/workflows/ci.yaml')).toBe(false);
    expect(m.ignores('logo.png')).toBe(false);
    // A directory pattern does not match a file of that name.
    expect(m.ignores('docs')).toBe(false);
  });

  it('anchored patterns, negation (the last match wins), ** and a scope per folder', () => {
    const m = matcher({ '': '# everything but kubernetes/\n/*\n!/kubernetes\n', 'kubernetes/apps': '*.yaml\n!keep.yaml\n**/tmp/*.yaml\n' });
    expect(m.ignores('README.md')).toBe(true);
    expect(m.ignores('terraform/main.yaml')).toBe(true);
    expect(m.ignores('kubernetes/flux/ks.yaml')).toBe(false);
    expect(m.ignores('kubernetes/apps/a.yaml')).toBe(true);
    expect(m.ignores('kubernetes/apps/keep.yaml')).toBe(false);
    expect(m.ignores('kubernetes/apps/x/y/tmp/z.yaml')).toBe(true);
    expect(m.ignores('kubernetes/flux/tmp/z.yaml')).toBe(false);
  });
});

describe("the fast comparisons give what Go's path.Match gives", () => {
  it.each(['*.png', '*', '.git', 'cloudbuild.yaml', '*.tar.gz', 'a*b', '[ab].yaml', 'x?z', '\\*.yaml'])('%s', (pattern) => {
    const m = parsePattern(pattern, []).matchers[0]!;
    for (const name of ['a.png', '.png', 'png', 'a.PNG', '.git', 'git', 'cloudbuild.yaml', 'x.tar.gz', 'ab', 'axb', 'a.yaml', 'xyz', '*.yaml', '']) {
      let go: boolean | null;
      try {
        go = goMatch(pattern, name);
      } catch {
        go = null;
      }
      expect(m(name), `${pattern} ~ ${name}`).toBe(go);
    }
  });
});

describe('rendering against what the artifact holds', () => {
  it("Flux's generated kustomization lists no ignored file; a kustomization that reads one fails the build", async () => {
    const root = makeRepo({
      'tiers.yaml': devTiers,
      'clusters/dev/gen.yaml': ks('gen', { path: './gen' }),
      'clusters/dev/explicit.yaml': ks('explicit', { path: './explicit' }),
      'gen/a.yaml': cm('a'),
      'gen/.sops.yaml': 'creation_rules:\n  - age: age1xyz\n',
      'gen/drafts/b.yaml': cm('b'),
      'explicit/kustomization.yaml': 'resources: [cm.yaml]\nconfigMapGenerator:\n  - name: logo\n    files: [logo.png]\n',
      'explicit/cm.yaml': cm('c'),
      'explicit/logo.png': 'not really a png',
    });
    // No .sourceignore: .sops.yaml and *.png are left out by default; drafts/ is in.
    const r = await loadRepository({ repo: root });
    const names = (owner: string) => r.clusters[0]!.objects.filter((o) => o.owner === owner).map((o) => o.name).sort();
    expect(names('flux-system/gen')).toEqual(['a', 'b']);
    const bf = r.problems.filter((p) => p.code === 'build-failed');
    expect(bf.map((p) => p.object)).toEqual(['Kustomization/flux-system/explicit']);
    expect(bf[0]!.message).toContain('explicit/logo.png is not in the source artifact');
    expect(bf[0]!.message).toContain("source-controller's default ignore patterns");
  });

  it('a .sourceignore of its own replaces the defaults', async () => {
    const root = makeRepo({
      'tiers.yaml': devTiers,
      '.sourceignore': 'drafts/\n',
      'clusters/dev/gen.yaml': ks('gen', { path: './gen' }),
      'clusters/dev/explicit.yaml': ks('explicit', { path: './explicit' }),
      'gen/a.yaml': cm('a'),
      'gen/drafts/b.yaml': cm('b'),
      'explicit/kustomization.yaml': 'resources: [cm.yaml]\nconfigMapGenerator:\n  - name: logo\n    files: [logo.png]\n',
      'explicit/cm.yaml': cm('c'),
      'explicit/logo.png': 'not really a png',
    });
    const r = await loadRepository({ repo: root });
    expect(r.problems).toEqual([]);
    expect(r.clusters[0]!.objects.filter((o) => o.owner === 'flux-system/gen').map((o) => o.name)).toEqual(['a']);
  });
});
