// Talos applies a machine configuration's `cluster.extraManifests` (URLs) when it bootstraps the cluster, before
// Flux exists: the CRDs in them are there before the first tier (the Gateway API's install manifest is a common
// one). Read statically from the Talos files of the repository (a talos/ folder's YAML or Jinja/Go templates, a
// talhelper talconfig.yaml): a URL standup knows the groups of is an install; any other, or one still templated, is
// a `bootstrap-unreadable` note with file:line, since what it installs is not known offline.
import { readFileSync } from 'node:fs';
import type { BootstrapInstall } from '../model/bootstrap.js';
import type { Problem } from '../model/problem.js';
import { crdGroupsOfUrl } from './crd-groups.js';
import { findFiles } from './find-files.js';

const SKIP_DIRS = new Set(['.git', 'node_modules', '.github', 'vendor']);
const TALOS_FILE = /(^|\/)talos\/.*\.(ya?ml|j2|tmpl|tpl)$|(^|\/)talconfig\.ya?ml$/;

export function readTalosManifests(root: string, rel: (abs: string) => string, installs: BootstrapInstall[], problems: Problem[]): void {
  for (const f of talosFiles(root, rel)) {
    let text: string;
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    if (!text.includes('extraManifests:')) continue;
    for (const { url, line } of extraManifests(text)) {
      const at = { file: rel(f), line };
      const groups = url.includes('{{') ? [] : crdGroupsOfUrl(url);
      if (groups.length) {
        installs.push({ name: url.split(/[?#]/)[0]!.split('/').pop() || url, namespace: null, kind: 'manifest', chart: null, groups, ...at });
        continue;
      }
      problems.push({
        code: 'bootstrap-unreadable',
        severity: 'info',
        message:
          `${at.file}:${line}: Talos applies ${url} (cluster.extraManifests) before Flux, and standup cannot tell offline which CRDs it holds. ` +
          `If it installs CRDs the tiers use, declare them in tiers.yaml (externalCrds).`,
        ...at,
        object: null,
        cluster: null,
      });
    }
  }
}

/** The URLs listed under each `extraManifests:` key, with their lines (comments and templates left as they are). */
export function extraManifests(text: string): { url: string; line: number }[] {
  const out: { url: string; line: number }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const key = /^(\s*)extraManifests:\s*(#.*)?$/.exec(lines[i]!);
    if (!key) continue;
    const indent = key[1]!.length;
    for (let j = i + 1; j < lines.length; j++) {
      const l = lines[j]!;
      if (/^\s*(#.*)?$/.test(l)) continue;
      const own = l.length - l.trimStart().length;
      if (own < indent || (own === indent && !l.trimStart().startsWith('-'))) break;
      const url = /(https?:\/\/[^\s"'#]+)/.exec(l.replace(/#.*$/, ''))?.[1];
      if (url) out.push({ url, line: j + 1 });
    }
  }
  return out;
}

const talosFiles = (root: string, rel: (abs: string) => string): string[] =>
  findFiles(root, { maxDepth: 8, skipDir: (n) => SKIP_DIRS.has(n), keep: (p) => TALOS_FILE.test(rel(p)) });
