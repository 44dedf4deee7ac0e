import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';

let emptyConfig: string | undefined;

// Not /dev/null: on some CI sandboxes it is a regular file that `2>/dev/null`
// redirections fill, and git then fails with "bad config line 1".
const emptyGitConfig = (): string => {
  if (emptyConfig === undefined || !existsSync(emptyConfig)) {
    emptyConfig = path.join(mkdtempSync(path.join(os.tmpdir(), 'standup-git-')), 'config');
    writeFileSync(emptyConfig, '');
  }
  return emptyConfig;
};

// Hermetic git: no user/system config (signing, hooks, templates) leaks into
// fixture repositories, and commit identities are fixed.
export const gitEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: emptyGitConfig(),
  GIT_AUTHOR_NAME: 'standup testbed',
  GIT_AUTHOR_EMAIL: 'testbed@standup.invalid',
  GIT_COMMITTER_NAME: 'standup testbed',
  GIT_COMMITTER_EMAIL: 'testbed@standup.invalid',
  // Served repos and work trees may be created by another process/user.
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'safe.directory',
  GIT_CONFIG_VALUE_0: '*',
});

export const DEFAULT_BRANCH = 'main';

/** Writes or deletes (null) files relative to a repository root. */
export type FileChanges = Record<string, string | null>;

export interface GitRepos {
  /** Served directory holding `<name>.git` bare repositories. */
  readonly root: string;
  /** http://127.0.0.1:<port>/<name>.git, for GitRepository.spec.url. */
  url(name: string): string;
  /** Creates `<name>.git` from a fixture directory with one commit on main; returns its sha. */
  createRepo(name: string, fixtureDir: string, message?: string): Promise<string>;
  /** Commits the changes to main and pushes them to the served repo; returns the new sha. */
  commitAndPush(name: string, files: FileChanges, message: string): Promise<string>;
  /** Current sha of main in the served repo. */
  head(name: string): Promise<string>;
}

const REPO_NAME = /^[a-z0-9][a-z0-9._-]*$/i;

/**
 * File-system side of the git server: bare repos under `root`, work trees under
 * `workRoot`. Holds no state beyond paths, so a test worker can use it with the
 * paths the host process published.
 */
export function gitRepos(root: string, workRoot: string, baseUrl: string): GitRepos {
  const git = (cwd: string, args: string[]) => execa('git', args, { cwd, env: gitEnv() });
  const check = (name: string) => {
    if (!REPO_NAME.test(name)) throw new Error(`invalid repo name ${JSON.stringify(name)}`);
  };
  const bare = (name: string) => path.join(root, `${name}.git`);
  const work = (name: string) => path.join(workRoot, name);
  const head = async (name: string) => (await git(bare(name), ['rev-parse', `refs/heads/${DEFAULT_BRANCH}`])).stdout;

  return {
    root,
    url: (name) => {
      check(name);
      return `${baseUrl}/${name}.git`;
    },
    head: (name) => {
      check(name);
      return head(name);
    },
    async createRepo(name, fixtureDir, message = `fixture ${path.basename(fixtureDir)}`) {
      check(name);
      if (existsSync(bare(name))) throw new Error(`repo ${name} already exists`);
      mkdirSync(workRoot, { recursive: true });
      mkdirSync(root, { recursive: true });
      cpSync(fixtureDir, work(name), { recursive: true });
      await git(work(name), ['init', '-q', '-b', DEFAULT_BRANCH]);
      await git(work(name), ['add', '-A']);
      await git(work(name), ['commit', '-q', '--allow-empty', '-m', message]);
      await git(root, ['clone', '-q', '--bare', work(name), bare(name)]);
      await git(work(name), ['remote', 'add', 'origin', bare(name)]);
      return head(name);
    },
    async commitAndPush(name, files, message) {
      check(name);
      const dir = work(name);
      for (const [rel, content] of Object.entries(files)) {
        const file = path.resolve(dir, rel);
        if (!file.startsWith(dir + path.sep)) throw new Error(`path escapes the repo: ${rel}`);
        if (content === null) rmSync(file, { force: true, recursive: true });
        else {
          mkdirSync(path.dirname(file), { recursive: true });
          writeFileSync(file, content);
        }
      }
      await git(dir, ['add', '-A']);
      await git(dir, ['commit', '-q', '--allow-empty', '-m', message]);
      await git(dir, ['push', '-q', 'origin', `HEAD:refs/heads/${DEFAULT_BRANCH}`]);
      return head(name);
    },
  };
}
