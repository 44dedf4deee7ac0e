// The context guard with the testbed's real kubeconfig: a tiers.yaml entry pinning another context (or another API
// server) is refused with exit code 4 before the client has sent a single request.
import { describe, expect, inject, it } from 'vitest';
import { checkContext, GuardError } from '../../src/cluster/guard.js';
import { loadKubeconfig } from '../../src/cluster/kubeconfig.js';
import { createClusterClient } from '../../src/cluster/node-client.js';
import { ExitCode } from '../../src/model/errors.js';

const info = inject('testbed');

describe('context guard against the testbed kubeconfig', () => {
  it('passes for the entry that pins the testbed context and server', () => {
    const k = loadKubeconfig({ kubeconfig: info.kubeconfigPath });
    expect([k.context, k.server]).toEqual([info.contextName, info.server]);
    expect(checkContext({ cluster: 'testbed', expectedContext: info.contextName, expectedServer: info.server, actualContext: k.context, actualServer: k.server }).ok).toBe(true);
  });

  it.each([
    ['another context', { expectedContext: 'prod' }],
    ['the right context name at another server', { expectedContext: info.contextName, expectedServer: 'https://10.0.0.1:6443' }],
  ])('refuses %s before any request', (_n, entry) => {
    const k = loadKubeconfig({ kubeconfig: info.kubeconfigPath });
    const client = createClusterClient(k);
    const r = checkContext({ cluster: 'prod', ...entry, actualContext: k.context, actualServer: k.server });
    if (r.ok) throw new Error('expected a refusal');
    expect(r.error).toBeInstanceOf(GuardError);
    expect(r.error.exitCode).toBe(ExitCode.guard);
    expect(r.error.message).toContain(info.server);
    expect(client.stats()).toMatchObject({ requests: 0, watches: 0 });
  });
});
