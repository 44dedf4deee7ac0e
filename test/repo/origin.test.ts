import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OriginIndex } from '../../src/repo/origin.js';
import { cleanupRepos, makeRepo } from './helpers.js';

afterAll(cleanupRepos);

const doc = (kind: string, name: string) => `apiVersion: v1\nkind: ${kind}\nmetadata:\n  name: ${name}\ndata: {}\n`;

describe('OriginIndex: the line of an object in the file kustomize says it came from', () => {
  it('finds each of many documents by kind and name, the first definition winning', () => {
    const root = makeRepo({});
    const file = path.join(root, 'many.yaml');
    const docs = Array.from({ length: 300 }, (_, i) => doc(i % 2 ? 'ConfigMap' : 'Secret', `o${i}`));
    writeFileSync(file, [...docs, doc('ConfigMap', 'o1')].join('---\n'));
    const idx = new OriginIndex();
    // Each document is 5 lines plus a separator; metadata.name is its 4th line.
    expect(idx.line(file, 'ConfigMap', 'o1')).toBe(6 + 4);
    expect(idx.line(file, 'Secret', 'o298')).toBe(298 * 6 + 4);
    expect(idx.line(file, 'Secret', 'o1')).toBeNull();
  });

  it('falls back to the only document of a kind, then to a name kustomize prefixed or suffixed', () => {
    const root = makeRepo({ 'a.yaml': [doc('Service', 'web'), doc('ConfigMap', 'app'), doc('ConfigMap', 'db')].join('---\n') });
    const idx = new OriginIndex();
    const file = path.join(root, 'a.yaml');
    expect(idx.line(file, 'Service', 'dev-web-x')).toBe(4);
    expect(idx.line(file, 'ConfigMap', 'dev-db-7g2k')).toBe(16);
    expect(idx.line(file, 'ConfigMap', 'other')).toBeNull();
    expect(idx.line(path.join(root, 'missing.yaml'), 'ConfigMap', 'app')).toBeNull();
  });
});
