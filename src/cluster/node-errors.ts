// Error translation for node-client.ts: whatever @kubernetes/client-node throws (ApiException, fetch and socket
// errors, aborts) becomes a ClusterError with a reason, so nothing above src/cluster sees a client-node type.

import { ApiException } from '@kubernetes/client-node';

import { ClusterError, ClusterTimeoutError, ConflictError, NotFoundError, type ClusterReason } from './errors.js';
import { type ApiRef, refKey } from '../model/ref.js';

/** The API Status body of a failed request (reason, message), when the server sent one. */
export interface ApiStatus {
  reason?: string;
  message?: string;
  code?: number;
}

function statusOf(e: ApiException<unknown>): ApiStatus {
  try {
    return JSON.parse(String(e.body)) as ApiStatus;
  } catch {
    return { message: e.body === undefined ? undefined : String(e.body) };
  }
}

const reasonByCode: Record<number, ClusterReason> = {
  400: 'Invalid',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  408: 'Timeout',
  409: 'Conflict',
  410: 'Gone',
  422: 'Invalid',
  504: 'Timeout',
};

const errnoOf = (e: unknown): string | undefined => {
  const x = e as { code?: unknown; errno?: unknown; cause?: { code?: unknown } } | null;
  const c = x?.code ?? x?.cause?.code ?? x?.errno;
  return typeof c === 'string' ? c : undefined;
};

// undici reports a connection the server dropped mid-stream as `TypeError: terminated` (cause UND_ERR_SOCKET).
const UNREACHABLE = /^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|UND_ERR_SOCKET|UND_ERR_CONNECT_TIMEOUT)$/;

/** Turns whatever client-node threw into a ClusterError; `ref` makes 404s NotFoundErrors. */
export function toClusterError(e: unknown, server: string, timeoutMs: number, ref?: ApiRef): ClusterError {
  if (e instanceof ClusterError) return e;
  if (e instanceof ApiException) {
    const st = statusOf(e);
    const reason = reasonByCode[e.code] ?? 'Other';
    const msg = st.message ?? `HTTP ${e.code}`;
    if (e.code === 404 && ref) return new NotFoundError(ref, `${refKey(ref)} not found: ${msg}`, { cause: e });
    if (reason === 'Timeout') return new ClusterTimeoutError(`${msg} (HTTP ${e.code})`, { cause: e });
    if (reason === 'Conflict') return new ConflictError(`${ref ? `${refKey(ref)}: ` : ''}${msg}`, { cause: e });
    return new ClusterError(reason, `${e.code} ${msg}`, e.code, { cause: e });
  }
  // client-node's Watch reports a non-200 answer as an Error with statusCode (410 Gone, 401, 403).
  const statusCode = (e as { statusCode?: unknown } | null)?.statusCode;
  if (typeof statusCode === 'number') {
    const reason = reasonByCode[statusCode] ?? 'Other';
    return new ClusterError(reason, `${statusCode} ${e instanceof Error ? e.message : String(e)}`, statusCode, { cause: e });
  }
  const name = (e as { name?: unknown } | null)?.name;
  if (name === 'AbortError' || name === 'TimeoutError') {
    return new ClusterTimeoutError(`request to the API server ${server} timed out after ${timeoutMs} ms`, { cause: e });
  }
  const errno = errnoOf(e);
  if (errno && UNREACHABLE.test(errno)) {
    return new ClusterError('Unreachable', `cannot reach the API server ${server}: ${errno}`, undefined, {
      cause: e,
      hint: 'Is the cluster running, and is this the right context?',
    });
  }
  return new ClusterError('Other', e instanceof Error ? e.message : String(e), undefined, { cause: e });
}

/** The API Status of a ClusterError made from an ApiException (for apply's messages), if any. */
export function apiStatusOf(e: ClusterError): ApiStatus | undefined {
  return e.cause instanceof ApiException ? statusOf(e.cause) : undefined;
}

/** A failure that says the API server itself could not be reached (not a rejection by it). */
export const isUnreachable = (e: ClusterError): boolean => e.reason === 'Unreachable' || (e.reason === 'Timeout' && e.status === undefined);
