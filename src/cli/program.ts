import { Command, Option } from '@commander-js/extra-typings';
import type { Io } from './io.js';
import { collect, type GlobalOptions } from './options.js';

export const EXIT_CODES_HELP = `
Exit codes:
  0    success
  1    a step failed (a tier Ready=False for a terminal reason, an apply rejected)
  2    bad input or configuration (a usage error too), or \`check\` found errors
  3    a wait timed out (\`standup resume\` continues from there)
  4    refused: the context guard, a cluster not marked resettable, a reset not confirmed
  130  interrupted (\`standup resume\` finishes the job)`;

/**
 * Builds the command tree. Commands are imported lazily so `standup --help` stays instant. Settings made before the
 * first `.command()` are inherited by every subcommand (commander copies them at creation): usage errors reach
 * main as CommanderErrors (exit 2) instead of commander ending the process itself (exit 1), and every subcommand's help lists
 * the global flags.
 */
export function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command('standup')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(run with --help for usage)')
    .description(
      'Bring a Flux cluster up in the order its git repository declares, and resume a stuck cold start.\n' +
        'The order (TIER_ORDER) is derived from spec.dependsOn of every Flux Kustomization, never kept by hand.',
    )
    .version('0.1.0')
    .addOption(new Option('--repo <dir>', 'the Flux repository (default: the git root of the current directory)'))
    .addOption(new Option('--cluster <name>', 'a cluster from tiers.yaml or discovered (repeatable; default: all)').argParser(collect))
    .addOption(new Option('--path <dir>', 'an entry path to read instead of a named cluster'))
    .addOption(new Option('-o, --output <format>', 'output format (text, json; graph also mermaid, dot; status also wide)'))
    .addHelpText('after', EXIT_CODES_HELP);

  const globals = (cmd: { optsWithGlobals(): object }): GlobalOptions => {
    const o = cmd.optsWithGlobals() as Partial<GlobalOptions>;
    return { ...o, cluster: o.cluster ?? [] };
  };
  const run = (fn: () => Promise<number>) => async () => setExit(await fn());

  program
    .command('plan')
    .description('print TIER_ORDER per cluster, as levels: tiers in one level do not depend on each other')
    .addHelpText('after', `
Examples:
  standup plan                                          every cluster in tiers.yaml (or discovered from flux-system/gotk-sync.yaml)
  standup plan --cluster prod -o json                   for automation: {"clusters":[{"name","levels","tiers","kustomizations"}]}
  standup plan --path examples/homelab/clusters/dev     an entry path, without tiers.yaml

plan renders only the tiers whose files can hold a Flux Kustomization, so a broken app leaf does not slow it down
or show up here: \`standup check\` renders every tier and reports every problem. A dependsOn cycle, or an entry
that does not build, has no order: plan prints the problem and exits 2.`)
    .action(async (_o, cmd) => run(async () => (await import('./commands/plan.js')).plan(globals(cmd), io))());

  program
    .command('graph')
    .description('print the dependsOn graph: a tree in tier order, Mermaid, DOT or JSON')
    .addHelpText('after', `
Arrows in Mermaid and DOT point the way the cluster converges: a dependency before its dependents.
Dotted arrows go from a Kustomization to the Kustomizations its build applies.

Examples:
  standup graph -o mermaid > graph.md   GitHub renders it inside a \`\`\`mermaid block
  standup graph -o dot > graph.dot      render it with Graphviz: dot -Tsvg graph.dot > graph.svg`)
    .action(async (_o, cmd) => run(async () => (await import('./commands/graph.js')).graph(globals(cmd), io))());

  program
    .command('check')
    .description('report every static problem at once: cycles, missing dependencies, runtime-created CRDs, drift')
    .option('--strict', 'fail on warnings too')
    .option('--legacy-order <file>', 'compare a hand-kept TIER_ORDER (a script with TIER_ORDER=(...) or a list) with the graph')
    .addHelpText('after', `
Problem codes: cycle, missing-dependency, duplicate, runtime-crd, unresolved-substitution, wait-dependency,
cluster-drift, legacy-order, yaml-invalid, path-missing, build-failed.

Examples:
  standup check                                                       exit 2 on any error
  standup check --legacy-order examples/homelab/bootstrap/standup.sh  what the old script's TIER_ORDER misses
  standup check -o json | jq '.problems[] | select(.severity=="error")'`)
    .action(async (o, cmd) =>
      run(async () => (await import('./commands/check.js')).check({ ...globals(cmd), ...o }, io))(),
    );

  program
    .command('diff')
    .description('compare the graph of two clusters, or of one cluster at two git revisions')
    .option('--from <rev>', 'the older revision (read from git, not the working tree)')
    .option('--to <rev>', 'the newer revision (default: HEAD)')
    .addHelpText('after', `
Besides tiers and edges, a revision diff lists objects that move from one Kustomization to another while the old
one has prune: true: Flux may delete and recreate them (the prune transient), and the message gives the safe move.

Examples:
  standup diff --cluster dev --cluster prod
  standup diff --cluster prod --from HEAD~1`)
    .action(async (o, cmd) => run(async () => (await import('./commands/diff.js')).diff({ ...globals(cmd), ...o }, io))());

  const clusterCommand = (name: string, description: string, timeout: string, help: string) =>
    program
      .command(name)
      .description(description)
      .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
      .option('--context <name>', 'kube context to use (must match the cluster\'s context in tiers.yaml)')
      .option('--timeout <duration>', timeout)
      .addHelpText('after', help);
  const RUN_TIMEOUT = 'give up after this long overall (a positive duration, e.g. 30m); each tier also has its own timeout in tiers.yaml';
  const runner = (mode: 'up' | 'resume' | 'crds') => async (o: object, cmd: { optsWithGlobals(): object }) =>
    run(async () => (await import('./commands/up.js')).runMode(mode)({ ...globals(cmd), ...o } as never, io))();

  clusterCommand('up', 'cold start: preflight, Flux install and sync from the repository, CRD fallback, then every tier in order', RUN_TIMEOUT, `
Before anything is written, up runs the checks that decide whether the graph can converge (a dependsOn cycle or a
missing dependency, an entry or tier that does not build, a CRD deadlock no fallback covers) and exits 2 with
check's messages; --force goes on anyway. Every write is a server-side apply (field manager "standup") or a
reconcile request, so an interrupted run is finished by \`standup resume\`. Each tier is asked to reconcile the
moment its dependencies are Ready, so none waits out kustomize-controller's --requeue-dependency (30s).

With bootstrap.install: {path: ...} in tiers.yaml, up applies Flux's install manifests and waits for the controller
Deployments to be Available (a pod that cannot start is named, with its reason) before it applies the sync.

--source-url points the root source at a mirror and keeps it there: the root Kustomization gets a patch (owned by
field manager "standup") that sets the URL in its own output, so Flux's re-apply from git does not undo it. A later
\`standup up\` without --source-url removes it again.

Examples:
  standup up --cluster dev
  standup up --cluster dev --dry-run        print what would be applied and annotated, tier by tier; write nothing
  standup up --cluster dev --source-url http://127.0.0.1:8080/homelab.git   sync from a mirror
${EXIT_CODES_HELP}`)
    .option('--dry-run', 'print what would be applied or annotated, and write nothing')
    .option('--source-url <url>', 'apply the root source with this URL instead of the one in git (a mirror), and keep it so')
    .option('--force', 'go on although the static checks say the graph cannot converge')
    .option('--record <file>', 'write a JSON record of the run (steps, durations, changes) for a post-mortem')
    .action(runner('up'));

  clusterCommand('resume', 'continue a stuck cold start from the first unready tier', RUN_TIMEOUT, `
Reads live status, skips every tier already Ready at the source's current revision, and waits on the rest in
order, requesting reconciles as dependencies become Ready. A tier stuck on a missing CRD is diagnosed: the
second-order CRD deadlock (with the fallback that unblocks it), or a kind no CRD and no operator provides.
A root sync that \`standup reset\` suspended is resumed; one suspended by hand is reported, not touched.

Examples:
  standup resume
  standup resume -o json | jq -c 'select(.type=="step-end")'
${EXIT_CODES_HELP}`)
    .option('--dry-run', 'print what would be annotated, and write nothing')
    .option('--force', 'go on although the static checks say the graph cannot converge')
    .option('--record <file>', 'write a JSON record of the run for a post-mortem')
    .action(runner('resume'));

  clusterCommand('crds', 'apply the CRD fallback from tiers.yaml (server-side, idempotent) and wait for Established', RUN_TIMEOUT, `
Use it to unstick a cluster deadlocked on a CRD that an operator creates at runtime, then run \`standup resume\`.
A second run reports every object unchanged and writes nothing.

Examples:
  standup crds --cluster dev
  standup crds --cluster dev --dry-run
${EXIT_CODES_HELP}`)
    .option('--dry-run', 'server-side dry-run: print what would change, write nothing')
    .option('--record <file>', 'write a JSON record of the run')
    .action(runner('crds'));

  clusterCommand('status', 'the cluster\'s Kustomizations in tier order, like `flux get ks` (exit 1 unless all shown are Ready)', 'how long to wait for the API server to answer (default 30s)', `
A first line names the context and the cluster it read (in the wrong context every row says "not found").
Columns: LEVEL, NAME, READY, REVISION (shortened as flux does), SUSPENDED (- when the object does not exist),
AGE, MESSAGE (cut to the terminal's width; -o wide shows it whole, with STATE and REASON).

Examples:
  standup status
  standup status apps platform         only these Kustomizations (name, or namespace/name)
  standup status -n flux-system --no-header
  standup status -o wide
  standup status --watch
  standup status -o json`)
    .argument('[name...]', 'Kustomizations to show (name or namespace/name); default: all')
    .option('-n, --namespace <namespace>', 'only Kustomizations in this namespace')
    .option('--no-header', 'print neither the context line nor the column names')
    .option('-w, --watch', 'keep watching and redraw on every change')
    .action(async (names, o, cmd) => run(async () => (await import('./commands/status.js')).status({ ...globals(cmd), ...o, names } as never, io))());

  clusterCommand('reset', 'tear a resettable cluster down in reverse tier order (then --up to stand it up again)', RUN_TIMEOUT, `
Only for clusters marked resettable: true in tiers.yaml, behind the context guard and a confirmation (answering
anything but y changes nothing and exits 4). Suspends the root sync, deletes every tier in reverse order waiting
for each finalizer (so prune completes). The root sync is left suspended, so Flux does not re-create what was
deleted: \`standup up\` (or --up) resumes it; \`standup resume\` takes back a suspension that reset made.

Examples:
  standup reset --cluster dev
  standup reset --cluster dev --dry-run
  standup reset --cluster dev --up --yes
${EXIT_CODES_HELP}`)
    .option('--up', 'stand the cluster up again afterwards (the steps of `standup up`)')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', 'print the teardown order, and write nothing')
    .option('--source-url <url>', 'with --up: sync from this mirror, as `up --source-url` does')
    .option('--force', 'with --up: go on although the static checks say the graph cannot converge')
    .option('--record <file>', 'write a JSON record of the run')
    .action(async (o, cmd) => run(async () => (await import('./commands/reset.js')).reset({ ...globals(cmd), ...o } as never, io))());

  return program;
}
