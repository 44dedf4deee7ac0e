// The API server's own record of who did what: the proof that a command "writes nothing", and how benchmarks count
// standup's API requests. Every testbed component (kube-controller-manager, kube-scheduler, kubelet, kube-proxy,
// the Flux controllers) has a user of its own, and the policy logs nothing for them, nor for ServiceAccounts or
// health probes: what is left is what tests and standup (the admin kubeconfig, user `admin`) asked.
import { existsSync, readFileSync } from 'node:fs';
import { stringify } from 'yaml';

/** Users the testbed's own components authenticate as (tokens.csv); the audit policy ignores them. */
export const COMPONENT_USERS = [
  'system:kube-controller-manager',
  'system:kube-scheduler',
  'system:node:standup-node',
  'system:kube-proxy',
  'flux:source-controller',
  'flux:kustomize-controller',
  'flux:helm-controller',
] as const;

export const ADMIN_USER = 'admin';

export function auditPolicyYaml(): string {
  return stringify({
    apiVersion: 'audit.k8s.io/v1',
    kind: 'Policy',
    omitStages: ['RequestReceived'],
    rules: [
      { level: 'None', users: [...COMPONENT_USERS] },
      { level: 'None', userGroups: ['system:serviceaccounts', 'system:nodes'] },
      { level: 'None', nonResourceURLs: ['/healthz*', '/readyz*', '/livez*', '/version', '/openapi*'] },
      { level: 'Metadata' },
    ],
  });
}

/** The fields of an audit.k8s.io/v1 Event that tests and benchmarks read. */
export interface AuditEvent {
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: { username: string; groups?: string[] };
  userAgent?: string;
  objectRef?: { resource?: string; namespace?: string; name?: string; apiGroup?: string; apiVersion?: string; subresource?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
}

export const MUTATING_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

export interface AuditFilter {
  /** Only requests received at or after this time. */
  since?: Date;
  until?: Date;
  /** Default: the admin user (tests and standup). */
  user?: string;
  /** Only create/update/patch/delete/deletecollection. */
  mutating?: boolean;
  /** Only requests naming this field manager (server-side apply and updates send ?fieldManager=). */
  fieldManager?: string;
}

/** One event per request (stage ResponseComplete, or Panic), filtered. */
export function readAudit(file: string, f: AuditFilter = {}): AuditEvent[] {
  if (!existsSync(file)) return [];
  const user = f.user ?? ADMIN_USER;
  const out: AuditEvent[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    let e: AuditEvent;
    try {
      e = JSON.parse(line) as AuditEvent;
    } catch {
      continue; // a line being written right now
    }
    if (e.stage !== 'ResponseComplete' && e.stage !== 'Panic') continue;
    if (e.user?.username !== user) continue;
    const at = new Date(e.requestReceivedTimestamp);
    if (f.since && at < f.since) continue;
    if (f.until && at > f.until) continue;
    if (f.mutating && !MUTATING_VERBS.has(e.verb)) continue;
    if (f.fieldManager && new URL(e.requestURI, 'https://x').searchParams.get('fieldManager') !== f.fieldManager) continue;
    out.push(e);
  }
  return out;
}

/**
 * Requests by one user agent that the API server has started answering but not yet logged as complete: a watch is
 * logged as ResponseComplete only once it ends, a moment after its client went away, so a reader that wants the
 * whole record waits for this to be empty first.
 */
export function openRequests(file: string, userAgent: string): string[] {
  if (!existsSync(file)) return [];
  const open = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.includes(userAgent)) continue;
    let e: AuditEvent;
    try {
      e = JSON.parse(line) as AuditEvent;
    } catch {
      continue;
    }
    if (e.userAgent !== userAgent) continue;
    if (e.stage === 'ResponseStarted') open.add(e.auditID);
    else if (e.stage === 'ResponseComplete' || e.stage === 'Panic') open.delete(e.auditID);
  }
  return [...open];
}

/** `verb resource[/subresource] ns/name -> code`, for a failure message that shows what was written. */
export const describeAudit = (e: AuditEvent): string =>
  `${e.verb} ${e.objectRef?.resource ?? e.requestURI}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''} ` +
  `${e.objectRef?.namespace ? `${e.objectRef.namespace}/` : ''}${e.objectRef?.name ?? ''} -> ${e.responseStatus?.code ?? '?'}`;
