import type { FluxKustomization } from '../../model/flux.js';
import { atKustomization, type Rule } from '../rule.js';

// One namespace/name is defined once per cluster: a second definition silently overwrites the first when applied.
export const duplicateRule: Rule = {
  code: 'duplicate',
  description: 'each namespace/name is defined once per cluster',
  check: ({ clusters }) =>
    clusters.flatMap(({ cluster }) => {
      const byKey = new Map<string, FluxKustomization[]>();
      for (const ks of cluster.kustomizations) byKey.set(ks.key, [...(byKey.get(ks.key) ?? []), ks]);
      return [...byKey.values()]
        .filter((defs) => defs.length > 1)
        .flatMap(([first, ...rest]) =>
          rest.map((dup) =>
            atKustomization(
              'duplicate',
              'error',
              cluster.name,
              dup,
              `Kustomization ${dup.key} is defined twice: here and at ${first!.origin.file}:${first!.origin.line ?? '?'}; ` +
                `the later apply overwrites the earlier. Rename one or remove it.`,
            ),
          ),
        );
    }),
};
