// What one kustomize run costs against the objects in it, built the way standup batches them (scripts for the cap
// in src/render/kustomize-batches.ts). `npx tsx scripts/bench/kustomize-batch-cost.ts [--per-request 25] [--reps 3]`.
//
// For each batch size K, K objects (Flux Kustomizations, as in a group of a fleet) in requests of --per-request
// objects each go through standup's Builder as one batch (one kustomize process); the CPU of that process is read
// from this process's reaped-children counters (/proc/self/stat cutime + cstime), so the machine's load changes the
// wall time, not the figure. Prints CPU per run and per object; the cheapest per object is where a cap belongs.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Builder } from '../../src/render/kustomize-batches.js';
import { findKustomize } from '../../src/repo/find-kustomize.js';

const args = process.argv.slice(2);
const opt = (name: string, d: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : d;
};
const perRequest = opt('--per-request', 25);
const reps = opt('--reps', 3);
const sizes = [25, 50, 100, 200, 400, 800, 1600, 3200].filter((k) => k >= perRequest);
const TICK = 100; // USER_HZ: /proc's clock ticks per second on Linux.

function childCpuS(): number {
  const f = readFileSync('/proc/self/stat', 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  // After "(comm)": state is index 0, so cutime (field 16) is index 13 and cstime (17) index 14.
  return (Number(rest[13]) + Number(rest[14])) / TICK;
}

const ks = (name: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./ks/${name}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  dependsOn:\n    - name: a-${name}\n    - name: b-${name}\n`;

async function main(): Promise<void> {
  const kustomize = findKustomize();
  const root = mkdtempSync(path.join(os.tmpdir(), 'kustomize-batch-cost-'));
  console.log(`kustomize: ${kustomize.command.join(' ')}; ${perRequest} objects per request; ${reps} runs per size; load ${os.loadavg()[0]!.toFixed(1)}`);
  console.log('| objects in the run | requests | CPU per run (median) | CPU per object |');
  console.log('|---|---|---|---|');
  let n = 0;
  try {
    for (const k of sizes) {
      const cpu: number[] = [];
      for (let r = 0; r < reps; r++) {
        const work = path.join(root, `w${k}-${r}`);
        const reqs = Array.from({ length: k / perRequest }, () => {
          const i = ++n;
          const dir = path.join(work, `r${i}`);
          mkdirSync(dir, { recursive: true });
          writeFileSync(path.join(dir, 'ks.yaml'), Array.from({ length: perRequest }, (_, j) => ks(`app-${i}-${j}`)).join('---\n'));
          writeFileSync(path.join(dir, 'kustomization.yaml'), 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [ks.yaml]\n');
          return { n: i, overlayDir: dir };
        });
        const b = new Builder({ kustomize, work, concurrency: 1, maxBatch: reqs.length, maxObjects: Number.MAX_SAFE_INTEGER });
        const c0 = childCpuS();
        const out = await Promise.all(reqs.map((q) => b.build(q)));
        cpu.push(childCpuS() - c0);
        if (b.spawned !== 1 || out.some((o) => !o.ok)) throw new Error(`size ${k}: ${b.spawned} runs, ${out.filter((o) => !o.ok).length} failed`);
      }
      const med = [...cpu].sort((x, y) => x - y)[Math.floor(cpu.length / 2)]!;
      console.log(`| ${k} | ${k / perRequest} | ${med.toFixed(2)} s | ${((med / k) * 1000).toFixed(2)} ms |`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  console.log(`load at end ${os.loadavg()[0]!.toFixed(1)}`);
}

main().catch((e: unknown) => {
  console.error((e as Error).message);
  process.exit(1);
});
