import type { ClusterClient } from '../../cluster/client.js';
import { ConfigError, ExitCode } from '../../model/errors.js';
import type { FluxKustomization } from '../../model/flux.js';
import type { LiveState } from '../../runner/live-state.js';
import type { StatusRow } from '../../ui/status-table.js';
import { addClusterFlags, type ClusterFlags } from '../cluster-flags.js';
import type { CliCommand } from '../command.js';
import type { Io } from '../io.js';
import { flagsOf, outputFormat, renderDocument, renderStreamDocument } from '../options.js';
import { addSelectionFlags, NAMES_ARGUMENT, selectionOf, type SelectionFlags } from '../selection.js';

export interface StatusOptions extends ClusterFlags, SelectionFlags {
  watch?: boolean;
}

const FORMATS = ['text', 'wide', 'json', 'yaml'] as const;

export const statusCommand: CliCommand = {
  name: 'status',
  formats: FORMATS,
  define: (command, cli) => addSelectionFlags(addClusterFlags(
    command.description('the cluster\'s Kustomizations in tier order, like `flux get ks` (exit 1 unless all shown are Ready)'),
    'how long to wait for the API server to answer (default 30s)',
  )
    .addHelpText('after', `
A first line names the context and the cluster it read (in the wrong context every row says "not found").
Columns: LEVEL, NAME, READY, REVISION (shortened as flux does), SUSPENDED (- when the object does not exist),
AGE, MESSAGE (cut to the terminal's width; -o wide shows it whole, with STATE and REASON). On a narrow terminal
SUSPENDED (unless a row is suspended), AGE and LEVEL give way and REVISION shortens to its commit before MESSAGE is cut.
A Kustomization held by its health check with healthCheckExprs adds what each expression gives on the objects it
judges (CEL, as kustomize-controller evaluates it); one waiting on a dependency's readyExpr, what that gives, and
whether the AdditiveCELDependencyCheck gate also needs the dependency Ready (read from kustomize-controller's
Deployment, else from the repository's Flux patches; default off).

Examples:
  standup status
  standup status "$(standup plan --no-header | awk 'NR==1 {print $2}')"   one Kustomization (here the first in the order)
  standup status -n flux-system --no-header
  standup status -o wide
  standup status --watch
  standup status -o json`)
    .argument('[name...]', `${NAMES_ARGUMENT}; default: all`), 'print neither the context line nor the column names')
    .option('-w, --watch', 'keep watching and redraw on every change')
    .action(async (names, o, cmd) => cli.exit(await status({ ...flagsOf(o, cmd), names }, cli.io))),
};

/**
 * `standup status [NAME...]`: the cluster's Kustomizations in tier order, as `flux get ks` would show them, under a
 * line naming the context and cluster it read (in a wrong context every row would say "not found"). Exit 0 when
 * every row shown is Ready, 1 otherwise (so scripts can gate on it). Reads only.
 */
export async function status(flags: StatusOptions, io: Io): Promise<number> {
  const format = outputFormat(flags.output, FORMATS, 'text');
  const requestMs = flags.timeout ? await positive(flags.timeout) : 30_000;
  const [{ ensureReachable, readRunTarget }, { LiveState }, { renderStatusTable, statusRows }, { hasReadyExpr, loadCel }, { instanceLine, instanceStatus }, { resourceSetStatuses }, { additiveCel }] = await Promise.all([
    import('../read-run-target.js'), import('../../runner/live-state.js'), import('../../ui/status-table.js'), import('../../status/cel.js'),
    import('../../runner/flux-instance.js'), import('../../runner/rset-observe.js'), import('../../runner/feature-gates.js'),
  ]);
  const t = await readRunTarget({ ...flags, timeout: undefined }, { bootstrap: 'none', checks: false, fallback: 'none', env: io.env, session: io.loadSession }, requestMs);
  const select = await selector(flags, t.ctx.plan.kustomizations.map((k) => k.key), t.name);
  await ensureReachable(t, requestMs);
  const controller = new AbortController();
  // Ctrl-C ends --watch; the first one only (a second one ends the process as usual).
  const unhook = io.onSignal?.(['SIGINT'], () => {
    unhook?.();
    controller.abort();
  });
  // Nobody reads the table any more (`status --watch | head`): --watch ends as on Ctrl-C.
  const unhookClosed = io.onOutputClosed?.(() => controller.abort());
  const live = new LiveState(t.client, controller.signal);
  const header = `Context ${t.guard.actualContext} (${t.guard.actualServer}), cluster ${t.name} (${t.ctx.plan.entry})`;
  try {
    await live.start();
    let last = '';
    let additive: boolean | undefined;
    for (;;) {
      // Ctrl-C during the wait ends --watch without one more table.
      if (last && controller.signal.aborted) return ExitCode.ok;
      const byKey = new Map(t.ctx.plan.kustomizations.map((k) => [k.key, t.ctx.graph.nodes.get(k.key)!]));
      // A dependsOn readyExpr is evaluated, so a row waiting on one says what it gives (CEL loaded only then).
      const cel = hasReadyExpr(live.kustomizations.values()) ? await loadCel() : null;
      // What kustomize-controller runs with decides what a readyExpr means: read once, from its Deployment (else git).
      additive ??= cel ? (await additiveCel(t.client, t.additiveCel)).kustomize.on : undefined;
      // A tier its health check holds: what its healthCheckExprs give on the objects they judge (CEL loaded only then).
      const healthExprs = await healthExprsOfRows(t.ctx.plan.kustomizations.map((k) => k.key), live, byKey, t.client);
      const rows = statusRows(t.ctx, live.kustomizations, (ks, key) => live.sourceOf(ks, byKey.get(key)!.sourceRef), cel, healthExprs, additive ?? false).filter((r) => select(r));
      // A root sync owned by a FluxInstance: the instance's state (and a suspension made through it) heads the table.
      const instance = await instanceStatus(t.client, t.ctx.rootSync);
      // The plan's ResourceSets, each with what it waits on (shown when no NAME picks rows; -n filters them too).
      let sets = resourceSetStatuses(t.ctx, live);
      while (sets === undefined) {
        await live.changed(200);
        sets = resourceSetStatuses(t.ctx, live);
      }
      sets = (flags.names ?? []).length ? [] : sets.filter((r) => !flags.namespace || r.key.startsWith(`ResourceSet/${flags.namespace}/`));
      const json = { cluster: t.name, context: t.guard.actualContext, server: t.guard.actualServer, ...(instance ? { fluxInstance: instance } : {}), kustomizations: rows, ...(sets.length ? { resourceSets: sets } : {}) };
      const data = format === 'json' || format === 'yaml' ? format : null;
      const text = data
        ? renderStreamDocument(data, json)
        : `${flags.header === false ? '' : `${header}\n${instance ? `${instanceLine(instance)}\n` : ''}`}${renderStatusTable(rows, Date.now(), { header: flags.header !== false, wide: format === 'wide', columns: io.columns?.() })}${sets.map((r) => `${r.key} (level ${r.level ?? '-'}): ${r.ready ? 'Ready' : r.state}: ${r.message}\n`).join('')}`;
      if (text !== last) {
        if (flags.watch && !data && io.isTTY) io.out('\u001b[2J\u001b[H');
        io.out(data && !flags.watch ? renderDocument(data, json) : text);
        last = text;
      }
      if (!flags.watch || controller.signal.aborted) return rows.every((r: StatusRow) => r.state === 'ready') && sets.every((r) => r.ready) ? ExitCode.ok : ExitCode.failure;
      await live.changed(2000).catch(() => undefined);
    }
  } catch (e) {
    if (controller.signal.aborted) return ExitCode.ok; // Ctrl-C ends --watch
    throw e;
  } finally {
    unhook?.();
    unhookClosed?.();
    controller.abort();
  }
}

/** healthCheckExprs lines per Kustomization key, for those held by their health check; each object read once. */
async function healthExprsOfRows(
  keys: readonly string[],
  live: LiveState,
  byKey: ReadonlyMap<string, Pick<FluxKustomization, 'sourceRef'>>,
  client: ClusterClient,
): Promise<Map<string, string[]>> {
  const [{ healthExprsFromApi }, { kustomizationReadiness }, { sourceReadiness }, { healthCheckExprsOf }] = await Promise.all([
    import('../../runner/health-explain.js'), import('../../status/kustomization.js'), import('../../status/source.js'), import('../../status/health-exprs.js'),
  ]);
  const out = new Map<string, string[]>();
  for (const key of keys) {
    const ks = live.kustomizations.get(key);
    if (!ks || healthCheckExprsOf(ks).length === 0) continue;
    const r = kustomizationReadiness(ks, { sourceRevision: sourceReadiness(live.sourceOf(ks, byKey.get(key)!.sourceRef)).revision ?? undefined });
    if (r.state === 'ready') continue;
    const lines = await healthExprsFromApi(ks, r, (ref) => client.find(ref));
    if (lines.length) out.set(key, lines);
  }
  return out;
}

async function positive(text: string): Promise<number> {
  const { parseDuration } = await import('../../status/durations.js');
  const ms = parseDuration(text);
  if (ms <= 0) throw new ConfigError('BAD_FLAG', `--timeout ${text} is not a positive duration`, 'Pass a duration such as 10s.');
  return ms;
}

/**
 * Which rows to show: the NAMEs given (`name` or `namespace/name`) and -n, as plan, graph and check select. Unlike
 * theirs, an -n or a NAME that matches nothing here is an error (exit 2): status gates on "every row shown is Ready",
 * which an empty table would pass.
 */
async function selector(f: StatusOptions, keys: string[], cluster: string): Promise<(r: StatusRow) => boolean> {
  const s = selectionOf(f);
  const { matches, namespacesOf } = await import('../../plan/select.js');
  const namespaces = namespacesOf(keys);
  if (s.namespace !== undefined && !namespaces.includes(s.namespace)) {
    throw new ConfigError('UNKNOWN_KUSTOMIZATION', `cluster ${cluster} has no Kustomization in namespace ${s.namespace}`,
      `Namespaces with Kustomizations: ${namespaces.join(', ')}.`);
  }
  const unknown = s.names.filter((n) => !keys.some((k) => matches(k, { namespace: s.namespace, names: [n] })));
  if (unknown.length > 0) {
    throw new ConfigError('UNKNOWN_KUSTOMIZATION', `cluster ${cluster} has no Kustomization ${unknown.join(', ')}${s.namespace ? ` in namespace ${s.namespace}` : ''}`,
      `Known: ${keys.join(', ')}.`);
  }
  return (r) => matches(r.key, s);
}
