import { createRequire } from 'node:module';

// The yaml library, required on first use: most commands that start from the render cache never parse YAML.
// In dist/bundle it is one file beside the chunks, built by scripts/bundle.mjs, which sets __STANDUP_YAML__ to it:
// Node resolving, reading and compiling yaml's ~80 CommonJS files took 70-120 ms of every start that parses YAML
// (`up` among them); the one file takes ~20 ms. From the source (tsx, tests) it is the package itself.
declare const __STANDUP_YAML__: string | undefined;

type Yaml = typeof import('yaml');
let loaded: Yaml | undefined;

export const yamlLibrary = (): Yaml => (loaded ??= createRequire(import.meta.url)(typeof __STANDUP_YAML__ === 'string' ? __STANDUP_YAML__ : 'yaml') as Yaml);
