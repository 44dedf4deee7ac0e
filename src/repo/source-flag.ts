// `--source KIND/NAMESPACE/NAME` (or KIND/NAME in flux-system): the root sync's source, named by hand when the
// repository does not say it (a folder no root syncs) or says it wrong.
import type { SourceRef } from '../model/flux.js';
import { ConfigError } from '../model/errors.js';
import { FLUX_SOURCE_KINDS } from './discover.js';

export function parseSourceFlag(value: string): SourceRef {
  const parts = value.split('/');
  const hint = `Pass --source KIND/NAMESPACE/NAME (or KIND/NAME in flux-system), KIND one of ${FLUX_SOURCE_KINDS.join(', ')}; e.g. --source GitRepository/flux-system/flux-system.`;
  if ((parts.length !== 2 && parts.length !== 3) || parts.some((p) => !p.trim())) {
    throw new ConfigError('BAD_FLAG', `--source "${value}" is not KIND/NAMESPACE/NAME`, hint);
  }
  const [kind, ...rest] = parts.map((p) => p.trim());
  const canonical = FLUX_SOURCE_KINDS.find((k) => k.toLowerCase() === kind!.toLowerCase());
  if (!canonical) {
    throw new ConfigError('BAD_FLAG', `--source "${value}": ${kind} is not a Flux source a Kustomization can read; accepted kinds: ${FLUX_SOURCE_KINDS.join(', ')}`, hint);
  }
  const [namespace, name] = rest.length === 2 ? (rest as [string, string]) : ['flux-system', rest[0]!];
  return { kind: canonical, namespace, name };
}
