// Git URLs compared as the same repository, whatever their spelling.

/** Two git URLs of one repository: scheme (ssh, scp-like, https), case, `.git` and trailing slashes aside. */
export function sameGitUrl(a: string, b: string): boolean {
  return normalizeGitUrl(a) === normalizeGitUrl(b);
}

const normalizeGitUrl = (u: string): string =>
  u
    .trim()
    .toLowerCase()
    .replace(/^(ssh:\/\/)?git@([^:/]+)[:/]/, 'https://$2/')
    .replace(/^ssh:\/\//, 'https://')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');
