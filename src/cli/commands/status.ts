import { ClusterError } from '../../cluster/errors.js';
import { ConfigError, ExitCode } from '../../model/errors.js';
import { parseDuration } from '../../runner/duration.js';
import { LiveState } from '../../runner/live-state.js';
import { unreachable } from '../../runner/preflight.js';
import { renderStatusTable, statusRows, type StatusRow } from '../../ui/status-table.js';
import type { Io } from '../io.js';
import { outputFormat, renderDocument, renderStreamDocument } from '../options.js';
import { readRunTarget, type ClusterFlags } from '../run-inputs.js';

export interface StatusOptions extends ClusterFlags {
  watch?: boolean;
  namespace?: string;
  /** commander's --no-header: false when given. */
  header?: boolean;
  names?: string[];
}

/**
 * `standup status [NAME...]`: the cluster's Kustomizations in tier order, as `flux get ks` would show them, under a
 * line naming the context and cluster it read (in a wrong context every row would say "not found"). Exit 0 when
 * every row shown is Ready, 1 otherwise (so scripts can gate on it). Reads only.
 */
export async function status(flags: StatusOptions, io: Io): Promise<number> {
  const format = outputFormat(flags.output, ['text', 'wide', 'json', 'yaml'] as const, 'text');
  const requestMs = flags.timeout ? positive(flags.timeout) : 30_000;
  const t = await readRunTarget({ ...flags, timeout: undefined }, { bootstrap: 'none', checks: false, fallback: 'none' }, requestMs);
  const select = selector(flags, t.ctx.plan.kustomizations.map((k) => k.key), t.name);
  try {
    await t.client.serverVersion({ timeoutMs: requestMs });
  } catch (e) {
    if (e instanceof ClusterError) throw unreachable(t, e);
    throw e;
  }
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  const live = new LiveState(t.client, controller.signal);
  const header = `Context ${t.guard.actualContext} (${t.guard.actualServer}), cluster ${t.name} (${t.ctx.plan.entry})`;
  try {
    await live.start();
    let last = '';
    for (;;) {
      const byKey = new Map(t.ctx.plan.kustomizations.map((k) => [k.key, t.ctx.graph.nodes.get(k.key)!]));
      const rows = statusRows(t.ctx, live.kustomizations, (ks, key) => live.sourceOf(ks, byKey.get(key)!.sourceRef)).filter((r) => select(r));
      const json = { cluster: t.name, context: t.guard.actualContext, server: t.guard.actualServer, kustomizations: rows };
      const data = format === 'json' || format === 'yaml' ? format : null;
      const text = data
        ? renderStreamDocument(data, json)
        : `${flags.header === false ? '' : `${header}\n`}${renderStatusTable(rows, Date.now(), { header: flags.header !== false, wide: format === 'wide', columns: io.columns?.() })}`;
      if (text !== last) {
        if (flags.watch && !data && io.isTTY) io.out('\u001b[2J\u001b[H');
        io.out(data && !flags.watch ? renderDocument(data, json) : text);
        last = text;
      }
      if (!flags.watch || controller.signal.aborted) return rows.every((r: StatusRow) => r.state === 'ready') ? ExitCode.ok : ExitCode.failure;
      await live.changed(2000).catch(() => undefined);
    }
  } catch (e) {
    if (controller.signal.aborted) return ExitCode.ok; // Ctrl-C ends --watch
    throw e;
  } finally {
    process.off('SIGINT', stop);
    controller.abort();
  }
}

function positive(text: string): number {
  const ms = parseDuration(text);
  if (ms <= 0) throw new ConfigError('BAD_FLAG', `--timeout ${text} is not a positive duration`, 'Pass a duration such as 10s.');
  return ms;
}

/** Which rows to show: the NAMEs given (`name` or `namespace/name`) and -n; an unknown NAME is an error (exit 2). */
function selector(f: StatusOptions, keys: string[], cluster: string): (r: StatusRow) => boolean {
  const names = f.names ?? [];
  const matches = (key: string, n: string) => key === n || key.endsWith(`/${n}`);
  const unknown = names.filter((n) => !keys.some((k) => matches(k, n) && (!f.namespace || k.startsWith(`${f.namespace}/`))));
  if (unknown.length > 0) {
    throw new ConfigError('UNKNOWN_KUSTOMIZATION', `cluster ${cluster} has no Kustomization ${unknown.join(', ')}${f.namespace ? ` in namespace ${f.namespace}` : ''}`,
      `Known: ${keys.join(', ')}.`);
  }
  return (r) => (!f.namespace || r.key.startsWith(`${f.namespace}/`)) && (names.length === 0 || names.some((n) => matches(r.key, n)));
}
