// Judges `standup check -o json` findings on a corpus repository against a static read of the repository's own
// files, independent of standup's loader: the Flux Kustomizations written in the cluster's folders (namespace from
// metadata or the enclosing kustomization.yaml), their dependsOn closure, wait and healthChecks, and the releases the
// bootstrap helmfiles install. Prints one TSV row per warning or error: key, verdict, reason.
//   node scripts/corpus/judge-static.mjs <repo-dir> <check.json> [<apps-glob-root>...]
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

const [repo, json, ...roots] = process.argv.slice(2);
const problems = JSON.parse(readFileSync(json, 'utf8')).problems.filter((p) => p.severity !== 'info');

function walk(dir, out = []) {
  for (const e of readdirSync(dir)) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.ya?ml$/.test(e)) out.push(p);
  }
  return out;
}
const docs = (f) => { try { return parseAllDocuments(readFileSync(f, 'utf8'), { uniqueKeys: false }).map((d) => d.toJS({ maxAliasCount: -1 })).filter(Boolean); } catch { return []; } };
const kzNs = (dir) => {
  for (let d = dir; d.startsWith(repo); d = path.dirname(d)) {
    const k = ['kustomization.yaml', 'kustomization.yml'].map((n) => path.join(d, n)).find(existsSync);
    if (k) { const ns = docs(k)[0]?.namespace; if (ns) return ns; }
    if (d === repo) break;
  }
  return null;
};

// cluster name -> Map key -> {wait, healthChecks, deps[], file}
const byCluster = new Map();
for (const r of roots) {
  const [cluster, rel] = r.split('=');
  const m = byCluster.get(cluster) ?? new Map();
  for (const f of walk(path.join(repo, rel))) {
    for (const d of docs(f)) {
      if (d.kind !== 'Kustomization' || !String(d.apiVersion ?? '').startsWith('kustomize.toolkit.fluxcd.io/')) continue;
      const ns = d.metadata?.namespace ?? kzNs(path.dirname(f)) ?? 'flux-system';
      const key = `${ns}/${d.metadata?.name}`;
      m.set(key, { wait: d.spec?.wait === true, healthChecks: (d.spec?.healthChecks ?? []).length, deps: (d.spec?.dependsOn ?? []).map((x) => `${x.namespace ?? ns}/${x.name}`), file: path.relative(repo, f), path: d.spec?.path });
    }
  }
  byCluster.set(cluster, m);
}
const closure = (m, key) => {
  const seen = new Set(); const stack = [...(m.get(key)?.deps ?? [])];
  while (stack.length) { const k = stack.pop(); if (seen.has(k)) continue; seen.add(k); stack.push(...(m.get(k)?.deps ?? [])); }
  return seen;
};
// Releases the bootstrap helmfiles name (CRDs or installed) and those it installs (not rendered with --include-crds).
const bootstrapReleases = new Set();
const installedReleases = new Set();
for (const b of ['bootstrap', 'kubernetes/bootstrap']) {
  for (const f of existsSync(path.join(repo, b)) ? walk(path.join(repo, b)) : []) {
    const ds = docs(f);
    const crdsOnly = ds.some((d) => (d.helmDefaults?.args ?? []).includes('--include-crds'));
    for (const d of ds) for (const r of d.releases ?? []) { bootstrapReleases.add(r.name); if (!crdsOnly) installedReleases.add(r.name); }
  }
}
const releasesUnder = (p) => {
  const dir = path.join(repo, String(p ?? '').replace(/^\.\//, ''));
  if (!p || p.includes('${') || !existsSync(dir)) return null;
  return walk(dir).flatMap((f) => docs(f)).filter((d) => d.kind === 'HelmRelease').map((d) => d.metadata?.name);
};

for (const p of problems) {
  const key = [p.code, p.cluster, p.tier ?? '', p.object ?? '', p.crdGroup ?? '', p.target ?? '', `${p.file}:${p.line}`].join('|');
  const m = byCluster.get(p.cluster);
  let verdict = '?', reason = '';
  const tierOf = (re) => (re.exec(p.message) ?? [])[1];
  if (!m) reason = 'cluster not read statically';
  else if (p.code === 'runtime-crd' && p.severity === 'warning' && /installs the CRDs, and .* does not depend on it|is applied by \S+, which \S+ does not depend on/.test(p.message)) {
    const inst = tierOf(/in tier (\S+) installs the CRDs/) ?? tierOf(/its CRD \S+ is applied by (\S+),/);
    const chart = tierOf(/\(chart (\S+)\)/);
    const c = closure(m, p.tier);
    if (!m.has(p.tier)) reason = `tier ${p.tier} not found statically`;
    else if (c.has(inst)) { verdict = 'false'; reason = `${p.tier} (${m.get(p.tier).file}) reaches ${inst} through dependsOn`; }
    else if (bootstrapReleases.has(chart)) { verdict = 'false'; reason = `the bootstrap helmfile installs ${chart} (or its CRDs) before Flux`; }
    else { verdict = 'true'; reason = `${m.get(p.tier).file}: dependsOn closure [${[...c].join(' ') || 'none'}] lacks ${inst}; the bootstrap helmfiles do not install ${chart}`; }
  } else if (p.code === 'helmrelease-order') {
    const to = tierOf(/which tier (\S+) applies/);
    const c = closure(m, p.tier);
    if (!m.has(p.tier)) reason = `tier ${p.tier} not found statically`;
    else if (c.has(to)) { verdict = 'false'; reason = `${p.tier} reaches ${to} through dependsOn`; }
    else { verdict = 'true'; reason = `${m.get(p.tier).file}: dependsOn closure [${[...c].join(' ') || 'none'}] lacks ${to}, which applies ${p.target}`; }
  } else if (p.code === 'wait-dependency') {
    const key2 = _ks(p.message);
    const v = m.get(key2);
    const dependents = [...m.entries()].filter(([, x]) => x.deps.includes(key2)).map(([kk]) => kk);
    if (!v) reason = `${key2} not found statically`;
    else if (v.wait || v.healthChecks > 0) { verdict = 'false'; reason = `${v.file}: wait ${v.wait}, ${v.healthChecks} healthChecks`; }
    else if (dependents.length === 0) { verdict = 'false'; reason = `nothing depends on ${key2}`; }
    else if ((releasesUnder(v.path) ?? []).length > 0 && releasesUnder(v.path).every((n) => installedReleases.has(n))) { verdict = 'false'; reason = `the bootstrap helmfile installs ${releasesUnder(v.path).join(', ')} before Flux`; }
    else { verdict = 'true'; reason = `${v.file}: no wait: true, no healthChecks; ${dependents.length} dependent(s): ${dependents.slice(0, 4).join(' ')}`; }
  }
  console.log([key, p.severity, verdict, reason].join('\t'));
}
function _ks(msg) { return /^(\S+) has \d+ dependent/.exec(msg)?.[1]; }
