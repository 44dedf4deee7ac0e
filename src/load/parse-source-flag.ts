// `--source KIND/NAMESPACE/NAME` (or KIND/NAME in flux-system): the root sync's source, named by hand when the
// repository does not say it (a folder no root syncs) or says it wrong.

import { ConfigError } from '../model/errors.js';
import { FLUX_SOURCE_KINDS } from '../discover/cluster-entry.js';
import { parseRef, type NamespacedRef } from '../model/ref.js';

export function parseSourceFlag(value: string): NamespacedRef {
  const ref = parseRef(value);
  const hint = `Pass --source KIND/NAMESPACE/NAME (or KIND/NAME in flux-system), KIND one of ${FLUX_SOURCE_KINDS.join(', ')}; e.g. --source GitRepository/flux-system/flux-system.`;
  if (!ref) {
    throw new ConfigError('BAD_FLAG', `--source "${value}" is not KIND/NAMESPACE/NAME`, hint);
  }
  const canonical = FLUX_SOURCE_KINDS.find((k) => k.toLowerCase() === ref.kind.toLowerCase());
  if (!canonical) {
    throw new ConfigError('BAD_FLAG', `--source "${value}": ${ref.kind} is not a Flux source a Kustomization can read; accepted kinds: ${FLUX_SOURCE_KINDS.join(', ')}`, hint);
  }
  // KIND/NAME is a source in flux-system, where `flux bootstrap` puts it (a source is never cluster-scoped).
  return { kind: canonical, namespace: ref.namespace ?? 'flux-system', name: ref.name };
}
