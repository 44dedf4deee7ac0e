import { describe, expect, it } from 'vitest';
import { renderSummary, type RunOutcome } from '../../src/ui/reporters/summary.js';
import { plainStyle } from '../../src/ui/style.js';

const run: RunOutcome = {
  command: 'up',
  ok: false,
  durationMs: 174_000,
  steps: [
    { id: 'namespaces', level: null, title: 'Wait for pruned Namespaces and CRDs to be gone', result: 'ok', durationMs: 1200, message: '' },
    { id: 'tier:home-automation/home-assistant-configuration', level: 3, title: 'home-automation/home-assistant-configuration', result: 'failed', durationMs: 68, message: 'home-automation/home-assistant-configuration failed its health check after 68ms; still not healthy: Deployment/home-automation/home-assistant (Failed)\n  Deployment/home-automation/home-assistant: 0/1 ready; home-assistant-7d9f-x2: ImagePullBackOff (container app, image ghcr.io/home-assistant/home-assistant:2099.1)' },
    { id: 'tier:home-automation/dashboards', level: 4, title: 'home-automation/dashboards', result: 'not-run', durationMs: null, message: 'not run, not evaluated: home-automation/home-assistant-configuration failed' },
  ],
};

describe('the end-of-run table', () => {
  it('fits 80 columns: LEVEL gives way, then each NOTE goes under its step; no row wraps', () => {
    const text = renderSummary(run, plainStyle, 80);
    const lines = text.trimEnd().split('\n');
    expect(lines.every((l) => l.length <= 80), text).toBe(true);
    expect(lines[0]).toMatch(/^STEP\s+RESULT\s+DURATION$/);
    expect(lines[2]).toMatch(/^home-automation\/home-assistant-configuration\s+failed\s+68ms$/);
    expect(lines[3]).toMatch(/^ {4}home-automation\/home-assistant-configuration failed its health check after/);
    // The note wraps under its step, so the workload's reason is there too.
    expect(lines.slice(3, 8).join(' ')).toContain('ImagePullBackOff');
  });

  it('on a wide terminal (and in a pipe), the table keeps LEVEL and NOTE, and a NOTE joins every line of the explanation', () => {
    const text = renderSummary(run, plainStyle, 400);
    expect(text.split('\n')[0]).toMatch(/^LEVEL\s+STEP\s+RESULT\s+DURATION\s+NOTE$/);
    const piped = renderSummary({ ...run, steps: [{ ...run.steps[1]!, message: 'tier failed\n  ImagePullBackOff (container app, image x:1)' }] }, plainStyle);
    expect(piped).toContain('tier failed; ImagePullBackOff (container app, image x:1)');
  });

  it('a run refused before its first write (preflight failed) ends with one line, not a table of steps that never ran', () => {
    const why = 'cannot reach the API server of context dev (https://127.0.0.1:1): ECONNREFUSED';
    const refused: RunOutcome = {
      command: 'up',
      ok: false,
      durationMs: 24,
      steps: [
        { id: 'check', level: null, title: 'Check the graph', result: 'ok', durationMs: 0, message: '' },
        { id: 'preflight', level: null, title: 'Preflight', result: 'failed', durationMs: 21, message: why },
        { id: 'install', level: null, title: 'Bootstrap Flux', result: 'not-run', durationMs: null, message: 'not run: the run stopped before it: Preflight failed' },
        { id: 'tier:flux-system/crds', level: 0, title: 'flux-system/crds', result: 'not-run', durationMs: null, message: 'not run: the run stopped before it: Preflight failed' },
      ],
    };
    const text = renderSummary(refused, plainStyle, 80);
    expect(text).toBe('✗ up stopped in 24ms, before it changed anything on the cluster (2 steps not run)\n');
    // Once a step that writes has run, the table is back: what happened to each tier matters then.
    const wrote = renderSummary({ ...refused, steps: refused.steps.map((s) => (s.id === 'install' ? { ...s, result: 'failed' as const, durationMs: 5 } : s)) }, plainStyle, 80);
    expect(wrote).toMatch(/^(LEVEL\s+)?STEP\s+RESULT\s+DURATION/);
    expect(wrote).toContain('flux-system/crds');
  });
});
