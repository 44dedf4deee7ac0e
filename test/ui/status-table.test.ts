import { describe, expect, it } from 'vitest';
import { renderStatusTable, type StatusRow } from '../../src/ui/status-table.js';

const row = (o: Partial<StatusRow> = {}): StatusRow => ({
  key: 'flux-system/apps', level: 1, ready: 'False', state: 'failed', reason: 'HealthCheckFailed', revision: 'main@sha1:' + 'a'.repeat(40),
  suspended: false, createdAt: null, message: "health check failed after 30.071264876s: timeout waiting for: [Deployment/apps/web status: 'InProgress']", exists: true, ...o,
});

describe('status table', () => {
  it('writes Go durations as people do, and - for the SUSPENDED of an object that does not exist', () => {
    const text = renderStatusTable([row(), row({ key: 'flux-system/gone', exists: false, ready: '-', revision: null, message: 'not found in the cluster' })], 0);
    expect(text).toContain('health check failed after 30s: timeout');
    expect(text).toMatch(/flux-system\/gone\s+-\s+-\s+-\s+-\s+not found/);
  });

  it('cuts MESSAGE to the terminal width; -o wide shows it whole, with STATE and REASON', () => {
    const cut = renderStatusTable([row()], 0, { header: true, wide: false, columns: 100 });
    expect(cut.split('\n').every((l) => l.length <= 100)).toBe(true);
    expect(cut).toContain('…');
    const wide = renderStatusTable([row()], 0, { header: true, wide: true, columns: 100 });
    expect(wide).toContain("[Deployment/apps/web status: 'InProgress']");
    expect(wide.split('\n')[0]).toMatch(/STATE\s+REASON\s+MESSAGE$/);
  });

  it('--no-header: rows only', () => {
    const text = renderStatusTable([row()], 0, { header: false, wide: false });
    expect(text.split('\n')[0]).toMatch(/^1\s+flux-system\/apps/);
  });

  it('at 80 columns, other columns give way before MESSAGE is cut to nothing; -o wide keeps them all', () => {
    const rows = [row({ key: 'home-automation/home-assistant-cfg' }), row({ key: 'flux-system/apps', message: 'Applied revision: main@sha1:' + 'b'.repeat(40) })];
    const text = renderStatusTable(rows, 0, { header: true, wide: false, columns: 80 });
    const lines = text.trimEnd().split('\n');
    expect(lines.every((l) => l.length <= 80), text).toBe(true);
    expect(lines[0]).toMatch(/^NAME\s+READY\s+REVISION\s+MESSAGE$/);
    // What a row says stays readable (before: `Applied r…`): at least 25 characters of MESSAGE beside a 34-character NAME.
    expect(lines[2]).toMatch(/Applied revision: main@sh/);
    expect(lines[1]!.slice(lines[0]!.indexOf('MESSAGE')).length).toBeGreaterThanOrEqual(25);
    // Long names in one namespace: the namespace is said once, in the header, and MESSAGE keeps its room.
    const one = renderStatusTable([row({ key: 'home-automation/home-assistant-configuration' }), row({ key: 'home-automation/platform-configuration' })], 0, { header: true, wide: false, columns: 80 });
    expect(one.split('\n')[0]).toMatch(/^NAME \(home-automation\/\)\s+READY\s+REVISION\s+MESSAGE$/);
    expect(one.split('\n')[1]).toMatch(/^home-assistant-configuration\s+False\s+aaaaaaaa\s+health check failed after 30s:/);
    // A suspended row keeps SUSPENDED (it is what that row is about).
    expect(renderStatusTable([row({ suspended: true })], 0, { header: true, wide: false, columns: 80 }).split('\n')[0]).toContain('SUSPENDED');
    const wide = renderStatusTable(rows, 0, { header: true, wide: true, columns: 80 });
    expect(wide.split('\n')[0]).toMatch(/^LEVEL\s+NAME\s+READY\s+REVISION\s+SUSPENDED\s+AGE\s+STATE\s+REASON\s+MESSAGE$/);
  });
});

describe('statusRows: a row waiting on a dependency readyExpr', async () => {
  const { statusRows } = await import('../../src/ui/status-table.js');
  const { loadCel } = await import('../../src/status/cel.js');
  const cel = await loadCel();
  const cond = (status: string, reason: string, message: string) => ({ type: 'Ready', status, reason, message, lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 1 });
  const ctx = { plan: { kustomizations: [{ key: 'flux-system/infra', level: 0, dependsOn: [] }, { key: 'flux-system/apps', level: 1, dependsOn: ['flux-system/infra'] }] } } as unknown as Parameters<typeof statusRows>[0];
  const kss = new Map<string, never>([
    ['flux-system/infra', { metadata: { name: 'infra', namespace: 'flux-system', generation: 1 }, status: { observedGeneration: 1, conditions: [cond('False', 'HealthCheckFailed', 'timeout')] } } as never],
    ['flux-system/apps', {
      metadata: { name: 'apps', namespace: 'flux-system', generation: 1 },
      spec: { sourceRef: { kind: 'GitRepository', name: 'flux-system' }, dependsOn: [{ name: 'infra', readyExpr: "dep.metadata.name == 'infra'" }] },
      status: { observedGeneration: -1, conditions: [cond('False', 'DependencyNotReady', "dependency 'flux-system/infra' is not ready")] },
    } as never],
  ]);
  it('says the gate is why a true expression is not enough, when the cluster runs it on; infers it from KC when taken to be off', () => {
    const on = statusRows(ctx, kss, () => undefined, cel, new Map(), true).find((r) => r.key === 'flux-system/apps')!;
    expect(on.message).toContain('with AdditiveCELDependencyCheck on, the dependency must also be Ready');
    const off = statusRows(ctx, kss, () => undefined, cel, new Map(), false).find((r) => r.key === 'flux-system/apps')!;
    expect(off.message).toContain('so its AdditiveCELDependencyCheck gate is on');
  });
});
