// `npm pack` / `npm publish` (prepack): ships the lockfile's production tree as npm-shrinkwrap.json, so an install
// of the package gets exactly the dependency versions the tests ran with (a caret range deep in the tree cannot pull
// in a release that needs Node 22). Dev-only packages are left out: npm never installs a dependency's dev tree; so
// are the packages only the bundled ones need (scripts/vendored.mjs), which dist/bundle already holds.
// postpack removes the file again; the repository keeps package-lock.json only.
import { readFileSync, writeFileSync } from 'node:fs';
import { VENDORED } from './vendored.mjs';

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const { devDependencies: _dev, ...root } = lock.packages[''];
root.dependencies = Object.fromEntries(Object.entries(root.dependencies ?? {}).filter(([name]) => !VENDORED.includes(name)));

// What the remaining production dependencies reach, resolved as Node does: node_modules nested under the
// dependent first, then each folder up.
const reached = new Set();
const visit = (location, deps) => {
  for (const name of Object.keys(deps ?? {})) {
    let at = location;
    for (;;) {
      const candidate = `${at ? `${at}/` : ''}node_modules/${name}`;
      if (lock.packages[candidate]) {
        if (!reached.has(candidate)) {
          reached.add(candidate);
          const e = lock.packages[candidate];
          visit(candidate, { ...e.dependencies, ...e.optionalDependencies, ...e.peerDependencies });
        }
        break;
      }
      if (!at) break;
      const up = at.lastIndexOf('/node_modules/');
      at = up < 0 ? '' : at.slice(0, up);
    }
  }
};
visit('', root.dependencies);

const packages = { '': root };
for (const [location, entry] of Object.entries(lock.packages)) {
  if (location !== '' && !entry.dev && !entry.devOptional && reached.has(location)) packages[location] = entry;
}
writeFileSync('npm-shrinkwrap.json', JSON.stringify({ ...lock, packages }, null, 2) + '\n');
