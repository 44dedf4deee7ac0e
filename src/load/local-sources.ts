// `--local-source KIND/NAMESPACE/NAME=DIR`, `--local-source URL=DIR` and tiers.yaml `localSources`: a source that is
// another repository (a fleet's infrastructure and apps repositories) read from a directory here, so a fleet and its
// companions are one graph. As `flux build ks --local-sources` and flux-local's `--sources`. A mapping that is
// malformed, or whose directory is missing or holds no manifests, is exit 2 naming the flag or tiers.yaml:line.
import path from 'node:path';
import { ConfigError } from '../model/errors.js';
import { isDir, walkDirs } from '../repo/fs-stat.js';
import { CONFIG_FILE } from '../repo/tiers-yaml.js';
import type { LocalSource } from '../render/render-context.js';
import { parseSourceFlag } from './parse-source-flag.js';

/** A URL as Flux's sources write them: scheme://..., or git's scp-like user@host:path. */
const isUrl = (s: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^[\w.-]+@[\w.-]+:/.test(s);

const HINT = 'Write KIND/NAMESPACE/NAME=DIR (e.g. GitRepository/flux-system/flux-infra=../d1-infra) or URL=DIR (e.g. https://github.com/org/infra.git=../infra).';

/** One mapping, `what` (KIND/NAMESPACE/NAME or a URL) to `dir` (relative to `base`), given at `from`. */
function mapping(what: string, dir: string, base: string, from: string): LocalSource {
  if (!what || !dir) throw new ConfigError('LOCAL_SOURCE_INVALID', `${from}: "${what}=${dir}" names no source or no directory`, HINT);
  let ref: LocalSource['ref'] = null;
  let url: string | null = null;
  if (isUrl(what)) url = what;
  else {
    try {
      ref = parseSourceFlag(what);
    } catch (e) {
      throw new ConfigError('LOCAL_SOURCE_INVALID', `${from}: ${(e as Error).message.replace(/^--source /, '')}`, HINT);
    }
  }
  const abs = path.resolve(base, dir);
  if (!isDir(abs)) {
    throw new ConfigError('LOCAL_SOURCE_INVALID', `${from}: ${dir} is not a directory (looked for ${abs})`, 'Point it at a clone of the source\'s repository (or the folder its artifact holds).');
  }
  if (!holdsManifests(abs)) {
    throw new ConfigError('LOCAL_SOURCE_INVALID', `${from}: ${dir} is not a repository of manifests: it holds no .yaml, .yml or .json file`, 'Point it at a clone of the source\'s repository (or the folder its artifact holds).');
  }
  return { ref, url, dir: abs, from };
}

/** `--local-source` values, relative to the current directory. */
export function localSourcesFromFlags(values: readonly string[], cwd: string): LocalSource[] {
  return values.map((v) => {
    const i = v.lastIndexOf('=');
    const from = `--local-source ${v}`;
    if (i < 0) throw new ConfigError('LOCAL_SOURCE_INVALID', `${from}: no =DIR`, HINT);
    return mapping(v.slice(0, i).trim(), v.slice(i + 1).trim(), cwd, from);
  });
}

/** tiers.yaml `localSources` (source or URL: directory), relative to the repository root, located by line. */
export function localSourcesFromConfig(entries: Record<string, string>, root: string, configText: string | null): LocalSource[] {
  return Object.entries(entries).map(([what, dir]) => mapping(what.trim(), dir.trim(), root, `${CONFIG_FILE}${lineOfKey(configText, what)} localSources."${what}"`));
}

function lineOfKey(text: string | null, key: string): string {
  if (!text) return '';
  const esc = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const i = text.split('\n').findIndex((l) => new RegExp(`^\\s+["']?${esc}["']?\\s*:`).test(l));
  return i < 0 ? '' : `:${i + 1}`;
}

/** True when the directory (or one below it, .git aside) holds a manifest file. */
function holdsManifests(dir: string): boolean {
  let found = false;
  walkDirs(dir, (_rel, entries) => (found = entries.some((e) => e.isFile() && /\.(ya?ml|json)$/.test(e.name))));
  return found;
}
