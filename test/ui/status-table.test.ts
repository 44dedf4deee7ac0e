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
});
