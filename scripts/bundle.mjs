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
// yaml stays a dependency: src/repo/lazy-yaml.ts and src/ui/document.ts require() it on first use (a warm load
// never parses YAML), which a bundler cannot follow, and that is fine: it is one CommonJS file.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { EXTERNAL } from './vendored.mjs';

const dist = path.resolve('dist');
const out = path.join(dist, 'bundle');

// What the render cache and the parse memo key their entries with (src/cache/standup-build-id.ts): in a bundle the
// folders that id reads are not there, so the id is fixed here, from the content of every compiled module and the
// versions of the packages left outside: a new standup never trusts what an older one stored.
const id = createHash('sha256');
const files = readdirSync(dist, { recursive: true }).map(String).filter((f) => f.endsWith('.js') && !f.startsWith('bundle')).sort();
for (const f of files) id.update(`${f}\u0000`).update(readFileSync(path.join(dist, f))).update('\n');
for (const name of EXTERNAL) id.update(`${name} ${JSON.parse(readFileSync(`node_modules/${name}/package.json`, 'utf8')).version}\n`);
const buildId = id.digest('hex').slice(0, 32);

rmSync(out, { recursive: true, force: true });
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
  external: EXTERNAL.flatMap((name) => [name, `${name}/*`]),
  define: { __STANDUP_BUILD_ID__: JSON.stringify(buildId) },
  // Bundled CommonJS packages require() Node's own modules.
  banner: { js: "import { createRequire as __standupRequire } from 'node:module'; const require = __standupRequire(import.meta.url);" },
  metafile: true,
  logLevel: 'error',
});

// Packages client-node's dependencies require() inside a try, to use when installed (ws: bufferutil and
// utf-8-validate, native speed-ups; node-fetch: encoding, for non-UTF-8 bodies the API server never sends).
const OPTIONAL = ['bufferutil', 'utf-8-validate', 'encoding'];
const outside = (p) => !p.startsWith('node:') && !builtinModules.includes(p) && !OPTIONAL.includes(p) && !EXTERNAL.some((name) => p === name || p.startsWith(`${name}/`));
const leftovers = Object.values(result.metafile.outputs).flatMap((o) => o.imports).filter((i) => i.external && outside(i.path));
if (leftovers.length) {
  console.error(`bundle: imports left outside the bundle: ${[...new Set(leftovers.map((i) => i.path))].join(', ')}`);
  process.exitCode = 1;
}
