import { Command, Option } from '@commander-js/extra-typings';
import type { Io } from './io.js';
import { setDebugSink } from '../model/debug.js';
import { collect, parseOutput, type GlobalOptions } from './options.js';
import { packageInfo } from './package-info.js';

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
 * main as CommanderErrors (exit 2) instead of commander ending the process itself (exit 1), and every subcommand's
 * help lists the global flags.
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
    .version(packageInfo().version, '-V, --version', 'print the client version (`standup version` also asks the cluster)')
    .addOption(new Option('--repo <dir>', 'the Flux repository (default: the git root of the current directory)'))
    .addOption(new Option('--cluster <name>', 'a cluster from tiers.yaml or discovered (repeatable; default: all)').argParser(collect))
    .addOption(new Option('--path <dir>', 'an entry path to read instead of a named cluster'))
    .addOption(new Option('--source <kind/ns/name>', 'the root sync\'s source, when the repository does not say it (e.g. GitRepository/flux-system/flux-system)'))
    .addOption(new Option('--no-cache', 'render every kustomize build again; neither read nor write the render cache ($XDG_CACHE_HOME/standup)'))
    .addOption(new Option('-o, --output <format>', 'output format: text, json, yaml; plan and diff also markdown; graph also mermaid, dot; status also wide').argParser(parseOutput))
    .addOption(new Option('--verbose', 'debug logs on stderr: kustomize builds, git, API calls, timings'))
    .addHelpText('after', EXIT_CODES_HELP)
    .hook('preAction', (self) => {
      // A program option is taken anywhere on the line, so `check --verbose` lands here too (and check also lists
      // every tier of a folded finding): more detail on stdout, debug lines on stderr.
      if (!(self.opts() as { verbose?: boolean }).verbose) return;
      setDebugSink((line) => io.err(io.errStyle.dim(`debug +${(performance.now() / 1000).toFixed(3)}s ${line}`) + '\n'));
    });

  const globals = (cmd: { optsWithGlobals(): object }): GlobalOptions => {
    const o = cmd.optsWithGlobals() as Partial<GlobalOptions>;
    return { ...o, cluster: o.cluster ?? [] };
  };
  const run = (fn: () => Promise<number>) => async () => setExit(await fn());

  program
    .command('plan')
    .description('print TIER_ORDER per cluster, as levels: tiers in one level do not depend on each other')
    .argument('[names...]', 'only these Kustomizations (NAME or NAMESPACE/NAME); levels keep their numbers')
    .option('-n, --namespace <namespace>', 'only Kustomizations in this namespace (default: every namespace)')
    .option('-A, --all-namespaces', 'every namespace (the default; accepted as kubectl and flux take it)')
    .addHelpText('after', `
Examples:
  standup plan                          every cluster in tiers.yaml (or discovered from flux-system/gotk-sync.yaml)
  standup plan --cluster prod -o json   for automation: {"clusters":[{"name","levels","tiers","kustomizations"}]}
  standup plan --path examples/homelab/clusters/dev   an entry path, without tiers.yaml
  standup plan --path examples/homelab/clusters/dev --source GitRepository/flux-system/flux-system
                                        ... when no root sync in git says what this repository is called
  standup plan apps platform-config     two tiers: their levels and what they depend on
  standup plan -n apps -o markdown      a namespace's Kustomizations as a table for a PR comment

A repeat run reuses the render cache ($XDG_CACHE_HOME/standup) for every build whose files did not change;
--no-cache renders everything again.

plan renders only the tiers whose files can hold a Flux Kustomization, so a broken app leaf does not slow it down
or show up here: \`standup check\` renders every tier and reports every problem. A dependsOn cycle, or an entry
that does not build, has no order: plan prints the problem and exits 2. A Kustomization whose content is
not in the graph (another repository's source, a missing path, a failed build) is noted on stderr, and has
"expanded": false in -o json. -o json and -o yaml also list, per Kustomization, "implicitDependsOn": the tiers its
HelmReleases' dependsOn wait for outside its own dependsOn (check's helmrelease-order); for them plan also renders
the tiers whose files may hold such HelmReleases.`)
    .action(async (names, o, cmd) =>
      run(async () => (await import('./commands/plan.js')).plan({ ...globals(cmd), ...o, names }, io))(),
    );

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
    .option('--severity <level>', 'show only problems this severe or more: error, warning, info (default: all)')
    .option('--code <code>', 'show only problems with this code (repeatable)', collect)
    .option('--verbose', 'list every tier of a folded finding')
    .addHelpText('after', `
Output (-o): text (default), json, sarif (SARIF 2.1.0 for code scanning), github (workflow commands that
annotate a pull request), markdown (a PR comment or job summary).

Problem codes: cycle, missing-dependency, duplicate, runtime-crd, helmrelease-order, health-check-target,
unresolved-substitution, wait-dependency, cluster-drift, legacy-order, yaml-invalid, path-missing, build-failed,
external-source, bootstrap-unreadable, ignore-unmatched, ignore-invalid. external-source is an info (a tier whose
source is not this repository, so it is not evaluated; never fails check); the summary says how many
Kustomizations were evaluated.

runtime-crd knows what the bootstrap installs before Flux (helmfile releases and their hooks, bootstrap/
kustomize folders, tiers.yaml platform:), which charts ship which CRD groups, and the dependsOn graph: a
deadlock is an error, a race (converges only after retries) a warning. Suppress a finding with a reason in
tiers.yaml (ignore: [{code, object|tier|group, reason}]) or on the object
(annotation standup.io/ignore: "runtime-crd: installed by the NAS operator").

Examples:
  standup check                                       exit 2 on any error
  standup check --severity error                      errors only
  standup check --code runtime-crd --verbose          every runtime-crd finding, every tier listed
  standup check -o sarif > standup.sarif              upload with github/codeql-action/upload-sarif
  standup check -o github                             annotations in a GitHub Actions job
  standup check --legacy-order examples/homelab/bootstrap/standup.sh   what the old script's TIER_ORDER misses
  standup check -o json | jq '.problems[] | select(.severity=="error")'`)
    .action(async (o, cmd) =>
      run(async () => (await import('./commands/check.js')).check({ ...globals(cmd), ...o }, io))(),
    );

  program
    .command('diff')
    .description('compare the graph of two clusters, of one cluster at two git revisions, or of a branch and its merge-base')
    .option('--from <rev>', 'the older revision (read from git, not the working tree)')
    .option('--to <rev>', 'the newer revision (default: HEAD)')
    .option('--base [rev]', 'compare with the merge-base of --to and REV (default: the default branch), as a pull request does')
    .option('--no-fetch', 'with --base in a shallow checkout: never fetch, say which git fetch is needed')
    .option('--exit-code', 'exit 1 when the graph changed (as git diff --exit-code), 0 when it did not')
    .addHelpText('after', `
Besides tiers and edges, a revision diff lists objects that move from one Kustomization to another while the old
one has prune: true: Flux may delete and recreate them (the prune transient), and the message gives the safe move.

--base takes the default branch from the CI (GITHUB_BASE_REF in a pull request), else origin/HEAD, else main or
master. A shallow checkout (actions/checkout's default) lacks the base branch and the history down to the
merge-base: standup fetches them (git fetch --deepen in doubling steps), and says so on stderr; --no-fetch
prints the git fetch to run instead.

Examples:
  standup diff --cluster dev --cluster prod
  standup diff --cluster prod --from main~1
  standup diff --base -o markdown               what a pull request changes (in a workflow: >> "$GITHUB_STEP_SUMMARY")
  standup diff --base --exit-code > /dev/null                   exit 1 if it changes the graph`)
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
moment its dependencies are Ready, so none waits out kustomize-controller's --requeue-dependency (30s); so is a
HelmRelease its tiers applied that helm-controller turned away for a dependency, once every one is Ready.

With bootstrap.install: {path: ...} in tiers.yaml, up applies Flux's install manifests and waits for the controller
Deployments to be Available (a pod that cannot start is named, with its reason) before it applies the sync.

--source-url points the root source at a mirror and keeps it there: the root Kustomization gets a patch (owned by
field manager "standup") that sets the URL in its own output, so Flux's re-apply from git does not undo it. A later
\`standup up\` without --source-url removes it again. When up installs Flux, it first records the mirror in the
cluster (ConfigMap standup-source-url), so a resume after an up stopped before the sync syncs from the mirror too.

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
After an up that installs Flux was stopped before the sync, resume waits for the controllers and applies the sync,
from the mirror that \`up --source-url\` recorded in the cluster, if it did.

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
for each finalizer (so prune completes), then for the Namespaces and CRDs prune deleted to be gone, so an up right
after does not meet them terminating. The root sync is left suspended, so Flux does not re-create what was
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

  program
    .command('version')
    .description('print the client version, and the cluster\'s Kubernetes and Flux versions when it is reachable')
    .option('--client', 'the client version only; do not contact a cluster')
    .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'kube context to ask (default: the current context)')
    .option('--request-timeout <duration>', 'give up on each request to the API server after this long', '5s')
    .addHelpText('after', `
The Flux version is the app.kubernetes.io/version label of the Flux CRDs (what \`flux install\` and the Flux
Operator set), with the image tag of each Flux controller Deployment. A cluster that cannot be reached is reported
on stderr and the command still exits 0 with the client version.

Examples:
  standup version
  standup version --client -o json
  standup version -o yaml --context prod`)
    .action(async (o, cmd) => run(async () => (await import('./commands/version.js')).version({ ...globals(cmd), ...o }, io))());

  program
    .command('completion')
    .description('print a shell completion script for bash, zsh or fish')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText('after', `
Examples:
  source <(standup completion bash)                      this shell; add the line to ~/.bashrc for every shell
  standup completion zsh > "\${fpath[1]}/_standup"        zsh, then restart it
  standup completion fish > ~/.config/fish/completions/standup.fish`)
    .action(async (shell, _o, cmd) => run(async () => (await import('./commands/completion.js')).completion(shell, cmd.parent as Command, io))());

  program
    .command('__complete', { hidden: true })
    .argument('<what>', 'clusters or contexts')
    .option('--kubeconfig <file>')
    .action(async (what, o, cmd) => run(async () => (await import('./commands/completion.js')).completeWords(what, { ...globals(cmd), ...o }, io))());

  return program;
}
