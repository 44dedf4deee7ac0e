// Modules that a warm load (everything from the render cache and the parse memo) never needs, loaded on first use:
// together they are most of a warm run's start-up (execa ~110 ms, yaml ~60 ms on this machine).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

type Yaml = typeof import('yaml');
let yamlModule: Yaml | undefined;

/** The yaml library (its CommonJS build, the same one `import 'yaml'` gives on Node). */
export const yaml = (): Yaml => (yamlModule ??= require('yaml') as Yaml);

type Execa = typeof import('execa');
let execaModule: Promise<Execa> | undefined;

/** execa, imported on the first process this load starts. */
export const loadExeca = (): Promise<Execa> => (execaModule ??= import('execa'));
