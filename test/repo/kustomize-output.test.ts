import { describe, expect, it } from 'vitest';
import { cleanError, materialize, parseBuilt } from '../../src/repo/kustomize-output.js';
import { scanHeader, slowHeader } from '../../src/repo/object-header.js';

describe('reading kustomize output', () => {
  const docs = [
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n  namespace: default\ndata:\n  a: b\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    config.kubernetes.io/origin: |\n      path: ../x/cm.yaml\n    note: "quoted: yes"\n  labels:\n    app.kubernetes.io/name: x\n    "odd key": \'it\'\'s\'\n  name: "with-quotes"\ndata: {}\n',
    'apiVersion: v1\nkind: Secret\nmetadata:\n  annotations:\n    text: >\n      folded\n      lines\n  name: folded\n',
    'apiVersion: v1\nkind: Namespace\nmetadata:\n  labels: {}\n  name: ns\n  ownerReferences:\n  - apiVersion: v1\n    kind: X\n    name: owner\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flow, namespace: x}\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: &anchor anchored\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    a: |-\n      one\n\n      two\n    b: ""\n    c: null\n  name: blocks\n',
  ];
  it.each(docs.map((d, i) => [i, d]))('the line scanner reads the header as the yaml library does (%i)', (_i, doc) => {
    expect(scanHeader(doc)).toEqual(slowHeader(doc));
  });

  it('splits documents, keeps the origin file and parses the object on demand without the origin annotation', () => {
    const out =
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    config.kubernetes.io/origin: |\n      path: ../repo/a.yaml\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    config.kubernetes.io/origin: |\n      configuredIn: ../repo/kustomization.yaml\n      configuredBy:\n        apiVersion: builtin\n        kind: ConfigMapGenerator\n  name: gen-abc\n';
    const objs = parseBuilt(out, '/work/r1');
    expect(objs.map((o) => [o.header.name, o.file, o.generated])).toEqual([
      ['a', '/work/repo/a.yaml', false],
      ['gen-abc', '/work/repo/kustomization.yaml', true],
    ]);
    expect(materialize(objs[0]!.text)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  });

  it("keeps kustomize's message, not kubectl's klog wrapping", () => {
    const stderr = 'E1129 18:13:06.146576    5541 run.go:72] "command failed" err="accumulating resources: \\"x\\" not found"\n';
    expect(cleanError(stderr)).toBe('accumulating resources: "x" not found');
    expect(cleanError('Error: must build at directory\n')).toBe('must build at directory');
  });
});
