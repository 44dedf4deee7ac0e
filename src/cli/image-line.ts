// Where an image is written: the line to edit when a pod cannot pull it. The run's model knows each object's file
// and the line of its metadata.name; the image's own line is found in that object's YAML document, read here (the
// runner reads no files).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Origin } from '../model/flux.js';

const DOC_SEPARATOR = /^---\s*(#.*)?$/;
const IMAGE = /^\s*(?:-\s+)?image:\s*(['"]?)(.+?)\1\s*(?:#.*)?$/;
const NAME = /^\s*(?:-\s+)?name:\s*(['"]?)(.+?)\1\s*(?:#.*)?$/;

/**
 * The 1-based line of `image` in the YAML document of `text` that holds line `docLine` (null: the first document):
 * the `image:` line whose value is the image; else, when the value was rewritten on the way (kustomize `images:`, a
 * patch), the `image:` line of the container named `container`; else null.
 */
export function imageLineIn(text: string, docLine: number | null, container: string | undefined, image: string): number | null {
  const lines = text.split('\n');
  let start = 0;
  let end = lines.length;
  const at = (docLine ?? 1) - 1;
  for (let i = 0; i < lines.length; i++) {
    if (!DOC_SEPARATOR.test(lines[i]!)) continue;
    if (i <= at) start = i + 1;
    else {
      end = i;
      break;
    }
  }
  let byContainer: number | null = null;
  let lastName: string | null = null;
  for (let i = start; i < end; i++) {
    const name = NAME.exec(lines[i]!);
    if (name) lastName = name[2]!;
    const m = IMAGE.exec(lines[i]!);
    if (!m) continue;
    if (m[2] === image) return i + 1;
    // `- image: x` then `name: c` in the same list item: the name may come after; look ahead a few lines too.
    const named = lastName === container || lines.slice(i + 1, i + 4).some((l) => NAME.exec(l)?.[2] === container && !/^\s*-/.test(l));
    if (container && named && byContainer === null) byContainer = i + 1;
  }
  return byContainer;
}

/** A locator for the run: the image's origin in the repository at `root`, or null when it cannot be told. */
export const imageLocator = (root: string) => (at: Origin, container: string | undefined, image: string): Origin | null => {
  try {
    const line = imageLineIn(readFileSync(path.resolve(root, at.file), 'utf8'), at.line, container, image);
    return line === null ? null : { file: at.file, line };
  } catch {
    return null; // not a file of the checkout (rendered from a chart, say): the object's own origin is named
  }
};
