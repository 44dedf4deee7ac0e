#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm ci` through the prepare script) when it is at least as new as every
// file in src/, which halves start-up; otherwise runs the TypeScript source through tsx, so an edit is never
// shadowed by a stale build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const compiled = path.join(root, 'dist/cli/main.js');

function newestSource(dir) {
  let newest = 0;
  for (const name of readdirSync(dir, { recursive: true })) {
    if (name.endsWith('.ts')) newest = Math.max(newest, statSync(path.join(dir, name)).mtimeMs);
  }
  return newest;
}

if (existsSync(compiled) && statSync(compiled).mtimeMs >= newestSource(path.join(root, 'src'))) {
  await import(compiled);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
