import { describe, expect, it } from 'vitest';
import type { Change } from '../../src/runner/change.js';
import { changeAction } from '../../src/runner/change.js';
import { jsonEvent } from '../../src/runner/event-json.js';
import { changeLine, changeText } from '../../src/ui/wording.js';

const object = 'Kustomization/flux-system/apps';
const ev = (change: Change, dryRun: boolean) => ({ type: 'change' as const, id: 'tier:flux-system/apps' as const, object, change, dryRun });

describe('a change, as the event stream prints it and as a person reads it', () => {
  it.each<[string, Change, string, string | null, string, string | null]>([
    // name, change, -o json action, live line, dry-run text, dry-run live line
    ['created', { kind: 'apply', action: 'created' }, 'created', `created ${object}`, `would create ${object}`, `would create ${object}`],
    ['configured', { kind: 'apply', action: 'configured' }, 'configured', `configured ${object}`, `would configure ${object}`, `would configure ${object}`],
    ['unchanged', { kind: 'apply', action: 'unchanged' }, 'unchanged', null, `unchanged ${object}`, `unchanged ${object}`],
    ['a reconcile request', { kind: 'annotate', key: 'reconcile.fluxcd.io/requestedAt', value: '2026-01-01T00:00:00.000Z' }, 'annotated reconcile.fluxcd.io/requestedAt=2026-01-01T00:00:00.000Z', null, `would annotate ${object} (reconcile.fluxcd.io/requestedAt)`, `would annotate ${object} (reconcile.fluxcd.io/requestedAt)`],
    ['a dry run\'s reconcile request', { kind: 'annotate', key: 'reconcile.fluxcd.io/requestedAt' }, 'annotated reconcile.fluxcd.io/requestedAt', null, `would annotate ${object} (reconcile.fluxcd.io/requestedAt)`, `would annotate ${object} (reconcile.fluxcd.io/requestedAt)`],
    ['suspended', { kind: 'suspend' }, 'suspended', `suspended ${object}`, `would suspend ${object}`, `would suspend ${object}`],
    ['resumed', { kind: 'resume' }, 'resumed', `resumed ${object}`, `would resume ${object}`, `would resume ${object}`],
    ['deleted', { kind: 'delete', existed: true }, 'deleted', `deleted ${object}`, `would delete ${object}`, `would delete ${object}`],
    ['already gone', { kind: 'delete', existed: false }, 'already gone', null, `already gone ${object}`, `already gone ${object}`],
  ])('%s', (_name, change, action, line, dryText, dryLine) => {
    expect(changeAction(change)).toBe(action);
    expect(jsonEvent(ev(change, false))).toEqual({ type: 'change', id: 'tier:flux-system/apps', object, action, dryRun: false });
    expect(JSON.stringify(jsonEvent(ev(change, true)))).toBe(`{"type":"change","id":"tier:flux-system/apps","object":"${object}","action":"${action}","dryRun":true}`);
    expect(changeText(ev(change, false))).toBe(`${action} ${object}`);
    expect(changeLine(ev(change, false))).toBe(line);
    expect(changeText(ev(change, true))).toBe(dryText);
    expect(changeLine(ev(change, true))).toBe(dryLine);
  });
});
