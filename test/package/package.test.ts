import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAction, runAction, type RunOptions } from './action-runner.js';
import { installOffline, pack, PROJECT, type Packed } from './pack.js';

// The package as a user gets it: packed as `npm publish` would, installed from the tarball into an empty directory
// with production dependencies only and without the network, then run. No TypeScript loader may be involved.
let packed: Packed;
let installed: Awaited<ReturnType<typeof installOffline>>;
const lock = JSON.parse(readFileSync(path.join(PROJECT, 'package-lock.json'), 'utf8')) as Packed['shrinkwrap'];
const project = JSON.parse(readFileSync(path.join(PROJECT, 'package.json'), 'utf8')) as Record<string, unknown> & Packed['manifest'];

beforeAll(async () => {
  packed = await pack();
  installed = await installOffline(packed);
}, 240_000);

// Removing an installed package's tree takes seconds on a busy machine: more than a hook's default 10 s.
afterAll(() => {
  if (packed) rmSync(packed.dir, { recursive: true, force: true });
}, 60_000);

const run = (args: string[], env: Record<string, string> = {}) =>
  execa(installed.bin, args, { cwd: installed.dir, reject: false, env: { NO_COLOR: '1', CI: 'true', ...env }, extendEnv: true });

/** semver as npm itself resolves engines (npm bundles it; the project does not depend on it). */
function npmSemver(): { subset(a: string, b: string): boolean } {
  const root = process.env.npm_execpath ? path.resolve(process.env.npm_execpath, '../..') : path.join(execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim(), 'npm');
  return createRequire(path.join(root, 'package.json'))('semver') as { subset(a: string, b: string): boolean };
}

describe('the tarball', () => {
  it('holds exactly what runs: bin, the bundled dist/bundle/, the schema, README, LICENSE, package.json, the shrinkwrap', () => {
    const allowed = /^(bin\/standup\.js|dist\/bundle\/([\w-]+\.c?js|THIRD-PARTY-NOTICES\.txt)|schema\/[\w.-]+\.json|package\.json|README\.md|LICENSE|npm-shrinkwrap\.json)$/;
    expect(packed.files.filter((f) => !allowed.test(f))).toEqual([]);
    expect(packed.files).toEqual(expect.arrayContaining(['bin/standup.js', 'dist/bundle/main.js', 'dist/bundle/cel.js', 'LICENSE', 'README.md', 'npm-shrinkwrap.json']));
    expect(packed.files.some((f) => f.startsWith('test/') || f.startsWith('src/') || f.endsWith('.map'))).toBe(false);
  });

  it('is a public scoped package, not private, with the Apache-2.0 licence text beside the licence field', () => {
    expect(packed.manifest.name).toMatch(/^@[a-z0-9-]+\/standup$/);
    expect(project.private).toBeUndefined();
    expect(project.publishConfig).toMatchObject({ access: 'public' });
    expect(packed.manifest.license).toBe('Apache-2.0');
    const license = readFileSync(path.join(PROJECT, 'LICENSE'), 'utf8');
    expect(license).toContain('Apache License\n                           Version 2.0, January 2004');
    expect(license).toContain('END OF TERMS AND CONDITIONS');
  });

  it('runs nothing through a TypeScript loader: tsx is a dev dependency and the bin only imports dist/', () => {
    expect(Object.keys(packed.manifest.dependencies)).not.toContain('tsx');
    expect(Object.keys(project.devDependencies as object)).toContain('tsx');
    const bin = readFileSync(path.join(PROJECT, 'bin/standup.js'), 'utf8');
    expect(bin).not.toMatch(/tsx|register\(/);
  });

  it('ships the lockfile\'s production tree as its shrinkwrap, without dev packages or what only the bundled packages need', () => {
    const shipped = Object.entries(packed.shrinkwrap.packages).filter(([k]) => k !== '');
    // Every shipped entry is the lockfile's own, at the same place and version.
    expect(shipped.filter(([k, v]) => lock.packages[k]?.version !== v.version || lock.packages[k]?.dev)).toEqual([]);
    for (const dep of Object.keys(packed.manifest.dependencies)) expect(packed.shrinkwrap.packages[`node_modules/${dep}`], dep).toBeDefined();
    for (const gone of ['tsx', 'typescript', 'vitest', 'esbuild', '@kubernetes/client-node', 'zod', 'ora', 'commander']) expect(packed.shrinkwrap.packages[`node_modules/${gone}`]).toBeUndefined();
    expect(shipped.length).toBeLessThan(Object.keys(lock.packages).filter((k) => k !== '' && !lock.packages[k]!.dev).length);
  });

  it('publishes a manifest without lifecycle scripts (npm 11 warns on them) and without the packages dist/bundle holds', () => {
    const manifest = packed.manifest as unknown as Record<string, unknown>;
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    // dist/bundle holds every package, yaml too (as yaml.cjs, required on first use: scripts/bundle.mjs).
    expect(Object.keys(packed.manifest.dependencies)).toEqual([]);
    expect(packed.files).toContain('dist/bundle/yaml.cjs');
    // Their licences travel with them: each bundled package with the lockfile's version, and its licence text.
    const notices = execFileSync('tar', ['-xzOf', packed.tarball, 'package/dist/bundle/THIRD-PARTY-NOTICES.txt'], { encoding: 'utf8' });
    for (const name of ['@kubernetes/client-node', 'zod', 'commander', 'ora', 'yaml', 'js-yaml', 'ws']) {
      expect(notices, name).toContain(`\n${name} ${lock.packages[`node_modules/${name}`]!.version} (`);
    }
    expect(notices).toContain('Permission is hereby granted, free of charge');
    expect(notices).not.toMatch(/\ntr46 /);
    const shipped = packed.files.filter((f) => f.endsWith('.js')).map((f) => execFileSync('tar', ['-xzOf', packed.tarball, `package/${f}`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
    // The render cache's key names this build (src/cache/standup-build-id.ts): fixed by the bundler, not left to a
    // walk of folders the package does not have.
    expect(shipped.join('\n')).not.toContain('__STANDUP_BUILD_ID__');
    // The clone keeps its scripts: packing restored package.json.
    expect(JSON.parse(readFileSync(path.join(PROJECT, 'package.json'), 'utf8')).scripts.prepare).toBeDefined();
    expect(existsSync(path.join(PROJECT, 'package.json.before-pack'))).toBe(false);
  });

  it('keeps engines truthful: every production dependency runs on the oldest Node the package claims', () => {
    const semver = npmSemver();
    const floor = packed.manifest.engines.node;
    const stricter = Object.entries(packed.shrinkwrap.packages)
      .filter(([, v]) => v.engines?.node && !semver.subset(floor, v.engines.node))
      .map(([k, v]) => `${k} wants node ${v.engines!.node}`);
    expect(stricter).toEqual([]);
  });

  it('leaves the working tree as it was (the shrinkwrap exists only while packing)', () => {
    expect(existsSync(path.join(PROJECT, 'npm-shrinkwrap.json'))).toBe(false);
  });
});

describe('installed from the tarball, production dependencies only', { timeout: 120_000 }, () => {
  it('has no dev dependency in its tree', () => {
    for (const dev of ['tsx', 'typescript', 'vitest', 'esbuild']) {
      expect(existsSync(path.join(installed.packageDir, 'node_modules', dev))).toBe(false);
      expect(existsSync(path.join(installed.dir, 'node_modules', dev))).toBe(false);
    }
  });

  it('resolves every import of every shipped module from what it installed (the bundle names no package it lacks)', async () => {
    // esbuild follows each static and dynamic import from the installed files as Node would and fails on one it
    // cannot resolve; client-node's dependencies require() three optional packages inside a try (scripts/bundle.mjs).
    const { build } = await import('esbuild');
    const entries = readdirSync(path.join(installed.packageDir, 'dist/bundle')).map((f) => path.join(installed.packageDir, 'dist/bundle', f));
    const r = await build({ entryPoints: entries, bundle: true, write: false, platform: 'node', format: 'esm', outdir: path.join(installed.dir, 'resolved'), logLevel: 'silent', external: ['bufferutil', 'utf-8-validate', 'encoding'] })
      .then(() => [], (e: { errors?: { text: string }[] }) => (e.errors ?? [{ text: String(e) }]).map((x) => x.text));
    expect(r).toEqual([]);
  });

  it('has no @kubernetes/client-node, zod, ora or commander in its tree: the bundle serves every command', async () => {
    for (const gone of ['zod', 'ora', 'commander']) expect(existsSync(path.join(installed.dir, 'node_modules', gone)), gone).toBe(false);
    expect(existsSync(path.join(installed.dir, 'node_modules/@kubernetes/client-node'))).toBe(false);
    expect(existsSync(path.join(installed.packageDir, 'node_modules/@kubernetes/client-node'))).toBe(false);
    // A cluster command loads it: a kubeconfig naming a closed port gets standup's own answer, not an import error.
    const kubeconfig = path.join(installed.dir, 'kubeconfig');
    writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\n' +
      'users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n');
    const r = await run(['version', '-o', 'json'], { KUBECONFIG: kubeconfig });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).serverError).toContain('cannot reach the API server https://127.0.0.1:1');
  });

  it('has no @bufbuild package in its tree: the bundle\'s CEL evaluates readyExpr and healthCheckExprs', async () => {
    expect(existsSync(path.join(installed.dir, 'node_modules/@bufbuild'))).toBe(false);
    expect(existsSync(path.join(installed.packageDir, 'node_modules/@bufbuild'))).toBe(false);
    // The same module the runner loads (a failed load there only loses an explanation, so it is checked here).
    const cel = pathToFileURL(path.join(installed.packageDir, 'dist/bundle/cel.js')).href;
    const script = `const { loadCel } = await import(${JSON.stringify(cel)}); const c = await loadCel();
      console.log(JSON.stringify([c.evaluate("status.phase.upperAscii() == 'READY' && size(status.items) == 2", { status: { phase: 'ready', items: [1, 2] } }), c.evaluate('1 +', {}).ok]));`;
    const r = await execa(process.execPath, ['--input-type=module', '-e', script], { reject: false, cwd: installed.dir });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([{ ok: true, value: true }, false]);
  });

  it('on a Node older than the engines floor: a clear message and exit 2', async () => {
    const old = path.join(installed.dir, 'old-node.mjs');
    writeFileSync(old, "Object.defineProperty(process.versions, 'node', { value: '18.20.4' }); Object.defineProperty(process, 'version', { value: 'v18.20.4' });\n");
    const r = await execa(process.execPath, ['--import', old, installed.bin, '--version'], { reject: false, cwd: installed.dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('standup needs Node.js 20.19 or newer; this is v18.20.4');
    expect(r.stdout).toBe('');
  });

  it('standup --version prints the version in package.json', async () => {
    const r = await run(['--version']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe(project.version);
    expect(r.stderr).toBe('');
  });

  it('standup plan on a fixture repository prints its TIER_ORDER', async () => {
    const repo = path.join(PROJECT, 'test/fixtures/lint/clean');
    const text = await run(['plan', '--repo', repo, '--cluster', 'dev']);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain('TIER_ORDER=(crds config apps)');
    const json = await run(['plan', '--repo', repo, '-o', 'json']);
    const plan = JSON.parse(json.stdout) as { clusters: { name: string; tiers: string[] }[] };
    expect(plan.clusters.map((c) => [c.name, c.tiers])).toEqual([
      ['dev', ['flux-system/crds', 'flux-system/config', 'flux-system/apps']],
      ['prod', ['flux-system/crds', 'flux-system/config', 'flux-system/apps']],
    ]);
  });

  it('an invalid tiers.yaml: every problem with its line and zod\'s English message, as from the source', async () => {
    // The bundle keeps of zod only what the schema uses (src/model/config.ts imports zod/v4): its messages too.
    const repo = path.join(installed.dir, 'bad-config');
    mkdirSync(repo, { recursive: true });
    writeFileSync(path.join(repo, 'tiers.yaml'), 'version: 1\nclusters:\n  dev:\n    path: 3\n    resettable: maybe\n');
    const r = await run(['plan', '--repo', repo]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('tiers.yaml:4:11: clusters.dev.path: Invalid input: expected string, received number');
    expect(r.stderr).toContain('tiers.yaml:5:17: clusters.dev.resettable: Invalid input: expected boolean, received string');
  });

  it('a kubeconfig\'s proxy-url: status goes through the HTTP or SOCKS proxy it names (the bundle loads their packages on first use)', async () => {
    // Both proxies only record what they were asked and refuse: the API server (port 1, where nothing listens) is
    // never reached, so the run ends unreachable; what matters is which proxy saw the connection, and how.
    const seen: string[] = [];
    const httpProxy = http.createServer((_req, res) => res.writeHead(502).end());
    httpProxy.on('connect', (req: http.IncomingMessage, socket: net.Socket) => {
      seen.push(`http CONNECT ${req.url}`);
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    });
    const socks = net.createServer((s) => s.once('data', (b: Buffer) => (seen.push(`socks version ${b[0]}`), s.destroy())));
    const port = (server: net.Server) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
    const [httpPort, socksPort] = await Promise.all([port(httpProxy), port(socks)]);
    try {
      const repo = path.join(PROJECT, 'test/fixtures/lint/clean');
      for (const [proxy, expected] of [[`http://127.0.0.1:${httpPort}`, 'http CONNECT 127.0.0.1:1'], [`socks5://127.0.0.1:${socksPort}`, 'socks version 5']] as const) {
        const kubeconfig = path.join(installed.dir, `proxy-kubeconfig-${proxy.split(':')[0]}`);
        writeFileSync(kubeconfig, [
          'apiVersion: v1', 'kind: Config', 'current-context: lint-dev',
          'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true, proxy-url: "' + proxy + '"}}]',
          'contexts: [{name: lint-dev, context: {cluster: c, user: u}}]',
          'users: [{name: u, user: {token: not-a-secret}}]', '',
        ].join('\n'));
        seen.length = 0;
        const r = await run(['status', '--repo', repo, '--cluster', 'dev', '--kubeconfig', kubeconfig]);
        expect(r.stderr).toContain('cannot reach the API server');
        expect(r.exitCode).toBe(1);
        expect(seen[0]).toBe(expected);
      }
    } finally {
      httpProxy.close();
      socks.close();
    }
  });

  it('a bad flag is exit 2 with the message on stderr, as from the source', async () => {
    const r = await run(['plan', '-o', 'svg', '--repo', path.join(PROJECT, 'test/fixtures/lint/clean')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('unknown output format "svg"');
  });
});

// Each step spawns npm, git and standup: generous limits for a busy 2-core machine, not a measure of speed.
describe('action.yml, its shell steps run as a GitHub runner runs them', { timeout: 120_000 }, () => {
  const ACTION = path.join(PROJECT, 'action.yml');
  let job: { prefix: string; ghDir: string; env: Record<string, string>; checkout: string };

  beforeAll(async () => {
    const root = path.join(packed.dir, 'job');
    const prefix = path.join(root, 'npm-global');
    const ghDir = path.join(root, 'fake-gh');
    mkdirSync(prefix, { recursive: true });
    mkdirSync(ghDir, { recursive: true });
    // GitHub's API is not reachable from here: a stand-in `gh` keeps the comments in a file and logs each call.
    writeFileSync(path.join(ghDir, 'gh'), FAKE_GH);
    chmodSync(path.join(ghDir, 'gh'), 0o755);
    job = {
      prefix,
      ghDir,
      checkout: await pullRequestCheckout(root),
      env: {
        PATH: [path.join(prefix, 'bin'), ghDir, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
        // The install step's `npm install --global` goes to a scratch prefix, offline. The tarball's own offline install
        // is tested above; a global install of a tarball would need the registry for its dependencies, so the step
        // gets the package as installed there (a folder: npm links it, scripts off, as a published package has none).
        npm_config_prefix: prefix,
        npm_config_offline: 'true',
        npm_config_ignore_scripts: 'true',
        npm_config_loglevel: 'error',
        FAKE_GH_LOG: path.join(ghDir, 'calls.jsonl'),
        FAKE_GH_STATE: path.join(ghDir, 'comments.json'),
      },
    };
  }, 120_000);

  const act = (o: Partial<RunOptions> & { inputs: Record<string, string> }) =>
    runAction(ACTION, { workspace: PROJECT, env: job.env, scratch: path.join(packed.dir, 'job'), ...o, inputs: { package: installed.packageDir, ...o.inputs } });

  it('installs the version of the package it belongs to by default', () => {
    expect(readAction(ACTION).inputs.package!.default).toBe(`${project.name}@${project.version}`);
  });

  it('plan: installs standup, runs it, and writes the markdown to the job summary and the markdown output', async () => {
    const r = await act({ inputs: { command: 'plan --cluster dev' } });
    expect(r.steps.map((s) => s.status)).toEqual(['not-a-shell-step', 'success', 'not-a-shell-step', 'success', 'success', 'success']);
    expect(r.steps[3]!.stdout).toContain(`standup ${project.version} at ${path.join(job.prefix, 'bin/standup')}`);
    expect(r.summary).toContain('### standup plan: cluster `dev`');
    expect(r.summary).toContain('TIER_ORDER=(crds platform oauth2-proxy platform-config apps headlamp platform-config-cdi apps-vms)');
    expect(r.outputs['exit-code']).toBe('0');
    expect(readFileSync(r.outputs.markdown!, 'utf8')).toBe(r.summary);
    expect(r.failed).toBe(false);
  });

  it('diff --base in a shallow pull request checkout: the graph change in the summary, one PR comment, updated on the next run', async () => {
    const inputs = { command: 'diff --base --cluster dev', comment: 'true', 'node-version': '' };
    const event = { pull_request: { number: 7, base: { ref: 'main' } } };
    const first = await act({ inputs, workspace: job.checkout, event });
    expect(first.steps.map((s) => s.status)).toEqual(['skipped', 'success', 'not-a-shell-step', 'success', 'success', 'success']);
    expect(first.summary).toContain('| ➕ | dependsOn | `apps` depends on `headlamp` |');
    expect(first.summary).toContain('```mermaid');
    expect(first.steps[4]!.stderr).toContain('fetching the base branch');
    expect(first.steps[5]!.stdout).toContain('commented on #7');
    const second = await act({ inputs, workspace: job.checkout, event });
    expect(second.steps[5]!.stdout).toContain('updated comment 100 on #7');
    const comments = JSON.parse(readFileSync(job.env.FAKE_GH_STATE!, 'utf8')) as { id: number; body: string }[];
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toMatch(/^<!-- standup: diff --base --cluster dev -->\n### standup diff: /);
    const calls = readFileSync(job.env.FAKE_GH_LOG!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { args: string[]; token: string });
    expect(calls.map((c) => c.args.slice(0, 3).join(' '))).toEqual([
      'api --paginate repos/octo/fleet/issues/7/comments', 'api --method POST',
      'api --paginate repos/octo/fleet/issues/7/comments', 'api --method PATCH',
    ]);
    expect(calls.every((c) => c.token === 'ghs_test_token')).toBe(true);
  });

  it('a pull request that no longer changes the graph: the earlier comment says it was reverted; none is posted where there was none', async () => {
    const event = { pull_request: { number: 7, base: { ref: 'main' } } };
    // The branch put back as main has it (origin/main is in the checkout since the run above fetched it).
    await execa('git', ['checkout', '-q', '--detach', 'origin/main'], { cwd: job.checkout });
    try {
      const reverted = await act({ inputs: { command: 'diff --base --cluster dev', comment: 'true', 'node-version': '' }, workspace: job.checkout, event });
      expect(reverted.summary).toContain('No change in the Kustomization graph.');
      expect(reverted.steps[5]!.stdout).toContain('updated comment 100 on #7');
      const comments = JSON.parse(readFileSync(job.env.FAKE_GH_STATE!, 'utf8')) as { id: number; body: string }[];
      expect(comments).toHaveLength(1);
      expect(comments[0]!.body).toMatch(/^<!-- standup: diff --base --cluster dev -->\n### standup: reverted\n\nAs of 000000000000, this pull request no longer changes/);
      const quiet = await act({ inputs: { command: 'diff --base main --cluster dev', comment: 'true', 'node-version': '' }, workspace: job.checkout, event });
      expect(quiet.steps[5]!.stdout).toContain('no change in the graph or its problems: no comment');
      expect(JSON.parse(readFileSync(job.env.FAKE_GH_STATE!, 'utf8'))).toHaveLength(1);
    } finally {
      await execa('git', ['checkout', '-q', '--detach', 'refs/remotes/pull/7/merge'], { cwd: job.checkout });
    }
  });

  it('a pull request from a fork: no comment (its token is read-only), the summary has the diff', async () => {
    const event = { pull_request: { number: 9, base: { ref: 'main', repo: { full_name: 'octo/fleet' } }, head: { repo: { full_name: 'someone/fleet' } } } };
    const r = await act({ inputs: { command: 'diff --base --cluster dev', comment: 'true', 'node-version': '' }, workspace: job.checkout, event });
    expect(r.summary).toContain('| ➕ | dependsOn | `apps` depends on `headlamp` |');
    expect(r.steps[5]!.stdout).toContain('pull request from the fork someone/fleet');
    const calls = readFileSync(job.env.FAKE_GH_LOG!, 'utf8');
    expect(calls).not.toContain('issues/9');
  });

  it('keys the cache by the standup version the package resolves to and the repository\'s lockfile, not by the commit', async () => {
    const cacheKey = (r: Awaited<ReturnType<typeof act>>) => r.steps[2]!.with!;
    const unlocked = path.join(packed.dir, 'job', 'unlocked');
    mkdirSync(unlocked, { recursive: true });
    const a = await act({ inputs: { command: 'version --client' }, workspace: unlocked });
    expect(a.steps[1]!.status).toBe('success');
    // A directory (or tarball) by its content: the same package, the same key, whatever the commit.
    expect(cacheKey(a).key).toMatch(/^standup-Linux-dir-[0-9a-f]{16}$/);
    expect(cacheKey(a).key).not.toContain('0'.repeat(40));
    expect(cacheKey(a)['restore-keys']).toBe(`${cacheKey(a).key}-lock-`);
    const again = await act({ inputs: { command: 'version --client' }, workspace: unlocked });
    expect(cacheKey(again).key).toBe(cacheKey(a).key);
    // A repository with a lockfile: its hash is part of the key, and a changed lockfile is a new key.
    const repo = path.join(packed.dir, 'job', 'locked');
    mkdirSync(repo, { recursive: true });
    writeFileSync(path.join(repo, 'package-lock.json'), '{"lockfileVersion": 3, "packages": {}}\n');
    const locked = await act({ inputs: { command: 'version --client' }, workspace: repo });
    expect(cacheKey(locked).key).toMatch(new RegExp(`^${cacheKey(a).key}-lock-[0-9a-f]{16}$`));
    writeFileSync(path.join(repo, 'package-lock.json'), '{"lockfileVersion": 3, "packages": {"": {}}}\n');
    const relocked = await act({ inputs: { command: 'version --client' }, workspace: repo });
    expect(cacheKey(relocked).key).not.toBe(cacheKey(locked).key);
    expect(cacheKey(relocked)['restore-keys']).toBe(cacheKey(locked)['restore-keys']);
    // A registry spec npm cannot resolve here (offline): a warning, and the key carries the spec as written.
    const offline = await act({ inputs: { command: 'version --client', package: '@standup-cli/standup@^0.1' }, workspace: unlocked });
    expect(offline.steps[1]!.stdout).toContain('::warning title=standup::npm could not resolve @standup-cli/standup@^0.1');
    expect(cacheKey(offline).key).toBe('standup-Linux-_standup-cli_standup__0.1');
  });

  it('check: annotations on the files from workflow commands, the problems in the summary, the step failing with exit 2', async () => {
    const repo = path.join(packed.dir, 'job', 'fleet');
    cpSync(path.join(PROJECT, 'test/fixtures/lint/missing-dependency'), repo, { recursive: true });
    await execa('git', ['init', '-q'], { cwd: repo });
    const r = await act({ inputs: { command: 'check' }, workspace: repo });
    expect(r.steps.map((s) => s.status)).toEqual(['not-a-shell-step', 'success', 'not-a-shell-step', 'success', 'failure', 'success']);
    // One check: the annotations come from the run that wrote the markdown (--annotations FILE).
    expect(readFileSync(path.join(PROJECT, 'action.yml'), 'utf8').match(/^\s+standup "\$\{args\[@\]\}"/gm)).toHaveLength(2);
    expect(r.annotations).toEqual([
      expect.objectContaining({ level: 'error', props: expect.objectContaining({ file: 'clusters/dev/apps.yaml', line: '16' }) }),
    ]);
    expect(r.annotations[0]!.message).toContain('flux-system/apps depends on flux-system/database');
    expect(r.summary).toContain('### standup check: 1 error(s)');
    expect(r.summary).toContain('| error | `missing-dependency` | `clusters/dev/apps.yaml:16` |');
    expect(r.outputs['exit-code']).toBe('2');
  });

  it('a failing command fails the step with standup\'s exit code, and the comment step still runs (and has nothing to post)', async () => {
    const r = await act({ inputs: { command: 'plan -o svg', comment: 'true' }, event: { pull_request: { number: 8 } } });
    expect(r.steps.map((s) => s.status)).toEqual(['not-a-shell-step', 'success', 'not-a-shell-step', 'success', 'failure', 'success']);
    expect(r.steps[4]!.exitCode).toBe(2);
    expect(r.steps[4]!.stderr).toContain('unknown output format "svg"');
    expect(r.outputs['exit-code']).toBe('2');
    expect(r.steps[5]!.stdout).toContain('no markdown to comment with');
    expect(r.failed).toBe(true);
  });
});

/** A pull request checkout as actions/checkout makes it: the example at main, a change, the merge ref, depth 1. */
async function pullRequestCheckout(root: string): Promise<string> {
  const git = (cwd: string, ...args: string[]) => execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd });
  const src = path.join(root, 'src');
  cpSync(path.join(PROJECT, 'examples/homelab'), src, { recursive: true });
  await git(src, 'init', '-q', '-b', 'main');
  await git(src, 'add', '-A');
  await git(src, 'commit', '-qm', 'main');
  await git(src, 'checkout', '-qb', 'feature');
  const apps = path.join(src, 'clusters/base/apps.yaml');
  writeFileSync(apps, readFileSync(apps, 'utf8').replace('    - name: oauth2-proxy\n', '    - name: oauth2-proxy\n    - name: headlamp\n'));
  await git(src, 'commit', '-qam', 'apps after headlamp');
  await git(src, 'checkout', '-q', '-b', 'merge', 'main');
  await git(src, 'merge', '-q', '--no-ff', '--no-edit', 'feature');
  await git(src, 'update-ref', 'refs/pull/7/merge', 'HEAD');
  await git(src, 'checkout', '-q', 'main');
  const origin = path.join(root, 'origin.git');
  await git(root, 'clone', '-q', '--mirror', src, origin);
  const checkout = path.join(root, 'workspace');
  mkdirSync(checkout);
  await git(checkout, 'init', '-q');
  await git(checkout, 'remote', 'add', 'origin', origin);
  await git(checkout, 'fetch', '-q', '--no-tags', '--depth=1', 'origin', '+refs/pull/7/merge:refs/remotes/pull/7/merge');
  await git(checkout, 'checkout', '-q', '--detach', 'refs/remotes/pull/7/merge');
  return checkout;
}

const FAKE_GH = `#!/usr/bin/env node
// gh api for the issue-comments endpoints, answering from a JSON file; --jq's filter is what the action passes.
const fs = require('fs');
const args = process.argv.slice(2);
fs.appendFileSync(process.env.FAKE_GH_LOG, JSON.stringify({ args, token: process.env.GH_TOKEN }) + '\\n');
const file = process.env.FAKE_GH_STATE;
const comments = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : [];
const method = args.includes('--method') ? args[args.indexOf('--method') + 1] : 'GET';
if (method === 'GET') {
  if (args[args.indexOf('--jq') + 1] !== '.[] | select(.body | startswith($ENV.STANDUP_MARKER)) | .id') process.exit(3);
  for (const c of comments) if (c.body.startsWith(process.env.STANDUP_MARKER)) console.log(c.id);
} else {
  const body = fs.readFileSync(args[args.indexOf('-F') + 1].replace(/^body=@/, ''), 'utf8');
  if (method === 'POST') comments.push({ id: 100 + comments.length, body });
  else comments.find((c) => c.id === Number(args.find((a) => /comments\\/\\d+$/.test(a)).split('/').pop())).body = body;
  fs.writeFileSync(file, JSON.stringify(comments));
  console.log('{}');
}
`;
