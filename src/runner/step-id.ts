// A step's id names it in every event (`-o json` prints them): one fixed id per run for the fixed steps, and one per
// Kustomization for the tiers `up` waits on and the ones `reset` deletes.

/** The steps a run has at most once. */
export type FixedStepId = 'check' | 'preflight' | 'install' | 'bootstrap' | 'crds' | 'source' | 'suspend' | 'namespaces';

/** A fixed step, a tier (`tier:<namespace/name>`), a teardown (`delete:<namespace/name>`) or a ResourceSet (`rset:<namespace/name>`). */
export type StepId = FixedStepId | `tier:${string}` | `delete:${string}` | `rset:${string}`;

/** What a step id says: the fixed step, or the Kustomization (`namespace/name`) a tier or teardown step is for. */
export type ParsedStepId = { kind: 'fixed'; id: FixedStepId } | { kind: 'tier' | 'delete' | 'rset'; key: string };

export const tierStepId = (key: string): StepId => `tier:${key}`;
export const deleteStepId = (key: string): StepId => `delete:${key}`;
export const resourceSetStepId = (key: string): StepId => `rset:${key}`;

export function parseStepId(id: StepId): ParsedStepId {
  if (id.startsWith('tier:')) return { kind: 'tier', key: id.slice('tier:'.length) };
  if (id.startsWith('delete:')) return { kind: 'delete', key: id.slice('delete:'.length) };
  if (id.startsWith('rset:')) return { kind: 'rset', key: id.slice('rset:'.length) };
  return { kind: 'fixed', id: id as FixedStepId };
}
