// What the package ships of its dependencies: scripts/bundle.mjs bundles every package the CLI imports into
// dist/bundle (yaml as a file of its own, see there), so none is a dependency of the published package
// (scripts/pack-manifest.mjs) and its shrinkwrap holds nothing of theirs (scripts/shrinkwrap.mjs).
import { readFileSync } from 'node:fs';

const { dependencies } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
export const VENDORED = Object.keys(dependencies);
/** Packages whose output the render cache and parse memo keep: their versions are part of standup's build id. */
export const IN_BUILD_ID = ['yaml'];
