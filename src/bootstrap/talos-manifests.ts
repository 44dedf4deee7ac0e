// Talos applies a machine configuration's `cluster.extraManifests` and its custom CNI's `cluster.network.cni.urls`
// (URLs) when it bootstraps the cluster, before Flux exists: what they install is there before the first tier (the
// Gateway API's install manifest; a CNI such as Cilium, whose operator then creates its CRDs). Read statically from
// the Talos files of the repository (a talos/ folder's YAML or Jinja/Go templates, a talhelper talconfig.yaml, whose
// `cniConfig` is the same list). What a URL installs, without fetching it: the CRDs of this repository's own copy of
// the file when the URL points into it (raw.githubusercontent.com/OWNER/REPO/REF/PATH and PATH exists here), the
// groups a URL names (crd-groups.ts), and the software a URL names by its folder or file (`.../cilium/cilium.yaml`),
// looked up in the chart table. Any other URL, or one still templated, is a `bootstrap-unreadable` note with
// file:line, since what it installs is not known offline.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BootstrapInstall } from '../model/bootstrap.js';
import { chartEntry } from '../model/chart-crds.js';
import type { Problem } from '../model/problem.js';
import { isFile } from '../repo/fs-stat.js';
import { noMemo, type TextMemo } from '../repo/lazy-yaml.js';
import { crdGroupsOfUrl, manifestCrdGroups } from './crd-groups.js';
import { findFiles } from './find-files.js';

const SKIP_DIRS = new Set(['.git', 'node_modules', '.github', 'vendor']);
const TALOS_FILE = /(^|\/)talos\/.*\.(ya?ml|j2|tmpl|tpl)$|(^|\/)talconfig\.ya?ml$/;

export function readTalosManifests(root: string, rel: (abs: string) => string, installs: BootstrapInstall[], problems: Problem[], memo: TextMemo = noMemo): void {
  for (const f of talosFiles(root, rel)) {
    let text: string;
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    if (!/extraManifests:|cni(Config)?:/.test(text)) continue;
    for (const { url, line, via } of talosUrls(text)) {
      const at = { file: rel(f), line };
      const known = url.includes('{{') ? null : whatUrlInstalls(url, root, memo);
      if (known) {
        installs.push({ name: url.split(/[?#]/)[0]!.split('/').pop() || url, namespace: null, kind: 'manifest', chart: known.software, groups: known.groups, ...at });
        continue;
      }
      problems.push({
        code: 'bootstrap-unreadable',
        severity: 'info',
        message:
          `${at.file}:${line}: Talos applies ${url} (${via}) before Flux, and standup cannot tell offline which CRDs it holds. ` +
          `If it installs CRDs the tiers use, declare them in tiers.yaml (externalCrds).`,
        ...at,
        object: null,
        cluster: null,
      });
    }
  }
}

/**
 * What a URL Talos applies installs, known offline: CRD groups (from this repository's copy of the file, or named by
 * the URL) and the software it names (a chart of the chart table, whose operator may create more CRDs at runtime).
 * Null when nothing is known: neither a copy here nor a name standup knows.
 */
function whatUrlInstalls(url: string, root: string, memo: TextMemo = noMemo): { groups: string[]; software: string | null } | null {
  const groups = new Set(crdGroupsOfUrl(url));
  const local = localCopy(url, root);
  if (local) for (const g of manifestCrdGroups(local, memo)) groups.add(g);
  const segments = url.split(/[?#]/)[0]!.split('/').slice(3);
  const names = segments.slice(-2).map((s) => s.replace(/\.ya?ml$/, '').replace(/[-_.](install|manifests?|deploy|crds?|v?\d[\w.]*)$/i, ''));
  const software = names.reverse().find((n) => chartEntry(n)) ?? null;
  if (!local && !software && groups.size === 0) return null;
  return { groups: [...groups].sort(), software };
}

/** This repository's copy of a file a GitHub URL serves (raw.githubusercontent.com or github.com/.../raw|blob/REF/PATH). */
function localCopy(url: string, root: string): string | null {
  const m = /^https?:\/\/raw\.githubusercontent\.com\/[^/]+\/[^/]+\/(.+)$/.exec(url) ?? /^https?:\/\/github\.com\/[^/]+\/[^/]+\/(?:raw|blob)\/(.+)$/.exec(url);
  if (!m) return null;
  // The ref may hold slashes (refs/heads/main, a branch feature/x): the first suffix that is a file here is the path.
  const parts = m[1]!.split(/[?#]/)[0]!.split('/');
  for (let i = 1; i < parts.length; i++) {
    const p = path.join(root, ...parts.slice(i));
    if (p.startsWith(root + path.sep) && isFile(p)) return p;
  }
  return null;
}

/** The URLs a Talos file lists: under `extraManifests:`, and under `urls:` of a `cni:` (Talos) or `cniConfig:` (talhelper) block. */
function talosUrls(text: string): { url: string; line: number; via: string }[] {
  const lines = text.split('\n');
  const out: { url: string; line: number; via: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const extra = /^(\s*)extraManifests:\s*(#.*)?$/.exec(lines[i]!);
    if (extra) out.push(...listUnder(lines, i, extra[1]!.length).map((u) => ({ ...u, via: 'cluster.extraManifests' })));
    const cni = /^(\s*)(cni|cniConfig):\s*(#.*)?$/.exec(lines[i]!);
    if (!cni) continue;
    const indent = cni[1]!.length;
    for (let j = i + 1; j < lines.length; j++) {
      const l = lines[j]!;
      if (/^\s*(#.*)?$/.test(l)) continue;
      if (l.length - l.trimStart().length <= indent) break;
      const urls = /^(\s*)urls:\s*(#.*)?$/.exec(l);
      if (urls) out.push(...listUnder(lines, j, urls[1]!.length).map((u) => ({ ...u, via: cni[2] === 'cni' ? 'cluster.network.cni.urls' : 'cniConfig.urls' })));
    }
  }
  return out.sort((a, b) => a.line - b.line);
}

/** The URLs of the block list under the key at `lines[at]` (indented `indent`), with their 1-based lines. */
function listUnder(lines: readonly string[], at: number, indent: number): { url: string; line: number }[] {
  const out: { url: string; line: number }[] = [];
  for (let j = at + 1; j < lines.length; j++) {
    const l = lines[j]!;
    if (/^\s*(#.*)?$/.test(l)) continue;
    const own = l.length - l.trimStart().length;
    if (own < indent || (own === indent && !l.trimStart().startsWith('-'))) break;
    const url = /(https?:\/\/[^\s"'#]+)/.exec(l.replace(/#.*$/, ''))?.[1];
    if (url) out.push({ url, line: j + 1 });
  }
  return out;
}

const talosFiles = (root: string, rel: (abs: string) => string): string[] =>
  findFiles(root, { maxDepth: 8, skipDir: (n) => SKIP_DIRS.has(n), keep: (p) => TALOS_FILE.test(rel(p)) });
