import { addClusterFlags, RUN_TIMEOUT } from '../cluster-flags.js';
import { CONNECT_HELP, EXIT_CODES_HELP, type CliCommand } from '../command.js';
import { flagsOf } from '../options.js';

const FORMATS = ['text', 'json', 'yaml'] as const;

/** `standup up`: the cold start. Reads the bootstrap (install, secrets, sync) and runs check's rules first. */
export const upCommand: CliCommand = {
  name: 'up',
  formats: FORMATS,
  define: (command, cli) => addClusterFlags(command.description('cold start: preflight, Flux install and sync from the repository, CRD fallback, then every tier in order'), RUN_TIMEOUT)
    .addHelpText('after', `
Before anything is written, up runs the checks that decide whether the graph can converge (a dependsOn cycle or a
missing dependency, an entry or tier that does not build, a CRD deadlock no fallback covers) and exits 2 with
check's messages; --force goes on anyway. Every write is a server-side apply (field manager "standup") or a
reconcile request, so an interrupted run is finished by \`standup resume\`. Each tier is asked to reconcile the
moment its dependencies are Ready, so none waits out kustomize-controller's --requeue-dependency (30s); so is a
HelmRelease its tiers applied that helm-controller turned away for a dependency, once every one is Ready. A new
tier or HelmRelease is asked as soon as its controller has added its finalizer, so that its first real reconcile
does not wait out the controller's rate limiter (--min-retry-delay, 750ms).
${CONNECT_HELP}
With bootstrap.install: {path: ...} in tiers.yaml, up applies Flux's install manifests and waits for the controller
Deployments to be Available (a pod that cannot start is named, with its reason) before it applies the sync.
With bootstrap.install: {operator: ..., instance: ...}, up installs flux-operator from the repository's manifests,
applies the FluxInstance and waits for it Ready (its controllers as pods, its root sync applied), then the tiers;
--source-url then sets the FluxInstance's spec.sync.url. ResourceSets the tiers apply are waited on after them.
operator: (or path:) may name flux-operator's Helm chart instead: a chart directory, a .tgz, a HelmRelease (its
HelmRepository or OCIRepository, values and valuesFrom ConfigMaps) or a helmfile release. up renders it with the
real helm (\`helm template --include-crds\`, found on PATH or at STANDUP_HELM; remote charts are pulled with your
helm's own registry and repository settings; an oci:// chart on loopback over plain HTTP) before it touches the
cluster, and applies the result like manifests, each object with helm's ownership metadata
(app.kubernetes.io/managed-by: Helm, meta.helm.sh/release-name and -namespace) so that the repository's own
HelmRelease of the chart adopts them later. No helm, or helm failing, is exit 2 naming tiers.yaml:LINE.

--source-url points the root source at a mirror and keeps it there: the root Kustomization gets a patch (owned by
field manager "standup") that sets the URL in its own output, so Flux's re-apply from git does not undo it. A later
\`standup up\` without --source-url removes it again. When up installs Flux, it first records the mirror in the
cluster (ConfigMap standup-source-url), so a resume after an up stopped before the sync syncs from the mirror too.

Examples:
  standup up                                the repository's cluster (with several: --cluster NAME; \`standup plan\` lists them)
  standup up --dry-run                      print what would be applied and annotated, tier by tier; write nothing
  standup up --source-url http://127.0.0.1:8080/repo.git   sync from a mirror of the repository served on this machine
${EXIT_CODES_HELP}`)
    .option('--dry-run', 'print what would be applied or annotated, and write nothing')
    .option('--source-url <url>', 'apply the root source with this URL instead of the one in git (a mirror), and keep it so')
    .option('--force', 'go on although the static checks say the graph cannot converge')
    .option('--record <file>', 'write a JSON record of the run (steps, durations, changes) for a post-mortem')
    .action(async (o, cmd) => {
      const { runMode } = await import('../run-command.js');
      cli.exit(await runMode('up', { bootstrap: 'full', checks: true, fallback: 'apply' }, FORMATS, flagsOf(o, cmd), cli.io));
    }),
};
