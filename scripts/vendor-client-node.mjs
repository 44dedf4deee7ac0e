// `npm run build`, after tsc: @kubernetes/client-node (54 MB installed, most of it generated models standup never
// loads) bundled with its dependencies into one file, dist/vendor/client-node.js, which the compiled src/cluster
// modules import instead. The package then ships it as part of dist/ and does not depend on client-node, so an
// install is a few megabytes instead of 85. Licence comments of every bundled package are kept at the end of the file.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const dist = path.resolve('dist');
const out = path.join(dist, 'vendor/client-node.js');
const { version } = JSON.parse(readFileSync('node_modules/@kubernetes/client-node/package.json', 'utf8'));

/** One minified ESM file for Node 20 with its dependencies, licence comments at its end. */
const bundle = (options) => build({ bundle: true, platform: 'node', format: 'esm', target: 'node20', minify: true, legalComments: 'eof', logLevel: 'warning', ...options });

// Only what the compiled src/cluster modules import from it (tsc has erased the type-only names): esbuild then drops
// the rest, most of all the generated API classes, and the file is about a third of the whole package's bundle, which
// `up` and `status` import on every start (~0.1 s less on a 2-core machine).
const clusterDir = path.join(dist, 'cluster');
const used = new Set();
for (const name of readdirSync(clusterDir).filter((n) => n.endsWith('.js'))) {
  const text = readFileSync(path.join(clusterDir, name), 'utf8');
  if (/import\s*\*\s*as\s+\w+\s+from\s*['"]@kubernetes\/client-node['"]|import\(\s*['"]@kubernetes\/client-node['"]/.test(text)) used.add('*');
  for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"]@kubernetes\/client-node['"]/g)) {
    for (const n of m[1].split(',').map((x) => x.trim().split(/\s+as\s+/)[0]).filter(Boolean)) used.add(n);
  }
}
if (used.size === 0) {
  console.error('vendor-client-node: no module under dist/cluster imports @kubernetes/client-node');
  process.exit(1);
}
const entry = used.has('*') ? "export * from '@kubernetes/client-node';" : `export { ${[...used].sort().join(', ')} } from '@kubernetes/client-node';`;

await bundle({
  stdin: { contents: entry, resolveDir: process.cwd(), loader: 'js' },
  outfile: out,
  // Some bundled packages are CommonJS and require() Node's own modules.
  banner: { js: `// @kubernetes/client-node ${version} (Apache-2.0) and its dependencies, bundled by scripts/vendor-client-node.mjs.\nimport { createRequire as __standupRequire } from 'node:module'; const require = __standupRequire(import.meta.url);` },
});

// @bufbuild/cel (11 MB installed with the CEL spec's protos and re2; src/status/cel.ts loads it only when a repository
// has an expression to evaluate) the same way: its two entry points through one file, dist/vendor/cel.js.
const celVersion = JSON.parse(readFileSync('node_modules/@bufbuild/cel/package.json', 'utf8')).version;
await bundle({
  stdin: { contents: "export * from '@bufbuild/cel'; export { strings } from '@bufbuild/cel/ext';", resolveDir: process.cwd(), loader: 'js' },
  outfile: path.join(dist, 'vendor/cel.js'),
  banner: { js: `// @bufbuild/cel ${celVersion} (Apache-2.0) and its dependencies, bundled by scripts/vendor-client-node.mjs.` },
});
const celModule = path.join(dist, 'status/cel.js');
const celText = readFileSync(celModule, 'utf8');
const celNext = celText.replace(/import\((['"])@bufbuild\/cel(\/ext)?\1\)/g, (_m, q) => `import(${q}../vendor/cel.js${q})`);
if (celNext === celText || /['"]@bufbuild\//.test(celNext)) {
  console.error('vendor-client-node: dist/status/cel.js does not import @bufbuild/cel as expected');
  process.exit(1);
}
writeFileSync(celModule, celNext);

// The one place the compiled code names the package: src/cluster (test/structure.test.ts keeps it so).
const dir = path.join(dist, 'cluster');
let rewritten = 0;
for (const name of readdirSync(dir).filter((n) => n.endsWith('.js'))) {
  const file = path.join(dir, name);
  const text = readFileSync(file, 'utf8');
  const next = text.replace(/(from\s+|import\()(['"])@kubernetes\/client-node\2/g, (_m, lead, q) => `${lead}${q}../vendor/client-node.js${q}`);
  if (next !== text) {
    writeFileSync(file, next);
    rewritten++;
  }
}
const left = readdirSync(dist, { recursive: true }).filter((f) => String(f).endsWith('.js') && !String(f).startsWith('vendor'))
  .filter((f) => /['"]@kubernetes\/client-node['"]/.test(readFileSync(path.join(dist, String(f)), 'utf8')));
if (rewritten === 0 || left.length) {
  console.error(`vendor-client-node: ${rewritten} module(s) rewritten; still importing the package: ${left.join(', ') || 'none'}`);
  process.exit(1);
}
