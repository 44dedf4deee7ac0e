// `npm pack` / `npm publish`: the published package.json is the project's without what only a clone needs. No
// scripts: a lifecycle script in an installed package makes npm 11 warn (and asks every user to approve it), and
// dist/ is built before packing, so nothing is left to run. No devDependencies, and none of the packages
// dist/bundle holds (scripts/vendored.mjs). `strip` (prepack) keeps the original
// beside it and `restore` (postpack) puts it back; a strip after a pack that failed half-way restores first.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { VENDORED } from './vendored.mjs';

const FILE = 'package.json';
const KEPT = 'package.json.before-pack';

const mode = process.argv[2];
if (mode === 'strip') {
  if (existsSync(KEPT)) renameSync(KEPT, FILE);
  const text = readFileSync(FILE, 'utf8');
  const { scripts: _scripts, devDependencies: _dev, ...manifest } = JSON.parse(text);
  manifest.dependencies = Object.fromEntries(Object.entries(manifest.dependencies ?? {}).filter(([name]) => !VENDORED.includes(name)));
  writeFileSync(KEPT, text);
  writeFileSync(FILE, JSON.stringify(manifest, null, 2) + '\n');
} else if (mode === 'restore') {
  if (existsSync(KEPT)) renameSync(KEPT, FILE);
} else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exitCode = 2;
}
