#!/usr/bin/env node
// The installed command: runs the bundled CLI in dist/bundle and nothing else (no TypeScript loader at run time).
// In a clone of the repository, `npm ci` builds dist/ (the prepare script); `npm run standup` runs the source.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The engines floor, checked before anything else loads: on an older Node the compiled code fails with a syntax or
// import error that says nothing about the version. process.exitCode, not exit(): this file only sets the outcome.
const [major, minor] = process.versions.node.split('.').map(Number);
const supported = major > 20 || (major === 20 && minor >= 19);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const compiled = path.join(root, 'dist/bundle/main.js');
const src = path.join(root, 'src');

if (!supported) {
  process.stderr.write(`✗ standup needs Node.js 20.19 or newer; this is ${process.version} (${process.execPath})\n` +
    '  Install a current Node.js (https://nodejs.org, or nvm install 20), then run standup again.\n');
  process.exitCode = 2;
} else if (!existsSync(compiled)) {
  process.stderr.write(`✗ ${path.relative(process.cwd(), compiled) || compiled} is missing: this copy of standup was never built\n` +
    '  In a clone of the repository run `npm run build` (or `npm run standup -- ARGS` to run the TypeScript source).\n');
  process.exitCode = 2;
} else {
  // Only a clone has src/ (the package ships dist/ alone): there, say when the build is older than an edit, so a
  // stale dist/ never passes for the current code in silence.
  if (existsSync(src)) warnIfStale(statSync(compiled).mtimeMs);
  const { main } = await import(pathToFileURL(compiled).href);
  await main();
}

function warnIfStale(builtAt) {
  const edited = readdirSync(src, { recursive: true }).find((f) => f.endsWith('.ts') && statSync(path.join(src, f)).mtimeMs > builtAt);
  if (edited) {
    process.stderr.write(`! dist/ is older than src/${edited}: this runs the last build. Run \`npm run build\`, or \`npm run standup -- ARGS\` for the source.\n`);
  }
}
