import { describe, expect, it } from 'vitest';
import type { RunEvent, StepInfo } from '../../src/runner/events.js';
import { liveReporter } from '../../src/ui/reporters/live.js';
import { plainReporter } from '../../src/ui/reporters/plain.js';
import { plainStyle } from '../../src/ui/style.js';

/** A terminal that keeps what is on screen: writes are interpreted for the cursor-up and clear-below the view uses. */
function screen(columns = 80, rows = 24) {
  const lines: string[] = [];
  let raw = '';
  return {
    raw: () => raw,
    lines,
    term: {
      columns: () => columns,
      rows: () => rows,
      write(s: string) {
        raw += s;
        let rest = s;
        const up = /^\u001b\[(\d+)A\r\u001b\[J/.exec(rest);
        if (up) {
          lines.splice(lines.length - Number(up[1]));
          rest = rest.slice(up[0].length);
        }
        lines.push(...rest.split('\n').slice(0, -1));
      },
    },
  };
}

const steps: StepInfo[] = [
  { id: 'preflight', kind: 'preflight', title: 'Preflight' },
  { id: 'tier:flux-system/crds', kind: 'tier', title: 'flux-system/crds', level: 0 },
  { id: 'tier:flux-system/apps', kind: 'tier', title: 'flux-system/apps', level: 1 },
];
const at = new Date(0).toISOString();

describe('live view', () => {
  it('keeps each finished row\'s name and the summary\'s duration, and shows only running steps below', async () => {
    const s = screen();
    let t = 0;
    const r = liveReporter(s.term, plainStyle, { frameMs: 1_000_000, now: () => t });
    const feed = (e: RunEvent) => r.onEvent(e);
    feed({ type: 'plan', cluster: 'dev', command: 'resume', steps, dryRun: false });
    feed({ type: 'step-start', id: 'preflight', at });
    feed({ type: 'step-end', id: 'preflight', result: 'ok', durationMs: 707, message: 'context ok' });
    feed({ type: 'step-end', id: 'tier:flux-system/crds', result: 'skipped', durationMs: 0, message: 'already Ready at main@sha1:aaaaaaaa' });
    feed({ type: 'step-start', id: 'tier:flux-system/apps', at });
    feed({ type: 'step-status', id: 'tier:flux-system/apps', state: 'progressing', message: 'Building manifests' });
    t = 1500;
    await new Promise((x) => setTimeout(x, 0));
    // draw a frame by hand (the timer is parked far away)
    (r as unknown as { onEvent(e: RunEvent): void }).onEvent({ type: 'log', level: 'warn', message: 'cluster unreachable since 10:00:00, retrying' });
    await r.close();
    const text = s.lines.join('\n');
    expect(text).toContain('✔ Preflight: context ok [707ms]');
    expect(text).toContain('↓ flux-system/crds (level 0): already Ready at main@sha1:aaaaaaaa [0ms]');
    expect(text).toContain('! cluster unreachable since 10:00:00, retrying');
    // the running step's window is gone once the view closes: no stale line is left behind
    expect(text).not.toContain('Building manifests');
  });

  it('at 80 columns, a long status line (what a health check waits on) wraps over up to three lines; a teardown\'s later steps are "queued"', async () => {
    const s = screen(80, 30);
    const r = liveReporter(s.term, plainStyle, { frameMs: 5 });
    const teardown: StepInfo[] = [{ id: 'tier:apps/web', kind: 'tier', title: 'apps/web', level: 1 }, { id: 'delete:a/b', kind: 'teardown', title: 'Delete a/b' }, { id: 'delete:a/c', kind: 'teardown', title: 'Delete a/c' }];
    r.onEvent({ type: 'plan', cluster: 'dev', command: 'reset --up', steps: teardown, dryRun: false });
    r.onEvent({ type: 'step-start', id: 'tier:apps/web', at });
    r.onEvent({ type: 'step-status', id: 'tier:apps/web', state: 'progressing', message: 'health check waiting on Deployment/home-automation/home-assistant: 0/1 ready; home-assistant-5c674c76b4-stmbf: ImagePullBackOff (container manager, image 127.0.0.1:1/home-assistant/home-assistant:2099.1): Back-off pulling image' });
    await new Promise((x) => setTimeout(x, 30));
    const window = s.lines.slice(1).join('\n');
    expect(s.lines.slice(1).every((l) => l.length <= 79)).toBe(true);
    expect(s.lines.slice(2, 5).map((l) => l.slice(4)).join('')).toContain('ImagePullBackOff (container manager, image 127.0.0.1:1/home-assistant');
    expect(window).toContain('… 2 queued');
    expect(window).not.toContain('waiting on what they depend on');
    await r.close();
  });

  it('cuts the running window to the terminal and says how many more there are', async () => {
    const s = screen(40, 6);
    const many: StepInfo[] = Array.from({ length: 10 }, (_, i) => ({ id: `tier:ns/t${i}`, kind: 'tier', title: `ns/t${i}`, level: 0 }));
    const r = liveReporter(s.term, plainStyle, { frameMs: 5 });
    r.onEvent({ type: 'plan', cluster: 'dev', command: 'up', steps: many, dryRun: false });
    for (const x of many) {
      r.onEvent({ type: 'step-start', id: x.id, at });
      r.onEvent({ type: 'step-status', id: x.id, state: 'waiting', message: `waiting for a dependency with a long message that does not fit ${x.id}` });
    }
    await new Promise((x) => setTimeout(x, 30));
    const window = s.lines.slice(1);
    expect(window.length).toBeLessThanOrEqual(5);
    expect(window.every((l) => l.length <= 39)).toBe(true);
    expect(window.at(-1)).toMatch(/… \d+ more running/);
    await r.close();
    expect(s.lines).toEqual([expect.stringContaining('standup up cluster dev')]);
  });

  it('shows a dry run\'s changes in the conditional ("would"), in both reporters', async () => {
    const s = screen();
    const live = liveReporter(s.term, plainStyle, { frameMs: 1_000_000 });
    let plain = '';
    const p = plainReporter((x) => (plain += x), plainStyle);
    const events: RunEvent[] = [
      { type: 'plan', cluster: 'dev', command: 'reset', steps: [{ id: 'suspend', kind: 'teardown', title: 'Suspend the root sync' }], dryRun: true },
      { type: 'change', id: 'suspend', object: 'Kustomization/flux-system/flux-system', change: { kind: 'suspend' }, dryRun: true },
      { type: 'change', id: 'suspend', object: 'Kustomization/flux-system/apps', change: { kind: 'annotate', key: 'reconcile.fluxcd.io/requestedAt' }, dryRun: true },
    ];
    for (const e of events) {
      live.onEvent(e);
      p.onEvent(e);
    }
    await live.close();
    for (const out of [s.lines.join('\n'), plain]) {
      expect(out).toContain('would suspend Kustomization/flux-system/flux-system');
      expect(out).toContain('would annotate Kustomization/flux-system/apps (reconcile.fluxcd.io/requestedAt)');
      expect(out).not.toMatch(/^\s*suspended/m);
    }
  });
});
