// The render cache (src/cache/render-cache.ts) is correct first: after an edit of any input that matters, a warm
// load (reusing the cache of a load before the edit) equals a cold one; a corrupt or partial entry is never trusted;
// two runs at once are safe; the cache is bounded and private to its user.
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { loadRepository, type LoadedRepository } from '../../src/load/load-repository.js';
import { RenderCache } from '../../src/cache/render-cache.js';
import { fixture } from '../helpers/repo-fixtures.js';

const made: string[] = [];
const temp = (prefix: string) => {
  const d = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(d);
  return d;
};
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** Everything a load gives that a command could show or lint: models, objects with their content, problems. */
function snapshot(r: LoadedRepository): unknown {
  return {
    clusters: r.clusters.map((c) => ({
      ...c,
      objects: c.objects.map((o) => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.name, namespace: o.namespace, origin: o.origin, owner: o.owner, raw: o.raw })),
    })),
    problems: r.problems,
    notices: r.notices,
  };
}

const entryFiles = (cacheDir: string): string[] => {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(path.join(cacheDir, 'render'));
  return out.filter((f) => f.endsWith('.entry'));
};

interface Edit {
  what: string;
  edit: (repo: string) => void;
  /** Kustomize processes a warm load still starts (the builds whose inputs changed). */
  rebuilt: number;
}

const edits: Edit[] = [
  { what: 'a resource', edit: (r) => replaceIn(r, 'infra/deploy.yaml', 'replicas: 1', 'replicas: 3'), rebuilt: 1 },
  { what: 'a patch', edit: (r) => replaceIn(r, 'infra/patch.yaml', 'nginx:1.28', 'nginx:1.29'), rebuilt: 1 },
  // infra's kustomization and generated's spec.components (a Flux Kustomization's) both name the component.
  { what: "a component's resource", edit: (r) => replaceIn(r, 'components/labels/settings.yaml', 'level: info', 'level: debug'), rebuilt: 2 },
  // The ConfigMap is applied by the entry (rebuilt); apps' own build is unchanged, only its substitution is not.
  { what: 'a substitution source', edit: (r) => replaceIn(r, 'clusters/dev/cluster-vars.yaml', 'GREETING: hello', 'GREETING: goodbye'), rebuilt: 1 },
  { what: 'a generator input', edit: (r) => writeFileSync(path.join(r, 'apps/config.txt'), 'color=green\n'), rebuilt: 1 },
  // Flux's generated kustomization of ./generated no longer lists b.yaml: a new overlay, a new build.
  { what: 'a .sourceignore', edit: (r) => writeFileSync(path.join(r, '.sourceignore'), '# not for the cluster\ngenerated/b.yaml\n'), rebuilt: 1 },
  // The tier's own kustomization file is merged with the Flux Kustomization's fields into the overlay standup writes.
  { what: "the tier's own kustomization file", edit: (r) => replaceIn(r, 'infra/kustomization.yaml', 'namespace: infra', 'namespace: infra\nnamePrefix: x-'), rebuilt: 1 },
  // spec.components of the Flux Kustomization: a new entry, and a file of a component it names.
  { what: 'a Flux spec.components entry', edit: (r) => replaceIn(r, 'clusters/dev/apps.yaml', '  prune: true', '  prune: true\n  components: [../components/labels]'), rebuilt: 2 },
  // A file the build did not read: nothing is rebuilt, and the result is the same.
  { what: 'an unrelated file', edit: (r) => writeFileSync(path.join(r, 'NOTES.txt'), 'x\n'), rebuilt: 0 },
];

function replaceIn(repo: string, file: string, from: string, to: string): void {
  const p = path.join(repo, file);
  const text = readFileSync(p, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} does not hold ${from}`);
  writeFileSync(p, text.replace(from, to));
}

describe('warm equals cold after an edit of each input that matters (fixture cache-edits)', () => {
  it.each(edits)('$what', async ({ edit, rebuilt, what }) => {
    const repo = temp('standup-cache-repo-');
    cpSync(fixture('cache-edits'), repo, { recursive: true });
    const cache = temp('standup-cache-');
    const before = snapshot(await loadRepository({ repo, cache }));
    // A second load with nothing changed builds nothing.
    const again = await loadRepository({ repo, cache });
    expect(snapshot(again)).toEqual(before);
    expect(again.stats.spawned).toBe(0);
    edit(repo);
    const warm = await loadRepository({ repo, cache });
    const spawned = warm.stats.spawned;
    const hits = warm.stats.cacheHits;
    const cold = await loadRepository({ repo, cache: false });
    expect(snapshot(warm)).toEqual(snapshot(cold));
    if (what === 'an unrelated file') expect(snapshot(cold)).toEqual(before);
    else expect(snapshot(cold), 'the edit changes the result').not.toEqual(before);
    expect(spawned).toBe(rebuilt);
    expect(hits).toBeGreaterThan(0);
  });

  it('a file a remote base brings: a build with a remote reference is never cached, so it sees the new commit', async () => {
    const upstream = temp('standup-cache-upstream-');
    mkdirSync(path.join(upstream, 'base'));
    writeFileSync(path.join(upstream, 'base/kustomization.yaml'), 'resources: [cm.yaml]\n');
    writeFileSync(path.join(upstream, 'base/cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-remote\n  namespace: default\ndata:\n  v: "1"\n');
    const git = (...a: string[]) => execFileSync('git', ['-c', 'user.email=t@localhost', '-c', 'user.name=t', ...a], { cwd: upstream, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'v1');
    const repo = temp('standup-cache-repo-');
    cpSync(fixture('cache-edits'), repo, { recursive: true });
    mkdirSync(path.join(repo, 'remote'));
    writeFileSync(path.join(repo, 'remote/kustomization.yaml'), `resources:\n  - file://${upstream}//base?ref=main\n`);
    writeFileSync(
      path.join(repo, 'clusters/dev/remote.yaml'),
      readFileSync(path.join(repo, 'clusters/dev/generated.yaml'), 'utf8').replace('name: generated', 'name: remote').replace('./generated', './remote'),
    );
    const cache = temp('standup-cache-');
    await loadRepository({ repo, cache });
    writeFileSync(path.join(upstream, 'base/cm.yaml'), readFileSync(path.join(upstream, 'base/cm.yaml'), 'utf8').replace('v: "1"', 'v: "2"'));
    git('commit', '-q', '-am', 'v2');
    const warm = await loadRepository({ repo, cache });
    expect(warm.stats.spawned).toBe(1);
    const cold = await loadRepository({ repo, cache: false });
    expect(snapshot(warm)).toEqual(snapshot(cold));
    const cm = warm.clusters[0]!.objects.find((o) => o.name === 'from-remote')!;
    expect((cm.raw as { data: { v: string } }).data.v).toBe('2');
  });

  it('another kustomize (a new binary on PATH, or the same one rebuilt) is a new key: every build runs again', async () => {
    const repo = temp('standup-cache-repo-');
    cpSync(fixture('cache-edits'), repo, { recursive: true });
    const cache = temp('standup-cache-');
    const bin = temp('standup-cache-bin-');
    const kubectl = execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim();
    // A `kustomize` wrapper around kubectl's: found first on PATH, so it is the binary the key names.
    const wrapper = path.join(bin, 'kustomize');
    const writeWrapper = (comment: string) => {
      writeFileSync(wrapper, `#!/bin/sh\n# ${comment}\nshift\nexec ${kubectl} kustomize "$@"\n`);
      chmodSync(wrapper, 0o755);
    };
    const saved = process.env.PATH;
    try {
      const byKubectl = snapshot(await loadRepository({ repo, cache }));
      process.env.PATH = `${bin}${path.delimiter}${saved}`;
      writeWrapper('v1');
      const second = await loadRepository({ repo, cache });
      expect(snapshot(second)).toEqual(byKubectl);
      const all = second.stats.spawned;
      expect(all, 'a kustomize on PATH that was not used before').toBeGreaterThan(0);
      expect((await loadRepository({ repo, cache })).stats.spawned).toBe(0);
      writeWrapper('v2, rebuilt');
      const t = new Date(Date.now() + 5_000);
      utimesSync(wrapper, t, t);
      const other = await loadRepository({ repo, cache });
      expect(snapshot(other)).toEqual(byKubectl);
      expect(other.stats.spawned, 'the same path, another binary').toBe(all);
    } finally {
      process.env.PATH = saved;
    }
  });

  it('a build failure is cached too, with its message, and goes away when the missing input appears', async () => {
    const repo = temp('standup-cache-repo-');
    cpSync(fixture('cache-edits'), repo, { recursive: true });
    rmSync(path.join(repo, 'apps/config.txt'));
    const cache = temp('standup-cache-');
    const first = await loadRepository({ repo, cache });
    expect(first.problems.map((p) => p.code)).toEqual(['build-failed']);
    const warm = await loadRepository({ repo, cache });
    expect(warm.stats.spawned).toBe(0);
    expect(snapshot(warm)).toEqual(snapshot(first));
    expect(warm.problems[0]!.message).toContain('config.txt');
    expect(warm.problems[0]!.message).not.toMatch(/standup-render-|\u0000/);
    writeFileSync(path.join(repo, 'apps/config.txt'), 'color=red\n');
    const fixed = await loadRepository({ repo, cache });
    expect(fixed.problems).toEqual([]);
    expect(snapshot(fixed)).toEqual(snapshot(await loadRepository({ repo, cache: false })));
  });
});

describe('entries that cannot be trusted are rebuilt', () => {
  let repo: string;
  let cache: string;
  let cold: unknown;
  beforeEach(async () => {
    repo = temp('standup-cache-repo-');
    cpSync(fixture('cache-edits'), repo, { recursive: true });
    cache = temp('standup-cache-');
    cold = snapshot(await loadRepository({ repo, cache }));
  });

  it.each([
    ['cut short (a run killed while writing)', (f: string) => writeFileSync(f, readFileSync(f).subarray(0, Math.floor(readFileSync(f).length / 2)))],
    // Still valid JSON of the right shape and length: only the checksum can tell.
    ['one byte changed', (f: string) => {
      const b = readFileSync(f);
      const at = b.indexOf('apiVersion', b.indexOf(0x0a));
      b[at + 9] = 0x4e; // apiVersion -> apiVersioN
      writeFileSync(f, b);
    }],
    ['empty', (f: string) => writeFileSync(f, '')],
    ['another entry under this name', (f: string, all: string[]) => writeFileSync(f, readFileSync(all.find((x) => x !== f)!))],
    ['valid JSON of the wrong shape, with a correct header', (f: string) => {
      const payload = Buffer.from('{"ok":true,"objects":[{"text":1}]}');
      const key = path.basename(f, '.entry');
      const sum = execFileSync('sha256sum', { input: payload }).toString().split(' ')[0];
      writeFileSync(f, Buffer.concat([Buffer.from(`standup-render-cache 1 ${key} ${payload.length} ${sum}\n`), payload]));
    }],
  ])('%s', async (_what, damage) => {
    const all = entryFiles(cache);
    expect(all.length).toBeGreaterThan(1);
    for (const f of all) damage(f, all);
    const warm = await loadRepository({ repo, cache });
    expect(snapshot(warm)).toEqual(cold);
    // Every damaged entry was detected and replaced: the next load builds nothing.
    const again = await loadRepository({ repo, cache });
    expect(again.stats.spawned).toBe(0);
    expect(again.stats.cacheHits).toBe(all.length);
  });
});

describe('two runs at once', () => {
  it('two CLI processes filling one cache give the cold result, and leave only whole entries', async () => {
    const repo = temp('standup-cache-repo-');
    cpSync(fixture('cache-edits'), repo, { recursive: true });
    const xdg = temp('standup-cache-xdg-');
    // The source, as the other spawned CLI tests run it (bin/ runs dist/, which may be older).
    const cliArgs = ['--import', 'tsx', path.resolve(import.meta.dirname, '../../src/cli/main.ts')];
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const c = spawn(process.execPath, [...cliArgs, 'check', '--repo', repo, '-o', 'json'], { env: { ...process.env, XDG_CACHE_HOME: xdg } });
        let out = '';
        c.stdout.on('data', (d) => (out += d));
        c.on('error', reject);
        c.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
      });
    const [a, b] = await Promise.all([run(), run()]);
    const cold = await new Promise<string>((resolve, reject) => {
      const c = spawn(process.execPath, [...cliArgs, 'check', '--repo', repo, '-o', 'json', '--no-cache'], { env: { ...process.env, XDG_CACHE_HOME: xdg } });
      let out = '';
      c.stdout.on('data', (d) => (out += d));
      c.on('error', reject);
      c.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
    });
    expect(a).toBe(cold);
    expect(b).toBe(cold);
    const cache = path.join(xdg, 'standup');
    const files = readdirSync(path.join(cache, 'render'), { recursive: true }).map(String);
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // Every entry is whole: its header, length and checksum hold (an entry that does not is removed on read).
    const entries = entryFiles(cache);
    expect(entries.length).toBeGreaterThan(0);
    const reader = new RenderCache({ dir: cache, maxBytes: 1e9 });
    for (const f of entries) expect(reader.get(path.basename(f, '.entry')), f).not.toBeNull();
    expect(reader.stats.corrupt).toBe(0);
  });

  it('two loads in one process share the cache', async () => {
    const repo = temp('standup-cache-repo-');
    cpSync(fixture('cache-edits'), repo, { recursive: true });
    const cache = temp('standup-cache-');
    const [a, b] = await Promise.all([loadRepository({ repo, cache }), loadRepository({ repo, cache })]);
    const cold = snapshot(await loadRepository({ repo, cache: false }));
    expect(snapshot(a)).toEqual(cold);
    expect(snapshot(b)).toEqual(cold);
  });
});

/** One entry per key, each a ConfigMap of `text`. */
function putConfigMaps(c: RenderCache, keys: string[], text: string): void {
  keys.forEach((k, i) => c.put(k, { ok: true, objects: [{ text, header: { apiVersion: 'v1', kind: 'ConfigMap', name: `c${i}`, namespace: null, labels: {}, annotations: {} }, file: null, generated: false }] }));
}

describe('bounded, and private to its user', () => {
  it('evicts the least recently used entries once past the bound, down to 80% of it', async () => {
    const dir = temp('standup-cache-');
    const c = new RenderCache({ dir, maxBytes: 10_000 });
    const text = 'x'.repeat(900);
    const keys = Array.from({ length: 20 }, (_, i) => `${String(i).padStart(2, '0')}${'a'.repeat(62)}`);
    putConfigMaps(c, keys, text);
    await c.flush();
    keys.forEach((k, i) => {
      // Older keys were used longer ago; key 0 was used just now (a hit touches the entry).
      const t = new Date(Date.now() - (20 - i) * 60_000);
      utimesSync(path.join(dir, 'render', k.slice(0, 2), `${k}.entry`), t, t);
    });
    expect(c.get(keys[0]!)).not.toBeNull();
    await c.collect();
    const left = entryFiles(dir);
    const total = left.reduce((n, f) => n + statSync(f).size, 0);
    expect(total).toBeLessThanOrEqual(8_000);
    expect(left.map((f) => path.basename(f).slice(0, 2)).sort()).toEqual(['00', ...keys.slice(-(left.length - 1)).map((k) => k.slice(0, 2))].sort());
  });

  it('collects after a run that wrote entries in the background, at most every ten minutes: nothing is walked before maybeCollect returns', async () => {
    const dir = temp('standup-cache-');
    const c = new RenderCache({ dir, maxBytes: 5_000 });
    const text = 'x'.repeat(900);
    const keys = Array.from({ length: 10 }, (_, i) => `${String(i).padStart(2, '0')}${'b'.repeat(62)}`);
    putConfigMaps(c, keys, text);
    await c.flush();
    const pending = c.maybeCollect();
    expect(pending).not.toBeNull();
    expect(entryFiles(dir)).toHaveLength(10);
    await pending;
    expect(entryFiles(dir).reduce((n, f) => n + statSync(f).size, 0)).toBeLessThanOrEqual(4_000);
    expect(c.maybeCollect()).toBeNull();
  });

  it('a cache directory that others may write is not used (and the load says so)', async () => {
    const dir = temp('standup-cache-');
    chmodSync(dir, 0o777);
    const repo = temp('standup-cache-repo-');
    cpSync(fixture('cache-edits'), repo, { recursive: true });
    const r = await loadRepository({ repo, cache: dir });
    expect(r.notices).toEqual([`render cache not used: ${dir} is writable by other users; pass --no-cache to silence this`]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a cache directory of another user is not used", () => {
    const dir = temp('standup-cache-');
    const uid = process.getuid!();
    // As root, hand it to nobody; as anyone else, the check compares with our own uid, so make it root's.
    if (uid === 0) chownSync(dir, 65534, 65534);
    const c = new RenderCache({ dir, maxBytes: 1e6 });
    if (uid === 0) expect(c.disabled).toBe(`${dir} belongs to another user (uid 65534)`);
    else expect(c.disabled ?? '').toMatch(/belongs to another user|cannot be created/);
  });

  it('entries and their folders are the user\'s alone (0600, 0700)', async () => {
    const repo = temp('standup-cache-repo-');
    cpSync(fixture('cache-edits'), repo, { recursive: true });
    const cache = temp('standup-cache-');
    chmodSync(cache, 0o700);
    await loadRepository({ repo, cache });
    const files = entryFiles(cache);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      expect(statSync(f).mode & 0o777).toBe(0o600);
      expect(statSync(path.dirname(f)).mode & 0o777).toBe(0o700);
    }
    expect(statSync(path.join(cache, 'render')).mode & 0o777).toBe(0o700);
    appendFileSync(path.join(cache, 'unrelated'), 'x');
  });
});

describe('tiers.yaml through the parse memo', () => {
  it('an edited tiers.yaml is read again, and an invalid one is an error every time', async () => {
    const repo = temp('standup-cache-repo-');
    cpSync(fixture('cache-edits'), repo, { recursive: true });
    const cache = temp('standup-cache-');
    writeFileSync(path.join(repo, 'tiers.yaml'), 'clusters:\n  dev:\n    path: clusters/dev\nexclude: [flux-system/generated]\n');
    expect((await loadRepository({ repo, cache })).config.exclude).toEqual(['flux-system/generated']);
    expect((await loadRepository({ repo, cache })).config.exclude).toEqual(['flux-system/generated']);
    writeFileSync(path.join(repo, 'tiers.yaml'), 'clusters:\n  dev:\n    path: clusters/dev\nexclude: [flux-system/apps]\n');
    expect((await loadRepository({ repo, cache })).config.exclude).toEqual(['flux-system/apps']);
    writeFileSync(path.join(repo, 'tiers.yaml'), 'clusters:\n  dev:\n    path: clusters/dev\n    resetable: true\n');
    for (let i = 0; i < 2; i++) await expect(loadRepository({ repo, cache })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    rmSync(path.join(repo, 'tiers.yaml'));
    expect((await loadRepository({ repo, cache })).configText).toBeNull();
  });
});
