// `npm pack` / `npm publish` (prepack): ships the lockfile's production tree as npm-shrinkwrap.json, so an install
// of the package gets exactly the dependency versions the tests ran with (a caret range deep in the tree cannot pull
// in a release that needs Node 22). Dev-only packages are left out: npm never installs a dependency's dev tree.
// postpack removes the file again; the repository keeps package-lock.json only.
import { readFileSync, writeFileSync } from 'node:fs';

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const { devDependencies: _dev, ...root } = lock.packages[''];
const packages = { '': root };
for (const [location, entry] of Object.entries(lock.packages)) {
  if (location !== '' && !entry.dev && !entry.devOptional) packages[location] = entry;
}
writeFileSync('npm-shrinkwrap.json', JSON.stringify({ ...lock, packages }, null, 2) + '\n');
