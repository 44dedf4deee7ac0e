// `standup fix`'s I/O around the pure repairs (src/fix): load and check the repository, plan the edits on its
// files in memory, then prove them on a copy of the repository before anything is written: the copy is loaded and
// checked again with the real kustomize, every repaired finding must be gone, no new error may appear, and every
// moved resource must render in its new tier. Only then does `--write` touch the repository.
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fluxServes } from '../model/flux-apis.js';
import type { Problem } from '../model/problem.js';
import { refKey } from '../model/ref.js';
import { runtimeCrdFindings } from '../lint/rules/runtime-crd.js';
import { fluxSource } from '../lint/rules/removed-api.js';
import { RepoFiles } from '../fix/files.js';
import type { FixPlan } from '../fix/fix-plan.js';
import { planFixes } from '../fix/plan-fixes.js';
import { checkRepository } from './check-repository.js';
import { loadAndPlan } from './load-and-plan.js';
import type { Io } from './io.js';
import type { GlobalOptions } from './options.js';

export interface FixRequest {
  /** Which shown problems to repair: by code (--code) and by the names given (a tier or an object). */
  codes: string[];
  names: string[];
  suffix?: string;
}

/** What the re-check of the edited copy found. */
export interface Verification {
  /** The copy was loaded and checked (false: there was nothing to edit). */
  ran: boolean;
  /** Findings the edits were to repair that check still reports. */
  remaining: Problem[];
  /** Errors check reports after the edits that it did not before. */
  introduced: Problem[];
  /** Moved resources that do not render in their new tier. */
  misplaced: string[];
}

export interface FixResult {
  root: string;
  plan: FixPlan;
  verification: Verification;
  /** The problems shown before the edits that the selection covers. */
  selectedErrors: Problem[];
}

const SKIP_DIRS = new Set(['.git', 'node_modules']);

/** Plans every repair of the repository and re-checks it on a copy; writes nothing. */
export async function planRepository(o: GlobalOptions, io: Io, req: FixRequest): Promise<FixResult> {
  const { repo, contexts } = await loadAndPlan(o, io);
  const { bootstrap, kept } = await checkRepository(repo, contexts);
  const runtimeCrd = runtimeCrdFindings({ clusters: contexts, config: repo.config, bootstrap, loadProblems: repo.problems });
  const root = repo.root;
  const files = new RepoFiles(
    (f) => {
      const full = path.join(root, f);
      try {
        return statSync(full).isFile() ? readFileSync(full, 'utf8') : null;
      } catch {
        return null;
      }
    },
    (p) => existsSync(path.join(root, p)),
  );
  const selected = (p: Problem) => (req.codes.length === 0 || req.codes.includes(p.code)) && (req.names.length === 0 || req.names.some((n) => namesMatch(n, p)));
  const kustomizationFiles = await listKustomizationFiles(root);
  const fixes = planFixes({
    contexts, problems: kept, runtimeCrd, files, kustomizationFiles, selected, suffix: req.suffix,
    kustomizationApi: (cluster, apiVersion) => {
      const verdict = fluxServes(apiVersion, 'Kustomization', fluxSource(bootstrap.flux, cluster).minor);
      return verdict && !verdict.served ? verdict.replacement : null;
    },
  });
  const plan: FixPlan = { files: files.changed(), ...fixes };
  const selectedErrors = kept.filter((p) => p.severity === 'error' && selected(p));
  const verification = plan.files.length === 0
    ? { ran: false, remaining: [], introduced: [], misplaced: [] }
    : await verifyOnCopy(root, plan, kept, o, io);
  return { root, plan, verification, selectedErrors };
}

/** Writes the planned files into the repository: created, changed and deleted ones. */
export async function writeFixes(root: string, plan: FixPlan): Promise<void> {
  await applyFiles(root, plan.files);
}

async function applyFiles(root: string, changed: FixPlan['files']): Promise<void> {
  for (const f of changed) {
    const full = path.join(root, f.file);
    if (f.after === null) await rm(full, { force: true });
    else {
      await mkdir(path.dirname(full), { recursive: true });
      await writeFile(full, f.after);
    }
  }
}

/** The edits applied to a copy of the repository, which is loaded and checked as the repository itself was. */
async function verifyOnCopy(root: string, plan: FixPlan, before: Problem[], o: GlobalOptions, io: Io): Promise<Verification> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'standup-fix-'));
  try {
    const copy = path.join(dir, path.basename(root));
    await cp(root, copy, { recursive: true, filter: (src) => !SKIP_DIRS.has(path.basename(src)) || src === root });
    await applyFiles(copy, plan.files);
    const quiet: Io = { ...io, err: () => {}, errIsTTY: false };
    const { repo, contexts } = await loadAndPlan({ ...o, repo: copy }, quiet);
    const { kept } = await checkRepository(repo, contexts);
    const id = (p: Problem) => `${p.code}\u0000${p.cluster}\u0000${p.object ?? p.tier ?? ''}`;
    const after = new Set(kept.map(id));
    const remaining = plan.repaired.filter((p) => after.has(id(p)));
    const repairedIds = new Set(plan.repaired.map(id));
    // An error check did not report before, or a finding that was a warning and is now an error (a race the edits
    // turned into a deadlock), is one the edits introduced.
    const errorsBefore = new Set(before.filter((p) => p.severity === 'error').map(id));
    const introduced = kept.filter((p) => p.severity === 'error' && !errorsBefore.has(id(p)) && !repairedIds.has(id(p)));
    const misplaced: string[] = [];
    for (const m of plan.moves) {
      const cluster = repo.clusters.find((c) => c.name === m.cluster);
      for (const obj of m.objects) {
        const owners = cluster?.objects.filter((x) => refKey(x) === obj).map((x) => x.owner) ?? [];
        if (!owners.includes(m.to) || owners.includes(m.from)) {
          misplaced.push(`${obj} renders in ${owners.length ? owners.join(', ') : 'no tier'}, not ${m.to} (cluster ${m.cluster})`);
        }
      }
    }
    return { ran: true, remaining, introduced, misplaced };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A name given on the command line matches a problem's tier or object: `apps`, `flux-system/apps`, `StorageProfile/x`. */
function namesMatch(name: string, p: Problem): boolean {
  const candidates = [p.tier, p.object, p.object?.replace(/^Kustomization\//, '')].filter((x): x is string => !!x);
  return candidates.some((c) => c === name || c.endsWith(`/${name}`));
}

/** Every kustomization file of the repository (repository-relative), to find which lists a moved file. */
async function listKustomizationFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(path.join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory() && !SKIP_DIRS.has(e.name)) await walk(child);
      else if (e.isFile() && /^(kustomization\.ya?ml|Kustomization)$/.test(e.name)) out.push(child);
    }
  };
  await walk('');
  return out.sort();
}
