import { describe, expect, it } from 'vitest';
import { imageLineIn } from '../../src/cli/image-line.js';

const deployment = (name: string, image: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  template:
    spec:
      initContainers:
        - name: init
          image: busybox:1.36
      containers:
        - name: manager
          image: "${image}" # pinned
`;

describe('the line of an image in its object\'s document', () => {
  it('names the image: line itself, not the metadata.name line, in the document that holds the object', () => {
    const text = `${deployment('a', 'ghcr.io/x/a:v1')}---\n${deployment('b', 'Bad/Ref:x')}`;
    // b's metadata.name is on line 18 (the separator is line 14)
    expect(imageLineIn(text, 18, 'manager', 'Bad/Ref:x')).toBe(27);
    expect(imageLineIn(text, 4, 'manager', 'ghcr.io/x/a:v1')).toBe(13);
    expect(imageLineIn(text, 4, 'init', 'busybox:1.36')).toBe(10);
  });

  it('an image rewritten on the way (kustomize images:, a patch): the container\'s image: line; unknown: null', () => {
    const text = deployment('a', 'ghcr.io/x/a:v1');
    expect(imageLineIn(text, 4, 'manager', 'registry.local/x/a:v2')).toBe(13);
    expect(imageLineIn(text, 4, 'sidecar', 'registry.local/x/a:v2')).toBeNull();
    expect(imageLineIn(text, 4, undefined, 'registry.local/x/a:v2')).toBeNull();
  });

  it('`- image:` first, `name:` after it in the same list item', () => {
    const text = 'kind: Deployment\nmetadata:\n  name: a\nspec:\n  containers:\n    - image: nginx:1\n      name: web\n';
    expect(imageLineIn(text, 3, 'web', 'nginx:2')).toBe(6);
  });
});
