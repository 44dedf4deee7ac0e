// The context guard with the testbed's real kubeconfig: a tiers.yaml entry pinning another context (or another API
// server) is refused with exit code 4 before the client has sent a single request.
import { describe, expect, inject, it } from 'vitest';
import { checkClusterContext, GuardError } from '../../src/cluster/guard.js';
import { loadKubeconfig } from '../../src/cluster/kubeconfig.js';
import { createClusterClient } from '../../src/cluster/node-client.js';
import { ExitCode } from '../../src/model/errors.js';

const info = inject('testbed');

describe('context guard against the testbed kubeconfig', () => {
  it('passes for the entry that pins the testbed context and server', () => {
    const k = loadKubeconfig({ kubeconfig: info.kubeconfigPath });
    expect([k.context, k.server]).toEqual([info.contextName, info.server]);
    expect(checkClusterContext('testbed', { context: info.contextName, server: info.server }, k).ok).toBe(true);
  });

  it.each([
    ['another context', { context: 'prod' }],
    ['the right context name at another server', { context: info.contextName, server: 'https://10.0.0.1:6443' }],
  ])('refuses %s before any request', (_n, entry) => {
    const k = loadKubeconfig({ kubeconfig: info.kubeconfigPath });
    const client = createClusterClient(k);
    const r = checkClusterContext('prod', entry, k);
    if (r.ok) throw new Error('expected a refusal');
    expect(r.error).toBeInstanceOf(GuardError);
    expect(r.error.exitCode).toBe(ExitCode.guard);
    expect(r.error.message).toContain(info.server);
    expect(client.stats()).toMatchObject({ requests: 0, watches: 0 });
  });
});
