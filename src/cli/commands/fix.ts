import { ConfigError, ExitCode } from '../../model/errors.js';
import { addClusterFlags, type ClusterFlags } from '../cluster-flags.js';
import type { CliCommand } from '../command.js';
import type { Io } from '../io.js';
import { collect, flagsOf, isDataFormat, outputFormat, renderDocument } from '../options.js';

export interface FixOptions extends ClusterFlags {
  write?: boolean;
  code?: string[];
  suffix?: string;
  /** Positional tier or object names. */
  names?: string[];
}

const FORMATS = ['text', 'json', 'yaml'] as const;
/** The codes fix repairs (src/fix/plan-fixes.ts FIXABLE), for --code and help without loading the repairs. */
const FIXABLE = ['runtime-crd', 'helmrelease-order', 'removed-api'];

export const fixCommand: CliCommand = {
  name: 'fix',
  formats: FORMATS,
  explainsFormats: true,
  define: (command, cli) => addClusterFlags(command, 'with --context or --kubeconfig: how long to wait for the API server (default 30s)')
    .description('write the repairs check asks for: a new tier for a runtime-CRD deadlock, dependsOn for a race, migrated apiVersions')
    .argument('[names...]', 'only findings about these tiers or objects (NAME, NAMESPACE/NAME, or KIND/NAMESPACE/NAME)')
    .option('--write', 'edit the files (default: a dry run that prints the diff and writes nothing)')
    .option('--code <code>', `only findings with this code (repeatable): ${FIXABLE.join(', ')}`, collect)
    .option('--suffix <suffix>', 'the new tier\'s name is <old tier>-<suffix> (default: the first label of the moved resources\' API group, e.g. cdi)')
    .addHelpText('after', `
What fix repairs:
  runtime-crd deadlock  the custom resources move to a new tier: a folder beside the old tier's path holding the
                        moved files and a kustomization.yaml listing them, and a Flux Kustomization <old>-<suffix>
                        next to the old one's file, taking over its sourceRef, interval, retryInterval, timeout,
                        prune, wait, targetNamespace, serviceAccountName, decryption, postBuild, with dependsOn on
                        the tier that makes the CRD exist. That tier gets wait: true when the CRD appears only once
                        it is healthy (an operator or a chart). Every tier that depended on the old tier gains
                        dependsOn on the new one, so what it was guaranteed (the resources exist first) still holds.
  runtime-crd race      the dependsOn the finding names (and wait: true on the installer's tier when needed)
  helmrelease-order     the Kustomization dependsOn that makes a HelmRelease's hidden order visible
  removed-api           the apiVersion \`flux migrate\` writes, for the Flux version the repository installs
Edits keep comments, key order and indentation. A file standup cannot edit safely (generated, a {{ }} template,
a name made by a patch or a \${VAR}, a remote base) is left alone, and the summary says what to do by hand.

Before anything is written, the edited repository is rendered again with kustomize on a copy and checked: the
repaired findings must be gone, no new error may appear, and every moved resource must render in its new tier;
otherwise fix writes nothing and exits 2. When moved resources leave a prune: true tier, the summary says what
the merge costs on a live cluster (they are deleted, then applied again one tier later) and how to avoid it.

With --context (or --kubeconfig), fix also reads the cluster: each tier that resources leave must be Ready at the
current revision before the move is merged, and the summary says whether it is and what happens if it is not
(\`standup fix --context homelab-dev\`). --write edits the repository's files in place: review them with git diff.

Output: the diff on stdout (a patch: \`standup fix > fix.patch && git apply fix.patch\`), the summary on stderr;
-o json (or yaml): {"written","files":[{"file","status","diff"}],"changes":[{"code","cluster","object","file",
"what","why"}],"repaired","costs","notes","manual","verification":{"ran","ok","remaining","introduced","misplaced"},"preconditions":[{"cluster",
"context","tier","to","state","reason","revision","ok","message"}]}.

Exit codes: 0 every selected error is repaired (or there was none); 2 an error fix cannot repair remains (listed
for a hand edit), or the re-check failed (nothing written), or bad input.

Examples:
  standup fix                               every repair check asks for, as a diff (nothing written)
  standup fix --code removed-api            only the apiVersions Flux no longer serves
  standup fix -o json | jq '.changes[].what'   what each repair does, for automation
  standup fix > fix.patch; git apply --check --allow-empty fix.patch   the diff is a patch git applies`)
    .action(async (names, o, cmd) => cli.exit(await fix({ ...flagsOf(o, cmd), names }, cli.io))),
};

/** `standup fix`: plans the repairs, re-checks them on a copy, prints the diff and summary, writes with --write. */
export async function fix(o: FixOptions, io: Io): Promise<number> {
  const format = outputFormat(o.output, FORMATS, 'text');
  const codes = o.code ?? [];
  const unknown = codes.filter((c) => !FIXABLE.includes(c));
  if (unknown.length) {
    throw new ConfigError('BAD_FLAG', `standup fix does not repair ${unknown.map((u) => `"${u}"`).join(', ')}`, `It repairs: ${FIXABLE.join(', ')}. \`standup check --code CODE\` shows the others.`);
  }
  if (o.suffix !== undefined && !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(o.suffix)) {
    throw new ConfigError('BAD_FLAG', `--suffix "${o.suffix}" is not a name part`, 'Use lowercase letters, digits and dashes (a Kubernetes name), e.g. --suffix cdi.');
  }
  const [{ planRepository, writeFixes }, { fixJson, renderFixDiff, renderFixSummary, verified }] = await Promise.all([
    import('../fix-repository.js'), import('../../ui/fix-text.js'),
  ]);
  const result = await planRepository(o, io, { codes, names: o.names ?? [], suffix: o.suffix });
  const preconditions = (o.context || o.kubeconfig) && result.plan.moves.length > 0
    ? await (await import('../fix-precondition.js')).mergePreconditions(o, result.plan, o.timeout ? await requestTimeout(o.timeout) : 30_000, io.env)
    : [];
  const ok = verified(result.verification);
  const write = !!o.write && ok && result.plan.files.length > 0;
  if (write) await writeFixes(result.root, result.plan);
  const report = { plan: result.plan, verification: result.verification, written: write, refused: !!o.write && !ok, preconditions };
  if (isDataFormat(format)) io.out(renderDocument(format, fixJson(report)));
  else {
    io.out(renderFixDiff(result.plan, io.style));
    io.err(renderFixSummary(report, io.errStyle));
    if (write) io.err(`wrote ${result.plan.files.length} file${result.plan.files.length === 1 ? '' : 's'}; \`standup check\` confirms, \`git diff\` shows them\n`);
  }
  if (!ok) return ExitCode.config;
  const left = result.plan.manual.some((m) => m.severity === 'error');
  return left ? ExitCode.config : ExitCode.ok;
}

async function requestTimeout(text: string): Promise<number> {
  const { parseDuration } = await import('../../status/durations.js');
  const ms = parseDuration(text);
  if (!(ms > 0)) throw new ConfigError('BAD_FLAG', `--timeout ${text} is not a positive duration`, 'Pass a duration such as 10s.');
  return ms;
}
