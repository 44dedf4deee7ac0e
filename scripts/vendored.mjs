// What the package ships of its dependencies. scripts/bundle.mjs bundles every package the CLI imports into
// dist/bundle except EXTERNAL, which the code require()s on first use (see there); so VENDORED, the rest, are not
// dependencies of the published package (scripts/pack-manifest.mjs), and nothing only they need is in its shrinkwrap
// (scripts/shrinkwrap.mjs).
import { readFileSync } from 'node:fs';

export const EXTERNAL = ['yaml'];
const { dependencies } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
export const VENDORED = Object.keys(dependencies).filter((name) => !EXTERNAL.includes(name));
