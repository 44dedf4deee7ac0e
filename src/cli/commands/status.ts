import { ExitCode } from '../../model/errors.js';
import { LiveState } from '../../runner/live-state.js';
import { openSession, type ClusterFlags } from '../../runner/session.js';
import { renderStatusTable, statusRows } from '../../ui/status-table.js';
import type { Io } from '../io.js';
import { outputFormat, renderDocument, renderStreamDocument } from '../options.js';

/**
 * `standup status`: the cluster's Kustomizations in tier order, as `flux get ks` would show them. Exit 0 when all
 * are Ready, 1 otherwise (so scripts can gate on it). Reads only.
 */
export async function status(flags: ClusterFlags & { watch?: boolean }, io: Io): Promise<number> {
  const format = outputFormat(flags.output, ['text', 'json', 'yaml'] as const, 'text');
  const s = await openSession(flags);
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  const live = new LiveState(s.client, controller.signal);
  try {
    await live.start();
    let last = '';
    for (;;) {
      const byKey = new Map(s.ctx.plan.kustomizations.map((k) => [k.key, s.ctx.graph.nodes.get(k.key)!]));
      const rows = statusRows(s.ctx, live.kustomizations, (ks, key) => live.sourceOf(ks, byKey.get(key)!.sourceRef));
      const doc = { cluster: s.name, kustomizations: rows };
      const text = format === 'text' ? renderStatusTable(rows, Date.now()) : renderStreamDocument(format, doc);
      if (text !== last) {
        if (flags.watch && format === 'text' && io.isTTY) io.out('\u001b[2J\u001b[H');
        io.out(format !== 'text' && !flags.watch ? renderDocument(format, doc) : text);
        last = text;
      }
      if (!flags.watch || controller.signal.aborted) return rows.every((r) => r.state === 'ready') ? ExitCode.ok : ExitCode.failure;
      await live.changed(2000);
    }
  } finally {
    process.off('SIGINT', stop);
    controller.abort();
  }
}
