import { readFileSync } from 'node:fs';

/** The package's own package.json: two levels up from src/cli/ (a clone) and from dist/cli/ (an install). */
interface PackageJson {
  name: string;
  version: string;
}

let cached: PackageJson | undefined;

/** The package name and version as published (package.json is the only place the version is written). */
export function packageInfo(): PackageJson {
  cached ??= JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as PackageJson;
  return cached;
}
