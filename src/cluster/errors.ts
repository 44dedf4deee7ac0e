import { CliError, type ErrorCode } from '../model/errors.js';
import { type ApplyResult } from './client.js';
import { type ApiRef, refKey } from '../model/ref.js';

/**
 * Why a request failed, from the API status (or the transport). Typed Errors: every ClusterClient method throws a
 * ClusterError whose `reason` is one of these, never a raw client-node ApiException.
 */
export type ClusterReason =
  | 'NotFound'
  | 'Conflict'
  | 'Invalid'
  | 'NoKind'
  | 'Forbidden'
  | 'Unauthorized'
  | 'Gone'
  | 'Timeout'
  | 'Unreachable'
  | 'Aborted'
  | 'Other';

/** The code a failed request carries: CLUSTER_<REASON>, whose exit code the table in src/model/errors.ts gives. */
const codeOf = (reason: ClusterReason) => `CLUSTER_${reason.toUpperCase() as Uppercase<ClusterReason>}` as const;

export class ClusterError extends CliError {
  constructor(
    readonly reason: ClusterReason,
    message: string,
    readonly status?: number,
    options?: ErrorOptions & { code?: ErrorCode; hint?: string },
  ) {
    super(options?.code ?? codeOf(reason), message, options);
    this.name = 'ClusterError';
  }
}

export class NotFoundError extends ClusterError {
  constructor(readonly ref: ApiRef, message = `${refKey(ref)} not found`, options?: ErrorOptions) {
    super('NotFound', message, 404, options);
    this.name = 'NotFoundError';
  }
}

/** A write lost a race (409): a resourceVersion precondition or, without force, an SSA field-manager conflict. */
export class ConflictError extends ClusterError {
  constructor(message: string, options?: ErrorOptions) {
    super('Conflict', message, 409, options);
    this.name = 'ConflictError';
  }
}

/** The API server does not serve this kind: `no matches for kind "K" in version "g/v"` (kubectl's and Flux's text). */
export class NoKindError extends ClusterError {
  constructor(readonly apiVersion: string, readonly kind: string, options?: ErrorOptions) {
    super('NoKind', `no matches for kind "${kind}" in version "${apiVersion}"`, 404, {
      ...options,
      hint: 'Its CustomResourceDefinition is not installed (or not Established yet).',
    });
    this.name = 'NoKindError';
  }
}

/** A request did not complete in time (the client-side request timeout, or a wait). */
export class ClusterTimeoutError extends ClusterError {
  constructor(message: string, options?: ErrorOptions) {
    super('Timeout', message, undefined, options);
    this.name = 'ClusterTimeoutError';
  }
}

/** A wait ended because its signal was aborted (Ctrl-C, the overall --timeout): not a cluster failure. */
export class AbortedError extends ClusterError {
  constructor(message: string, options?: ErrorOptions) {
    super('Aborted', message, undefined, options);
    this.name = 'AbortedError';
  }
}

/**
 * One object of an apply was rejected, or its request timed out (APPLY_TIMEOUT, exit 3: run again, or resume). The message starts with the object, as fluxcd/pkg ssa's DryRunErr does:
 * `StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"`,
 * or `ConfigMap/ns/x dry-run failed (Invalid): <the API server's message>`.
 * `applied` holds the results of the objects applied before the failure (the partial change set).
 */
export class ApplyError extends ClusterError {
  constructor(
    readonly ref: ApiRef,
    readonly phase: 'dry-run' | 'apply' | 'wait',
    reason: ClusterReason,
    detail: string,
    readonly applied: ApplyResult[] = [],
    o: { status?: number; statusReason?: string; cause?: unknown } = {},
  ) {
    const suffix = reason === 'NoKind' || !o.statusReason ? '' : ` (${o.statusReason})`;
    super(reason, `${refKey(ref)} ${phase} failed${suffix}: ${detail}`, o.status, {
      code: reason === 'Timeout' ? 'APPLY_TIMEOUT' : 'APPLY_FAILED',
      cause: o.cause,
    });
    this.name = 'ApplyError';
  }
}
