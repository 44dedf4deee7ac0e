import { describe, expect, it } from 'vitest';
import { checkContext, GuardError } from '../../src/cluster/guard.js';
import { ExitCode } from '../../src/model/errors.js';

describe('checkContext', () => {
  it.each([
    ['passes when nothing is pinned', {}, true],
    ['passes when the context matches', { expectedContext: 'prod' }, true],
    ['passes when context and server match, ignoring a trailing slash and host case', { expectedContext: 'prod', expectedServer: 'https://API.prod.example:6443/' }, true],
    ['refuses another context', { expectedContext: 'dev' }, false],
    ['refuses the right context name pointing at another server', { expectedContext: 'prod', expectedServer: 'https://api.dev.example:6443' }, false],
    ['refuses a server mismatch even without a pinned context', { expectedServer: 'https://10.0.0.1:6443' }, false],
  ])('%s', (_n, pins, ok) => {
    const r = checkContext({ ...pins, actualContext: 'prod', actualServer: 'https://api.prod.example:6443', cluster: 'prod' });
    expect(r.ok).toBe(ok);
  });

  it('names both contexts and says how to fix it, with exit code 4', () => {
    const r = checkContext({ expectedContext: 'homelab', actualContext: 'kind-test', actualServer: 'https://127.0.0.1:41234', cluster: 'homelab' });
    if (r.ok) throw new Error('expected a refusal');
    expect(r.error).toBeInstanceOf(GuardError);
    expect(r.error.exitCode).toBe(ExitCode.guard);
    expect(r.error.message).toBe('refusing to act: the current kube context is "kind-test" (https://127.0.0.1:41234), but cluster "homelab" in tiers.yaml pins context "homelab"');
    expect(r.error.hint).toContain('kubectl config use-context homelab');
    expect(r.error.hint).toContain('--context homelab');
    expect(r.error.hint).toContain('tiers.yaml');
  });

  it('names both servers on a server mismatch', () => {
    const r = checkContext({ expectedContext: 'prod', expectedServer: 'https://api.prod.example:6443', actualContext: 'prod', actualServer: 'https://api.dev.example:6443' });
    if (r.ok) throw new Error('expected a refusal');
    expect(r.error.message).toContain('https://api.dev.example:6443');
    expect(r.error.message).toContain('https://api.prod.example:6443');
  });
});
