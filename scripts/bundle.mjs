// `npm run build`, after tsc: the compiled CLI (dist/cli/main.js) and every package it imports, bundled into
// dist/bundle/, which bin/standup.js runs and the package ships alone (dist/'s other folders stay for the benchmark
// scripts and are not packed).
// Why: Node loads an ES module graph file by file. The compiled CLI is ~300 files, and zod, ora, commander and
// client-node are hundreds more; loading them was the largest part of every command's start (a `plan` from the
// render cache spent most of its CPU there). Split by dynamic import, so a command still loads only what it uses: the
// cluster client, CEL, ora and each command's own modules stay chunks loaded on first use. Tree-shaking keeps of
// @kubernetes/client-node (54 MB installed, most of it generated API models) only what src/cluster uses, and of
// @bufbuild/cel (11 MB with the CEL spec's protos) what src/status/cel.ts uses.
//
// yaml is required on first use (src/model/yaml-library.ts: a warm load never parses YAML), which a bundler cannot
// follow: it is bundled apart, into one CommonJS file beside the chunks (yaml.cjs), which that require() and every
// static import of yaml load. Left as the package, Node resolved, read and compiled its ~80 files on each start that
// parses YAML: 70-120 ms, against ~20 ms for the one file.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { IN_BUILD_ID } from './vendored.mjs';

const dist = path.resolve('dist');
const out = path.join(dist, 'bundle');

// What the render cache and the parse memo key their entries with (src/cache/standup-build-id.ts): in a bundle the
// folders that id reads are not there, so the id is fixed here, from the content of every compiled module and the
// versions of the packages left outside: a new standup never trusts what an older one stored.
const id = createHash('sha256');
const files = readdirSync(dist, { recursive: true }).map(String).filter((f) => f.endsWith('.js') && !f.startsWith('bundle')).sort();
for (const f of files) id.update(`${f}\u0000`).update(readFileSync(path.join(dist, f))).update('\n');
for (const name of IN_BUILD_ID) id.update(`${name} ${JSON.parse(readFileSync(`node_modules/${name}/package.json`, 'utf8')).version}\n`);
const buildId = id.digest('hex').slice(0, 32);

rmSync(out, { recursive: true, force: true });
// A package bundled apart into one CommonJS file beside the chunks, which they require() on first use.
const oneCommonJsFile = (o) => build({ ...o, bundle: true, metafile: true, format: 'cjs', platform: 'node', target: 'node20', minifyWhitespace: true, minifySyntax: true, legalComments: 'eof', logLevel: 'error' });
const YAML_FILE = 'yaml.cjs';
const yamlBuild = await oneCommonJsFile({ entryPoints: [createRequire(import.meta.url).resolve('yaml')], outfile: path.join(out, YAML_FILE) });
// Every chunk sits in dist/bundle beside yaml.cjs, so one relative name serves them all.
const yamlBesideChunks = {
  name: 'yaml-beside-chunks',
  setup: (b) => b.onResolve({ filter: /^yaml$/ }, () => ({ path: `./${YAML_FILE}`, external: true })),
};
// client-node's modules have no effect when imported, but its package.json does not say so (no "sideEffects": false),
// so esbuild kept every module its index reaches: all ~900 generated API models, half of the cluster client's chunk.
// Said here, the models the code never names are left out.
const clientNodePure = {
  name: 'client-node-pure',
  setup: (b) => b.onResolve({ filter: /.*/ }, async (a) => {
    if (a.pluginData?.clientNodePure || !(a.path.startsWith('@kubernetes/client-node') || a.importer.includes('/node_modules/@kubernetes/client-node/'))) return undefined;
    const r = await b.resolve(a.path, { resolveDir: a.resolveDir, kind: a.kind, importer: a.importer, pluginData: { clientNodePure: true } });
    return r.errors.length || r.external ? r : { path: r.path, sideEffects: false };
  }),
};
// node-fetch 2 (client-node's Watch) takes the URL class from whatwg-url only where Node has none (`Url.URL ||
// whatwgUrl.URL`): Node 20 has one, and whatwg-url brings tr46's 266 KB Unicode table, parsed at every start.
const nodeUrlForNodeFetch = {
  name: 'node-url-for-node-fetch',
  setup: (b) => {
    b.onResolve({ filter: /^whatwg-url$/ }, (a) => (a.importer.includes('/node_modules/node-fetch/') ? { path: 'whatwg-url', namespace: 'node-url' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'node-url' }, () => ({ contents: "module.exports = { URL: require('node:url').URL };", loader: 'js' }));
  },
};
// client-node imports the packages behind a kubeconfig's proxy-url (socks-proxy-agent, hpagent) and its OIDC, GCP and
// Azure auth providers (openid-client, jsonpath-plus) at the top of its modules, so every cluster command compiled and
// ran them (114 KB of socks, ip-address, smart-buffer and debug alone) though few kubeconfigs name a proxy or those
// providers: importing the client's chunks took ~59 ms, ~45 ms without them (median of 15, `await import()` of both).
// They are bundled apart into one CommonJS file (deferred.cjs), which each name's stand-in require()s on first use:
// the stand-in has the package's export names, each read from the real module when client-node reads it.
const DEFERRED_FILE = 'deferred.cjs';
const DEFERRED = ['socks-proxy-agent', 'hpagent', 'openid-client', 'jsonpath-plus'];
const deferredBuild = await oneCommonJsFile({
  stdin: { contents: `module.exports = {${DEFERRED.map((n) => `${JSON.stringify(n)}: require(${JSON.stringify(n)})`).join(', ')}};`, resolveDir: path.resolve('.'), loader: 'js' },
  outfile: path.join(out, DEFERRED_FILE),
});
const deferredExports = Object.fromEntries(await Promise.all(DEFERRED.map(async (n) => [n, Object.keys(await import(n)).filter((k) => k !== '__esModule')])));
const deferredOnFirstUse = {
  name: 'deferred-on-first-use',
  setup: (b) => {
    const names = new RegExp(`^(${DEFERRED.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`);
    b.onResolve({ filter: names }, (a) => (a.importer.includes('/node_modules/@kubernetes/client-node/') ? { path: a.path, namespace: 'deferred' } : undefined));
    b.onResolve({ filter: new RegExp(`^\\./${DEFERRED_FILE.replace('.', '\\.')}$`) }, (a) => ({ path: a.path, external: true }));
    b.onLoad({ filter: /.*/, namespace: 'deferred' }, (a) => ({
      loader: 'js',
      contents: `let m; const real = () => (m ??= require('./${DEFERRED_FILE}')[${JSON.stringify(a.path)}]);
Object.defineProperty(exports, '__esModule', { value: true });
for (const k of ${JSON.stringify(deferredExports[a.path])}) Object.defineProperty(exports, k, { enumerable: true, get: () => real()[k] });`,
    }));
  },
};
const result = await build({
  // cel is an entry of its own so the installed package's test can load the evaluator by a stable name.
  entryPoints: { main: path.join(dist, 'cli/main.js'), cel: path.join(dist, 'status/cel.js') },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Whitespace and syntax only: names stay readable in a stack trace from a user's report.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'eof',
  define: { __STANDUP_BUILD_ID__: JSON.stringify(buildId), __STANDUP_YAML__: JSON.stringify(`./${YAML_FILE}`) },
  plugins: [deferredOnFirstUse, yamlBesideChunks, nodeUrlForNodeFetch, clientNodePure],
  // Bundled CommonJS packages require() Node's own modules.
  banner: { js: "import { createRequire as __standupRequire } from 'node:module'; const require = __standupRequire(import.meta.url);" },
  metafile: true,
  logLevel: 'error',
});

// Packages client-node's dependencies require() inside a try, to use when installed (ws: bufferutil and
// utf-8-validate, native speed-ups; node-fetch: encoding, for non-UTF-8 bodies the API server never sends).
const OPTIONAL = ['bufferutil', 'utf-8-validate', 'encoding'];
const outside = (p) => p !== `./${YAML_FILE}` && p !== `./${DEFERRED_FILE}` && !p.startsWith('node:') && !builtinModules.includes(p) && !OPTIONAL.includes(p);
const leftovers = Object.values(result.metafile.outputs).flatMap((o) => o.imports).filter((i) => i.external && outside(i.path));
if (leftovers.length) {
  console.error(`bundle: imports left outside the bundle: ${[...new Set(leftovers.map((i) => i.path))].join(', ')}`);
  process.exitCode = 1;
}

// The licences of the packages the bundle holds: most say their copyright notice and licence must go with every copy,
// and few carry them in a comment esbuild keeps. One file beside the chunks, each package with its version, licence
// and licence file; a package that ships none is named with its licence (Apache-2.0's text is the project's LICENSE).
const NOTICES = 'THIRD-PARTY-NOTICES.txt';
const packageDirs = new Set();
for (const meta of [result.metafile, yamlBuild.metafile, deferredBuild.metafile]) {
  for (const input of Object.keys(meta.inputs)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) packageDirs.add(m[1]);
  }
}
const notices = [...packageDirs].map((dir) => {
  const { name, version, license } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(f));
  const text = file ? readFileSync(path.join(dir, file), 'utf8').trim() : `${license}: the package ships no licence file${license === 'Apache-2.0' ? '; the licence\'s text is in LICENSE, beside this package' : ''}.`;
  return { name, text: `${name} ${version} (${license})\n\n${text}\n` };
}).sort((a, b) => a.name.localeCompare(b.name));
writeFileSync(path.join(out, NOTICES), `standup's dist/bundle holds code of these packages, under these licences.\n\n${notices.map((n) => n.text).join(`\n${'-'.repeat(78)}\n\n`)}`);
