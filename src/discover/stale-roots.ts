// Discovery picks the live root. A root sync whose own entry does not apply its file (the cluster's kustomization
// leaves flux-system/ out or comments it out) is never re-read from git after bootstrap: an old root, or one only a
// task runner or a hand applies. Beside a live root of the same repository it is a stale twin, whose graph would
// double every finding of the live one; it is left out, and an info at its file says which root was taken and why.
import path from 'node:path';
import type { Problem } from '../model/problem.js';
import { sameGitUrl } from '../repo/git-url.js';
import type { DiscoveryScan, Found } from './discovery-scan.js';

export function leaveOutStaleTwins(scan: DiscoveryScan): Found[] {
  const byEntry = new Map<string, Found[]>();
  for (const f of scan.found) byEntry.set(f.entry, [...(byEntry.get(f.entry) ?? []), f]);
  // An entry is stale only when every root found for it is unapplied (a FluxInstance or an overlay keeps it live).
  const stale = new Set([...byEntry].filter(([, fs]) => fs.every((f) => f.unapplied)).map(([e]) => e));
  const live = scan.found.filter((f) => !stale.has(f.entry));
  const kept: Found[] = [...live];
  for (const entry of stale) {
    const roots = byEntry.get(entry)!;
    const twin = live.find((l) => roots.some((r) => sameRepository(r, l)));
    if (!twin) {
      kept.push(...roots);
      continue;
    }
    for (const r of roots) scan.problems.push(staleNote(scan, r, twin));
  }
  return kept;
}

const sameRepository = (a: Found, b: Found): boolean =>
  a.source.url && b.source.url ? sameGitUrl(a.source.url, b.source.url) : !a.source.url && !b.source.url && a.source.ref.name === b.source.ref.name;

function staleNote(scan: DiscoveryScan, r: Found, twin: Found): Problem {
  const u = r.unapplied!;
  const where = r.entry || '.';
  return {
    code: 'discovery',
    severity: 'info',
    message:
      `root sync ${u.namespace}/${u.name} (spec.path ${u.specPath || './'}) is not a cluster of its own: its path ${where} does not apply ${r.foundIn}, ` +
      `so Flux never reads this root from git again after it was first applied (an old root, or one applied by hand or a task runner). ` +
      `Discovery took the live root of the same repository, ${twin.foundIn} (entry ${twin.entry || '.'}), and left ${where} out so its findings are not doubled. ` +
      `To check it anyway, declare it in tiers.yaml (clusters: NAME: path: ${where}) or pass --path ${where}.`,
    file: r.foundIn,
    line: kustomizationLine(scan.text(path.join(scan.root, r.foundIn)), u.name),
    object: `Kustomization/${u.namespace}/${u.name}`,
    cluster: null,
  };
}

/** The line of `name: NAME` in the document of `text` that is a Kustomization, else null. */
function kustomizationLine(text: string, name: string): number | null {
  const lines = text.split('\n');
  let inKs = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith('---')) inKs = false;
    else if (/^kind:\s*["']?Kustomization\b/.test(l)) inKs = true;
    else if (inKs && new RegExp(`^\\s+name:\\s*["']?${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["']?\\s*$`).test(l)) return i + 1;
  }
  return null;
}
