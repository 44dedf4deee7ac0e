#!/usr/bin/env node
// Where a run's main-thread time goes, from a V8 CPU profile: each sample is charged to the innermost frame that is
// a standup module (src/ or dist/, by folder and file), module loading, GC, or idle (waiting on kustomize, I/O).
// For BENCHMARKS.md's notes on targets:
//   node --cpu-prof --cpu-prof-dir=/tmp/prof bin/standup.js check --repo R --path E -o json >/dev/null
//   node scripts/bench/profile-summary.mjs /tmp/prof/*.cpuprofile
import { readFileSync } from 'node:fs';

for (const file of process.argv.slice(2)) {
  const p = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const time = new Map();
  for (let i = 0; i < p.samples.length; i++) time.set(p.samples[i], (time.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  const cat = new Map();
  for (const [id, us] of time) {
    let label = null;
    for (let cur = id; cur !== undefined && label === null; cur = parent.get(cur)) {
      const { url, functionName } = byId.get(cur).callFrame;
      if (functionName === '(idle)') label = 'idle (waiting: kustomize, I/O)';
      else if (functionName === '(garbage collector)') label = 'GC';
      else if (/esm\/(loader|translators|module_job|utils)|cjs\/loader/.test(url)) label = 'module loading';
      else {
        const m = /(?:dist|src)\/(repo|lint|cli|ui|plan|graph|model|status|runner|cluster)\/([\w-]+)/.exec(url);
        if (m) label = `${m[1]}/${m[2]}`;
      }
    }
    label ??= 'other (node, libraries)';
    cat.set(label, (cat.get(label) ?? 0) + us / 1000);
  }
  const total = [...cat.values()].reduce((a, b) => a + b, 0);
  console.log(`${file}: ${total.toFixed(0)} ms`);
  for (const [k, v] of [...cat].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${v.toFixed(0).padStart(7)} ms  ${k}`);
}
