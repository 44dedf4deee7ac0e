// The up benchmark's variants (scripts/bench/up/run.ts parseVariant): Flux alone or standup, at a requeue and a
// worker count.
import { describe, expect, it } from 'vitest';
import { parseVariant } from '../../scripts/bench/up/run.js';

describe('parseVariant', () => {
  it('reads flux-<requeue>-c<n> and standup[-<requeue>-c<n>]; 4 workers is the controllers\' default', () => {
    expect(parseVariant('flux-30s-c4')).toEqual({ id: 'flux-30s-c4', driver: 'flux', requeue: '30s' });
    expect(parseVariant('flux-5s-c10')).toEqual({ id: 'flux-5s-c10', driver: 'flux', requeue: '5s', concurrent: 10 });
    expect(parseVariant('standup')).toEqual({ id: 'standup', driver: 'standup', requeue: '30s' });
    expect(parseVariant('standup-5s-c10')).toMatchObject({ driver: 'standup', requeue: '5s', concurrent: 10 });
  });

  it('refuses anything else', () => {
    for (const bad of ['flux', 'flux-30s', 'flux-30-c4', 'kubectl-30s-c4', 'standup-5s']) expect(parseVariant(bad)).toBeNull();
  });
});
