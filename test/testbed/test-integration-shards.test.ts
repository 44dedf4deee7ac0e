import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { assign, defaultShards, listFiles, readDurations } from '../../scripts/test-integration.mjs';

type Shard = { files: string[]; seconds: number };

describe('scripts/test-integration.mjs', () => {
  it('defaults to 2 shards with 2 or more cores, 1 on a single core', () => {
    expect(defaultShards(1)).toBe(1);
    expect(defaultShards(2)).toBe(2);
    expect(defaultShards(16)).toBe(2);
  });

  it('gives the longest file first to the least loaded shard; an unknown file counts as 60 s', () => {
    const shards = assign(['a', 'b', 'c', 'd', 'e'], 2, { a: 100, b: 70, c: 40, d: 30 }) as Shard[];
    expect(shards).toEqual([
      { files: ['a', 'c'], seconds: 140 },
      { files: ['b', 'e', 'd'], seconds: 160 },
    ]);
    expect(assign(['a'], 3, {})).toEqual([{ files: ['a'], seconds: 60 }]);
  });

  it('splits the integration files of the last CI run into two shards within a minute of each other', () => {
    const files = listFiles() as string[];
    const shards = assign(files, 2, readDurations()) as Shard[];
    expect(shards.flatMap((s) => s.files).sort()).toEqual(files);
    expect(Math.abs(shards[0]!.seconds - shards[1]!.seconds)).toBeLessThan(60);
  });
});
