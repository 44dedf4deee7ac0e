// What a discovered cluster is called: its entry directory's name, made unique.
import path from 'node:path';

/**
 * Names entries after their directory; a clash, or a bare number (a fleet's clusters/prod/01), takes the parent
 * directory too, then a number.
 */
export function nameEntries<T extends { entry: string }>(found: T[]): { name: string; f: T }[] {
  const base = (e: string) => (e ? path.posix.basename(e) : 'root');
  const counts = new Map<string, number>();
  for (const f of found) counts.set(base(f.entry), (counts.get(base(f.entry)) ?? 0) + 1);
  const used = new Set<string>();
  return found.map((f) => {
    let name = base(f.entry);
    if ((counts.get(name) ?? 0) > 1 || /^\d+$/.test(name)) {
      const parent = path.posix.basename(path.posix.dirname(f.entry));
      if (parent && parent !== '.') name = `${parent}-${name}`;
    }
    let n = name;
    for (let i = 2; used.has(n); i++) n = `${name}-${i}`;
    used.add(n);
    return { name: n, f };
  });
}

/** The entry name `--path DIR` gets when no root names it: the directory's name (the parent's too for a number). */
export function entryName(entry: string): string {
  return nameEntries([{ entry }])[0]!.name;
}
