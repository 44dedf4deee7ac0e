// Reading Flux's Ready messages into structured facts. Pure; the messages are quoted from fluxcd/pkg and
// kustomize-controller (FLUX.md §1, §3, §4).

import { groupOf, parseRef, type ObjRef } from '../model/ref.js';

/**
 * The second-order CRD deadlock: a Kustomization's dry-run hit a custom resource whose CRD is not installed, so
 * Flux applied nothing of that stage (fluxcd/pkg ssa DryRunErr).
 */
export interface MissingCrd {
  type: 'missing-crd';
  /** The custom resource's kind, group and version, e.g. StorageProfile, cdi.kubevirt.io, v1beta1. */
  kind: string;
  group: string;
  version: string;
  /** The object that failed: `Kind/namespace/name` or `Kind/name`. */
  object: string;
}

/** One object a health check was still waiting on (or found failed). */
export interface PendingObject extends ObjRef {
  /** `Kind/namespace/name` or `Kind/name`, as Flux printed it. */
  object: string;
  /** kstatus: InProgress, Failed, Terminating, NotFound, Unknown. */
  status: string;
  /** The per-object error Flux appended, if any. */
  error?: string;
}

/** A health check ended: `timeout waiting for: [...]` or `failed early due to stalled resources: [...]`. */
export interface HealthCheckFailure {
  type: 'health-check';
  cause: 'timeout' | 'stalled';
  /** How long Flux waited (`health check failed after 4m59s`), when stated. */
  after: string | null;
  objects: PendingObject[];
}

export type Diagnosis = MissingCrd | HealthCheckFailure;

const NO_MATCH = /(?:^|\n)\s*(?:([^\s/]+(?:\/[^\s/]+){1,2}) dry-run failed(?: \([^)]*\))?: )?no matches for kind "([^"]+)" in version "([^"]+)"/;

/** Parses a `no matches for kind "K" in version "g/v"` failure; null when the message is something else. */
export function parseMissingCrd(message: string | undefined): MissingCrd | null {
  const m = message ? NO_MATCH.exec(message) : null;
  if (!m) return null;
  const [, object, kind, apiVersion] = m as unknown as [string, string | undefined, string, string];
  const group = groupOf(apiVersion);
  return {
    type: 'missing-crd',
    kind,
    group,
    version: group ? apiVersion.slice(group.length + 1) : apiVersion,
    object: object ?? kind,
  };
}

const HEALTH = /(timeout waiting for|failed early due to stalled resources): \[(.*)\]/s;
const AFTER = /health check failed after ([0-9a-zµ.]+)/;

/** Parses a health-check failure into the objects still in progress (or stalled); null for other messages. */
export function parseHealthCheck(message: string | undefined): HealthCheckFailure | null {
  const m = message ? HEALTH.exec(message) : null;
  if (!m) return null;
  const objects: PendingObject[] = [];
  // Entries are `Kind/ns/name status: 'InProgress'` with an optional `: <error>`, joined by ", ". An error may itself
  // contain ", ", so split only before the next `Kind/… status: '`.
  const body = m[2]!;
  const entry = /([A-Za-z0-9]+\/[^\s,]+(?:\/[^\s,]+)?) status: '([A-Za-z]+)'(?:: (.*?))?(?=, [A-Za-z0-9]+\/[^\s,]+ status: '|, can't determine status for |$)/gs;
  for (const e of body.matchAll(entry)) objects.push(pending(e[1]!, e[2]!, e[3]));
  for (const e of body.matchAll(/can't determine status for ([^\s,\]]+)/g)) objects.push(pending(e[1]!, 'Unknown'));
  for (const e of body.matchAll(/([A-Za-z0-9]+\/[^\s,]+) \(unknown status\)/g)) objects.push(pending(e[1]!, 'Unknown'));
  return {
    type: 'health-check',
    cause: m[1] === 'timeout waiting for' ? 'timeout' : 'stalled',
    after: AFTER.exec(message!)?.[1] ?? null,
    objects,
  };
}

function pending(object: string, status: string, error?: string): PendingObject {
  const { kind, namespace, name } = parseRef(object) ?? { kind: object, namespace: null, name: object };
  return { object, kind, namespace, name, status, ...(error ? { error: error.trim() } : {}) };
}

/** Diagnoses a Kustomization's Ready message: the CRD deadlock, or the objects a health check waited on. */
export function diagnoseMessage(message: string | undefined): Diagnosis | null {
  return parseMissingCrd(message) ?? parseHealthCheck(message);
}

/**
 * The dependency named in a DependencyNotReady message, as `namespace/name`:
 * `dependency 'flux-system/infra' is not ready`, `… revision is not up to date`, `… not found: …`,
 * `… is not ready according to readyExpr eval`.
 */
export function parseDependency(message: string | undefined): { key: string; why: 'not-ready' | 'revision' | 'not-found' | 'ready-expr' } | null {
  const m = message ? /dependency '([^']+)' (is not ready according to readyExpr|revision is not up to date|not found|is not ready)/.exec(message) : null;
  if (!m) return null;
  const why = m[2]!.startsWith('is not ready according') ? 'ready-expr' : m[2] === 'revision is not up to date' ? 'revision' : m[2] === 'not found' ? 'not-found' : 'not-ready';
  return { key: m[1]!, why };
}
