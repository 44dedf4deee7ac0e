import type { KubernetesObject } from '@kubernetes/client-node';
import type { CrdOperatorOptions } from './operator.js';

// The seeds' CDI pair, reduced to what the deadlock needs: the CDI resource
// (its CRD ships in the repo) and StorageProfile (its CRD is installed by the
// CDI operator only once a CDI exists). Schemas accept anything.

export const CDI_GROUP = 'cdi.kubevirt.io';
export const CDI_VERSION = 'v1beta1';

/** A CRD as raw JSON (see apply() in kube.ts for why not the typed model). */
export type CrdManifest = KubernetesObject & { spec: Record<string, unknown> };

function clusterCrd(plural: string, kind: string): CrdManifest {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${CDI_GROUP}` },
    spec: {
      group: CDI_GROUP,
      scope: 'Cluster',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: CDI_VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

export const cdiCrd = (): CrdManifest => clusterCrd('cdis', 'CDI');
export const storageProfileCrd = (): CrdManifest => clusterCrd('storageprofiles', 'StorageProfile');

/**
 * Operator options: a CDI appears (any, or one named in `names`) ->
 * storageprofiles.cdi.kubevirt.io is created after `delayMs`.
 */
export function cdiOperatorOptions(delayMs = 3000, names?: string[]): CrdOperatorOptions {
  return {
    trigger: { group: CDI_GROUP, version: CDI_VERSION, plural: 'cdis' },
    crd: storageProfileCrd(),
    delayMs,
    ...(names ? { names } : {}),
  };
}
