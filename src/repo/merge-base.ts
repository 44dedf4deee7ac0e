// `diff --base`: the merge-base of HEAD and the default branch, as `git diff base...HEAD` compares. CI checks out
// shallow (actions/checkout fetches one commit), so the base branch or the history down to the merge-base may be
// missing: in a shallow checkout this fetches what is missing (the branch, then deeper history in doubling steps);
// anywhere else, or with fetching off, it names the exact `git fetch` to run. All git calls go through git.ts.
import { ConfigError } from '../model/errors.js';
import { findGitRoot, runGit } from './git.js';

export interface BaseOptions {
  /** The revision or branch given to --base; undefined: the default branch. */
  base?: string;
  /** The revision compared against it. */
  head: string;
  /** May fetch from the remote when the checkout is shallow. */
  fetch: boolean;
  /** For the CI's idea of the base branch (GITHUB_BASE_REF, CI_MERGE_REQUEST_TARGET_BRANCH_NAME). */
  env: Record<string, string | undefined>;
  /** Tells the user what is fetched and why (stderr). */
  note: (message: string) => void;
}

export interface ResolvedBase {
  /** What the merge-base was taken with: `origin/main`, or the --base revision as given. */
  ref: string;
  /** The merge-base commit. */
  commit: string;
  /** git fetch ran to find it. */
  fetched: boolean;
}

/** Doubling `--deepen` steps before giving up on partial history and fetching all of it. */
const DEEPEN_STEPS = [50, 100, 200, 400, 800, 1600];

interface Repo {
  root: string;
  remote: string | null;
  shallow: boolean;
}

/** The merge-base of `head` and the base branch; a ConfigError (exit 2) names the `git fetch` that would fix it. */
export async function resolveMergeBase(dir: string, o: BaseOptions): Promise<ResolvedBase> {
  const root = await findGitRoot(dir);
  if (!root) throw new ConfigError('NOT_A_GIT_REPOSITORY', `--base needs a git repository, and ${dir} is not in one`);
  const repo: Repo = { root, remote: await pickRemote(root), shallow: (await runGit(root, ['rev-parse', '--is-shallow-repository'])).stdout === 'true' };
  const headCommit = await commitOf(root, o.head);
  if (!headCommit) throw new ConfigError('REV_NOT_FOUND', `git revision "${o.head}" not found in ${root}`, 'Pass a branch, tag or commit that exists in this repository.');
  const canFetch = o.fetch && repo.shallow && repo.remote !== null;
  let fetched = false;

  const target = o.base !== undefined ? await explicitTarget(repo, o.base) : await defaultTarget(repo, o.env, canFetch);
  if (!(await commitOf(root, target.ref))) {
    if (!target.branch || !repo.remote) {
      throw new ConfigError('REV_NOT_FOUND', `git revision "${target.ref}" not found in ${root}`, 'Pass --base with a branch, tag or commit that exists in this repository.');
    }
    const cmd = fetchBranch(repo.remote, target.branch, repo.shallow ? DEEPEN_STEPS[0] : undefined);
    if (!canFetch) {
      throw new ConfigError('BASE_NOT_FETCHED', `the base branch ${target.ref} is not in this checkout`,
        `Fetch it first: git ${cmd.join(' ')}${o.fetch ? '' : ' (or drop --no-fetch in a shallow checkout)'}`);
    }
    o.note(`fetching the base branch: git ${cmd.join(' ')}`);
    await fetchOrExplain(root, cmd);
    fetched = true;
  }

  for (let step = 0; ; step++) {
    const mb = await runGit(root, ['merge-base', target.ref, headCommit]);
    if (mb.exitCode === 0 && mb.stdout) return { ref: target.ref, commit: mb.stdout, fetched };
    // Exit 1 without output: no common ancestor in the history this checkout has.
    if (mb.exitCode !== 1) throw new ConfigError('MERGE_BASE_FAILED', `git merge-base ${target.ref} ${o.head} failed: ${mb.stderr}`);
    if (!repo.shallow) {
      throw new ConfigError('NO_MERGE_BASE', `${target.ref} and ${o.head} have no common ancestor`, 'Pass --base with a revision on the same history (or --from REV to compare with any revision).');
    }
    const refspecs = target.branch && repo.remote ? [`+refs/heads/${target.branch}:refs/remotes/${repo.remote}/${target.branch}`] : [];
    const deepen = step < DEEPEN_STEPS.length ? [`--deepen=${DEEPEN_STEPS[step]}`] : ['--unshallow'];
    const cmd = ['fetch', '--no-tags', ...deepen, repo.remote ?? 'origin', headCommit, ...refspecs];
    if (!canFetch) {
      throw new ConfigError('SHALLOW_CHECKOUT', `this checkout is shallow and lacks the history down to the merge-base of ${target.ref} and ${o.head}`,
        `Fetch the history first: git fetch --no-tags --unshallow ${repo.remote ?? 'origin'} ${refspecs.join(' ')}`.trim() +
          ' (in GitHub Actions: actions/checkout with fetch-depth: 0)');
    }
    o.note(`shallow checkout: fetching more history to find the merge-base: git ${cmd.join(' ')}`);
    await fetchOrExplain(root, cmd);
    fetched = true;
    repo.shallow = (await runGit(root, ['rev-parse', '--is-shallow-repository'])).stdout === 'true';
  }
}

async function commitOf(root: string, rev: string): Promise<string | null> {
  const r = await runGit(root, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  return r.exitCode === 0 && r.stdout ? r.stdout : null;
}

/** `origin` when there is one, else the only remote; null without remotes (nothing can be fetched). */
async function pickRemote(root: string): Promise<string | null> {
  const remotes = (await runGit(root, ['remote'])).stdout.split('\n').filter(Boolean);
  return remotes.includes('origin') ? 'origin' : remotes.length === 1 ? remotes[0]! : null;
}

/** A ref to take the merge-base with, and the remote branch it tracks (which can be fetched) when there is one. */
interface Target {
  ref: string;
  branch: string | null;
}

/** `--base origin/main` tracks origin's main; `--base main` is the local branch, else origin's (a CI checkout has no local one). */
async function explicitTarget(repo: Repo, base: string): Promise<Target> {
  const prefix = repo.remote ? `${repo.remote}/` : null;
  if (prefix && base.startsWith(prefix)) return { ref: base, branch: base.slice(prefix.length) };
  if (prefix && !(await commitOf(repo.root, base)) && /^[\w.\/-]+$/.test(base)) return { ref: prefix + base, branch: base };
  return { ref: base, branch: null };
}

/**
 * The default branch: the CI's base branch of this pull or merge request, else the remote's HEAD (from the
 * checkout, or asked from the remote when fetching is allowed), else a local main or master.
 */
async function defaultTarget(repo: Repo, env: BaseOptions['env'], canAsk: boolean): Promise<Target> {
  const remote = repo.remote;
  const ciBranch = env.GITHUB_BASE_REF || env.CI_MERGE_REQUEST_TARGET_BRANCH_NAME || env.CI_DEFAULT_BRANCH;
  if (ciBranch && remote) return { ref: `${remote}/${ciBranch}`, branch: ciBranch };
  if (remote) {
    const head = await runGit(repo.root, ['symbolic-ref', '--quiet', '--short', `refs/remotes/${remote}/HEAD`]);
    if (head.exitCode === 0 && head.stdout.startsWith(`${remote}/`)) return { ref: head.stdout, branch: head.stdout.slice(remote.length + 1) };
    if (canAsk) {
      const ls = await runGit(repo.root, ['ls-remote', '--symref', remote, 'HEAD']);
      const m = /^ref: refs\/heads\/(\S+)\s+HEAD$/m.exec(ls.stdout);
      if (m) return { ref: `${remote}/${m[1]}`, branch: m[1]! };
    }
  }
  const candidates = [...(remote ? [`${remote}/main`, `${remote}/master`] : []), 'main', 'master'];
  for (const ref of candidates) {
    if (await commitOf(repo.root, ref)) return { ref, branch: remote && ref.startsWith(`${remote}/`) ? ref.slice(remote.length + 1) : null };
  }
  throw new ConfigError('BASE_UNKNOWN', 'cannot tell the default branch to compare with (no origin/HEAD, main or master)',
    remote ? `Pass it: --base ${remote}/main (or run: git remote set-head ${remote} --auto)` : 'Pass it: --base main');
}

const fetchBranch = (remote: string, branch: string, depth: number | undefined): string[] =>
  ['fetch', '--no-tags', ...(depth ? [`--depth=${depth}`] : []), remote, `+refs/heads/${branch}:refs/remotes/${remote}/${branch}`];

async function fetchOrExplain(root: string, cmd: string[]): Promise<void> {
  const r = await runGit(root, cmd);
  if (r.exitCode !== 0) {
    throw new ConfigError('FETCH_FAILED', `git ${cmd.join(' ')} failed: ${r.stderr.split('\n').pop()}`,
      'Check the remote and its credentials, or fetch the history yourself (actions/checkout: fetch-depth: 0) and run again.');
  }
}

/**
 * The files that differ between `commit` and the work tree (committed, staged or not, and untracked), relative to
 * `dir`: what a pull request touches, for annotating only those.
 */
export async function changedSince(dir: string, commit: string): Promise<string[]> {
  const root = await findGitRoot(dir);
  if (!root) return [];
  const prefix = (await runGit(dir, ['rev-parse', '--show-prefix'])).stdout;
  const diffed = await runGit(root, ['-c', 'core.quotePath=false', 'diff', '--name-only', '--no-renames', commit, '--']);
  const untracked = await runGit(root, ['-c', 'core.quotePath=false', 'ls-files', '--others', '--exclude-standard']);
  const files = [...diffed.stdout.split('\n'), ...untracked.stdout.split('\n')].filter(Boolean);
  return [...new Set(files.filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length)))].sort();
}
