import { CliError } from '../model/errors.js';

export interface ContextCheck {
  /** The cluster entry's `context` in tiers.yaml (undefined: not pinned). */
  expectedContext?: string;
  /** The cluster entry's `server` in tiers.yaml (undefined: not pinned). */
  expectedServer?: string;
  /** The kube context in use and its API server URL. */
  actualContext: string;
  actualServer: string;
  /** The tiers.yaml cluster name, for the message. */
  cluster?: string;
}

/** The guard refused: standup must not write to this cluster. Exit 4. */
export class GuardError extends CliError {
  constructor(message: string, hint: string) {
    super('CONTEXT_GUARD', message, { hint });
    this.name = 'GuardError';
  }
}

/**
 * The context guard, run before any write. Pure: returns `{ ok: true }` when the context in use matches the cluster's
 * entry in tiers.yaml (and its API server URL, where pinned), otherwise the GuardError to throw. Never does I/O.
 */
export function checkContext(c: ContextCheck): { ok: true } | { ok: false; error: GuardError } {
  const entry = c.cluster ? `cluster "${c.cluster}" in tiers.yaml` : 'tiers.yaml';
  if (c.expectedContext !== undefined && c.expectedContext !== c.actualContext) {
    return {
      ok: false,
      error: new GuardError(
        `refusing to act: the current kube context is "${c.actualContext}" (${c.actualServer}), but ${entry} pins context "${c.expectedContext}"` +
          (c.expectedServer ? ` (${c.expectedServer})` : ''),
        `Switch with \`kubectl config use-context ${c.expectedContext}\` or pass \`--context ${c.expectedContext}\`; if "${c.actualContext}" is the right cluster, fix \`context\` in tiers.yaml.`,
      ),
    };
  }
  if (c.expectedServer !== undefined && normalizeServer(c.expectedServer) !== normalizeServer(c.actualServer)) {
    return {
      ok: false,
      error: new GuardError(
        `refusing to act: context "${c.actualContext}" points at API server ${c.actualServer}, but ${entry} pins server ${c.expectedServer}`,
        `Use a context whose cluster server is ${c.expectedServer} (\`kubectl config use-context <name>\` or \`--context <name>\`); if ${c.actualServer} is the right cluster, fix \`server\` in tiers.yaml.`,
      ),
    };
  }
  return { ok: true };
}

// `https://h:6443/` and `https://H:6443` are the same server; the default port is dropped by URL itself.
function normalizeServer(s: string): string {
  try {
    const u = new URL(s);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return s.replace(/\/+$/, '');
  }
}
