import { Command, Option } from '@commander-js/extra-typings';
import type { Io } from './io.js';
import { collect, type GlobalOptions } from './options.js';

export const EXIT_CODES_HELP = `
Exit codes:
  0    success
  1    a step failed (a tier Ready=False for a terminal reason, an apply rejected)
  2    bad input or configuration, or \`check\` found errors
  3    a wait timed out (\`standup resume\` continues from there)
  4    refused by the context guard
  130  interrupted (\`standup resume\` finishes the job)`;

/** Builds the command tree. Commands are imported lazily so `standup --help` stays instant. */
export function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command('standup')
    .description(
      'Bring a Flux cluster up in the order its git repository declares, and resume a stuck cold start.\n' +
        'The order (TIER_ORDER) is derived from spec.dependsOn of every Flux Kustomization, never kept by hand.',
    )
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .addOption(new Option('--repo <dir>', 'the Flux repository (default: the git root of the current directory)'))
    .addOption(new Option('--cluster <name>', 'a cluster from tiers.yaml or discovered (repeatable; default: all)').argParser(collect))
    .addOption(new Option('--path <dir>', 'an entry path to read instead of a named cluster'))
    .addOption(new Option('--source <kind/ns/name>', 'the root sync\'s source, when the repository does not say it (e.g. GitRepository/flux-system/flux-system)'))
    .addOption(new Option('--no-cache', 'render every kustomize build again; neither read nor write the render cache ($XDG_CACHE_HOME/standup)'))
    .addOption(new Option('-o, --output <format>', 'output format (text, json; graph also mermaid, dot)'))
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
  standup plan                          every cluster in tiers.yaml (or discovered from flux-system/gotk-sync.yaml)
  standup plan --cluster prod -o json   for automation: {"clusters":[{"name","levels","tiers","kustomizations"}]}
  standup plan --path clusters/dev      an entry path, without tiers.yaml
  standup plan --path clusters/dev --source GitRepository/flux-system/home-ops
                                        ... when no root sync in git says what this repository is called

A repeat run reuses the render cache ($XDG_CACHE_HOME/standup) for every build whose files did not change;
--no-cache renders everything again.

plan renders only the tiers whose files can hold a Flux Kustomization, so a broken app leaf does not slow it down
or show up here: \`standup check\` renders every tier and reports every problem. A Kustomization whose content is
not in the graph (another repository's source, a missing path, a failed build) is noted on stderr, and has
"expanded": false in -o json.`)
    .action(async (_o, cmd) => run(async () => (await import('./commands/plan.js')).plan(globals(cmd), io))());

  program
    .command('graph')
    .description('print the dependsOn graph: a tree in tier order, Mermaid, DOT or JSON')
    .addHelpText('after', `
Arrows in Mermaid and DOT point the way the cluster converges: a dependency before its dependents.
Dotted arrows go from a Kustomization to the Kustomizations its build applies.

Examples:
  standup graph -o mermaid > graph.md   GitHub renders it inside a \`\`\`mermaid block
  standup graph -o dot | dot -Tsvg > graph.svg`)
    .action(async (_o, cmd) => run(async () => (await import('./commands/graph.js')).graph(globals(cmd), io))());

  program
    .command('check')
    .description('report every static problem at once: cycles, missing dependencies, runtime-created CRDs, drift')
    .option('--strict', 'fail on warnings too')
    .option('--legacy-order <file>', 'compare a hand-kept TIER_ORDER (a script with TIER_ORDER=(...) or a list) with the graph')
    .addHelpText('after', `
Problem codes: cycle, missing-dependency, duplicate, runtime-crd, unresolved-substitution, wait-dependency,
cluster-drift, legacy-order, yaml-invalid, path-missing, build-failed, external-source (an info: a tier whose
source is not this repository, so it is not evaluated; never fails check). The summary says how many
Kustomizations were evaluated.

Examples:
  standup check                                       exit 2 on any error
  standup check --legacy-order bootstrap/standup.sh   what the old script's TIER_ORDER misses
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
  standup diff --cluster prod --from main~1`)
    .action(async (o, cmd) => run(async () => (await import('./commands/diff.js')).diff({ ...globals(cmd), ...o }, io))());

  const clusterCommand = (name: string, description: string, help: string) =>
    program
      .command(name)
      .description(description)
      .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
      .option('--context <name>', 'kube context to use (must match the cluster\'s context in tiers.yaml)')
      .option('--timeout <duration>', 'give up after this long overall (e.g. 30m); per-tier timeouts come from tiers.yaml')
      .addHelpText('after', help);
  const runner = (mode: 'up' | 'resume' | 'crds') => async (o: object, cmd: { optsWithGlobals(): object }) =>
    run(async () => (await import('./commands/up.js')).runMode(mode)({ ...globals(cmd), ...o } as never, io))();

  clusterCommand('up', 'cold start: preflight, Flux install and sync from the repository, CRD fallback, then every tier in order', `
Every write is a server-side apply (field manager "standup") or a reconcile request, so an interrupted run is
finished by \`standup resume\`. Each tier is asked to reconcile the moment its dependencies are Ready, so none
waits out kustomize-controller's --requeue-dependency (30s).

Examples:
  standup up --cluster dev
  standup up --cluster dev --dry-run        print what would be applied and annotated; write nothing
  standup up --cluster dev --source-url http://127.0.0.1:8080/repo.git   sync from a mirror
${EXIT_CODES_HELP}`)
    .option('--dry-run', 'print what would be applied or annotated, and write nothing')
    .option('--source-url <url>', 'apply the root GitRepository with this URL instead of the one in git (a mirror)')
    .option('--record <file>', 'write a JSON record of the run (steps, durations, changes) for a post-mortem')
    .action(runner('up'));

  clusterCommand('resume', 'continue a stuck cold start from the first unready tier', `
Reads live status, skips every tier already Ready at the source's current revision, and waits on the rest in
order, requesting reconciles as dependencies become Ready. A tier stuck on a missing CRD is diagnosed as the
second-order CRD deadlock, with the fallback that unblocks it.

Examples:
  standup resume
  standup resume -o json | jq -c 'select(.type=="step-end")'
${EXIT_CODES_HELP}`)
    .option('--dry-run', 'print what would be annotated, and write nothing')
    .option('--record <file>', 'write a JSON record of the run for a post-mortem')
    .action(runner('resume'));

  clusterCommand('crds', 'apply the CRD fallback from tiers.yaml (server-side, idempotent) and wait for Established', `
Use it to unstick a cluster deadlocked on a CRD that an operator creates at runtime, then run \`standup resume\`.
A second run reports every object unchanged and writes nothing.
${EXIT_CODES_HELP}`)
    .option('--dry-run', 'server-side dry-run: print what would change, write nothing')
    .option('--record <file>', 'write a JSON record of the run')
    .action(runner('crds'));

  clusterCommand('status', 'the cluster\'s Kustomizations in tier order, like `flux get ks` (exit 1 unless all Ready)', `
Columns: LEVEL, NAME, READY, REVISION (shortened as flux does), SUSPENDED, AGE, MESSAGE.

Examples:
  standup status
  standup status --watch
  standup status -o json`)
    .option('-w, --watch', 'keep watching and redraw on every change')
    .action(async (o, cmd) => run(async () => (await import('./commands/status.js')).status({ ...globals(cmd), ...o } as never, io))());

  clusterCommand('reset', 'tear a resettable cluster down in reverse tier order (then --up to stand it up again)', `
Only for clusters marked resettable: true in tiers.yaml, behind the context guard and a confirmation.
Suspends the root sync, deletes every tier in reverse order waiting for each finalizer (so prune completes).

Examples:
  standup reset --cluster dev
  standup reset --cluster dev --up --yes
${EXIT_CODES_HELP}`)
    .option('--up', 'stand the cluster up again afterwards')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', 'print the teardown order, and write nothing')
    .option('--record <file>', 'write a JSON record of the run')
    .action(async (o, cmd) => run(async () => (await import('./commands/reset.js')).reset({ ...globals(cmd), ...o } as never, io))());

  return program;
}
