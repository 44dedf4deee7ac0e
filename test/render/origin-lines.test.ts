import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OriginIndex } from '../../src/render/origin-lines.js';
import { cleanupRepos, makeRepo } from '../helpers/repo-fixtures.js';

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

  it('finds each dependsOn entry from the document\'s dependsOn: on, in every form a name is written', () => {
    const ks = (name: string, deps: string) => `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\nspec:\n${deps}  path: ./x\n`;
    const first = ks('a', '  dependsOn:\n    - name: db\n    - name: "cache" # quoted\n    - name: &q queue\n    - name: web # name: api\n    - name: api\n');
    const second = ks('b', '  dependsOn:\n    - namespace: flux-system\n      name: db\n');
    const third = ks('db', '');
    const root = makeRepo({ 'ks.yaml': [first, second, third].join('---\n') });
    const file = path.join(root, 'ks.yaml');
    const idx = new OriginIndex();
    const a = idx.doc(file, 'Kustomization', 'a')!;
    const b = idx.doc(file, 'Kustomization', 'b')!;
    const c = idx.doc(file, 'Kustomization', 'db')!;
    const entries = ['db', 'cache', 'queue', 'web', 'api'].map((dep) => idx.dependsOnLine(file, a, dep));
    // A name written in a comment counts, as the pattern always read it: api's entry is the line before its own.
    expect(entries).toEqual([7, 8, 9, 10, 10]);
    // metadata.name above dependsOn is not an entry; a name that only contains the entry's is not it either.
    expect(idx.dependsOnLine(file, a, 'a')).toBeNull();
    expect(idx.dependsOnLine(file, a, 'ca')).toBeNull();
    // The second document's entry, not the first's, though both name db.
    expect(idx.dependsOnLine(file, b, 'db')).toBe(13 + 8);
    expect(idx.dependsOnLine(file, c, 'db')).toBeNull();
  });
});
