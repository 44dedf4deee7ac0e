import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { yamlFilesUnder } from '../../src/repo/yaml-errors.js';
import type { GitRepos } from '../testbed/harness.js';

/**
 * Serves a Flux repository from the testbed's git server the way its owner would push it: the root sync inside it
 * (gotk-sync.yaml) must name the URL it is served from, since Flux re-applies that GitRepository from git. So the
 * served copy has every GitRepository url rewritten to the loopback one (or `url`: where in-cluster Flux reaches the
 * server); the directory itself is left alone.
 * Returns the served URL and the commit sha.
 */
export async function serveRepo(git: GitRepos, name: string, dir: string, url = git.url(name)): Promise<{ url: string; sha: string }> {
  const copy = mkdtempSync(path.join(tmpdir(), `standup-serve-${name}-`));
  try {
    cpSync(dir, copy, { recursive: true });
    for (const file of yamlFilesUnder(copy, Infinity)) {
      const text = readFileSync(file, 'utf8');
      if (/kind:\s*GitRepository/.test(text)) writeFileSync(file, text.replace(/^(\s*url:\s*).*$/gm, `$1${url}`));
    }
    return { url, sha: await git.createRepo(name, copy) };
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
