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
            sameDefinition(first!, dup)
              ? // One definition applied twice: by its parent, and again by itself (its spec.path builds its own file).
                atKustomization(
                  'duplicate',
                  'warning',
                  cluster.name,
                  dup,
                  `Kustomization ${dup.key} applies its own file: its spec.path (${dup.path ?? '.'}) builds ${dup.origin.file}, which defines it, ` +
                    `so it is applied twice, by ${first!.parent ?? 'the root sync'} and by itself, and each apply sets its ` +
                    `kustomize.toolkit.fluxcd.io/name label to the applier's name. ` +
                    `Leave its file out of its own path (a kustomization.yaml there, or move the file).`,
                )
              : atKustomization(
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

const sameDefinition = (a: FluxKustomization, b: FluxKustomization): boolean =>
  a.origin.file === b.origin.file && a.origin.line === b.origin.line && b.parent === a.key;
