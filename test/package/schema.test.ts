import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/repo/tiers-yaml-parser.js';
import { CONFIG_FILE } from '../../src/repo/tiers-yaml.js';
import { SCHEMA_FILE, tiersSchemaText } from '../../scripts/gen-schema.js';
import { validate } from './json-schema.js';

// schema/tiers.schema.json is generated from the zod schema (npm run schema); editors validate tiers.yaml with it.
const PROJECT = path.resolve(import.meta.dirname, '../..');
const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, unknown>;

/** Every tiers.yaml in the project: its own and the fixtures'. */
function tiersFiles(dir = PROJECT): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (['node_modules', 'dist', '.git'].includes(name)) return [];
    if (statSync(p).isDirectory()) return tiersFiles(p);
    // A Flux manifest that happens to be named tiers.yaml (a fixture's clusters/dev/tiers.yaml) is not standup's.
    return name === 'tiers.yaml' && !/^apiVersion:/m.test(readFileSync(p, 'utf8')) ? [p] : [];
  });
}

describe('schema/tiers.schema.json', () => {
  it('is what npm run schema generates from the zod schema (regenerate it after changing src/model/config.ts)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(tiersSchemaText());
  });

  it.each(tiersFiles().map((f) => [path.relative(PROJECT, f)]))('accepts %s, which standup accepts', (file) => {
    const text = readFileSync(path.join(PROJECT, file), 'utf8');
    expect(() => parseConfig(text, file)).not.toThrow();
    expect(validate(schema, parse(text))).toEqual([]);
  });

  it.each([
    ['a misspelled safety setting', 'clusters: {dev: {path: clusters/dev, resetable: true}}', 'unknown key "resetable"'],
    ['a cluster name with capitals', 'clusters: {Dev: {path: clusters/dev}}', 'does not match'],
    ['a timeout that is no duration', 'clusters: {}\ntimeouts: {default: ten minutes}', 'does not match'],
    ['a version other than 1', 'version: 2\nclusters: {}', 'must be 1'],
    ['a cluster without a path', 'clusters: {dev: {context: x}}', 'missing "path"'],
  ])('rejects %s, as standup does', (_n, text, message) => {
    expect(() => parseConfig(text, CONFIG_FILE)).toThrow();
    expect(validate(schema, parse(text)).join('\n')).toContain(message);
  });

  it('is referenced from the example\'s tiers.yaml for yaml-language-server', () => {
    expect(readFileSync(path.join(PROJECT, 'tiers.yaml'), 'utf8')).toMatch(/^# yaml-language-server: \$schema=\.\/schema\/tiers\.schema\.json$/m);
  });
});
