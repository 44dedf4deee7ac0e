// check's new-only gating: `--base [REF]` compares with check's own findings at the merge-base, `--baseline FILE`
// with a file `--baseline-write FILE` wrote. Either way check shows and fails on what is new, and counts the rest.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../model/errors.js';
import type { Problem } from '../model/problem.js';
import type { LintInput } from '../lint/rule.js';
import { baselineText, parseBaseline } from '../lint/baseline.js';
import { fingerprintOf, matchProblems, type KnownProblem } from '../lint/fingerprint.js';
import type { GateSummary } from '../ui/problems-gate.js';
import type { GlobalOptions } from './options.js';
import type { Io } from './io.js';

export interface GateOptions extends GlobalOptions {
  /** `--base` alone: the default branch; `--base REF`: that revision. */
  base?: string | true;
  /** false with --no-fetch. */
  fetch?: boolean;
  baseline?: string;
  baselineWrite?: string;
}

/** A problem the older side had and the current one has not: fixed, or a baseline entry to drop. */
export interface FixedProblem {
  fingerprint: string;
  code: string;
  cluster: string | null;
  object: string | null;
  message: string;
}

/** What check compared with (`gate` in -o json): ui's summary of it, with the fixed problems' fingerprints. */
export interface GateReport extends GateSummary {
  fixed: FixedProblem[];
  /** `--base`: the files the change touches, relative to the Flux repository (for -o github). */
  changedFiles?: string[];
}

/** The older side, loaded while the current side loads: for --base, check at the merge-base. */
export interface OlderSide {
  known: KnownProblem[];
  report: Omit<GateReport, 'preExisting' | 'preExistingErrors' | 'fixed'>;
}

export function gateMode(o: GateOptions): 'base' | 'baseline' | 'write' | null {
  const given = [o.base !== undefined && '--base', o.baseline !== undefined && '--baseline', o.baselineWrite !== undefined && '--baseline-write'].filter(Boolean);
  if (given.length > 1) throw new ConfigError('BAD_FLAG', `${given.join(' and ')} each choose what check compares with`, 'Pass one of them.');
  return o.base !== undefined ? 'base' : o.baseline !== undefined ? 'baseline' : o.baselineWrite !== undefined ? 'write' : null;
}

/**
 * --base: check's findings at the merge-base of HEAD and the base branch (read from git, not the work tree), and the
 * `dir` is any directory in the git repository.
 */
export async function loadMergeBaseProblems(o: GateOptions, io: Io, dir: string, legacyOrder?: LintInput['legacyOrder']): Promise<OlderSide> {
  const [{ resolveMergeBase }, { loadAndPlan }, { checkRepository }] = await Promise.all([
    import('../repo/merge-base.js'), import('./load-and-plan.js'), import('./check-repository.js'),
  ]);
  const base = await resolveMergeBase(dir, {
    base: o.base === true ? undefined : o.base,
    head: 'HEAD',
    fetch: o.fetch !== false,
    env: io.env,
    note: (m) => io.err(io.errStyle.dim(`${m}\n`)),
  });
  // No progress line of its own: the current side's already shows one.
  const { repo, contexts } = await loadAndPlan(o, io, base.commit, 'all', () => {});
  const { kept } = await checkRepository(repo, contexts, legacyOrder);
  return {
    known: kept.map((p): KnownProblem & FixedProblem => ({ fingerprint: fingerprintOf(p), message: p.message, code: p.code, cluster: p.cluster, object: p.object })),
    report: { mode: 'base', ref: base.ref, commit: base.commit },
  };
}

/** --baseline FILE: its entries; exit 2 naming the file when it is missing or not a baseline. */
export async function readBaseline(file: string, io: Io): Promise<OlderSide> {
  let text: string;
  try {
    text = await readFile(path.resolve(io.cwd, file), 'utf8');
  } catch (e) {
    throw new ConfigError('BASELINE_UNREADABLE', `cannot read --baseline ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      'Write one first: `standup check --baseline-write FILE` (on the default branch), and commit it.');
  }
  return { known: parseBaseline(text, file), report: { mode: 'baseline', file } };
}

/** --baseline-write FILE: every problem check found, written whole or not at all; what the file now holds. */
export async function writeBaseline(file: string, problems: Problem[], io: Io): Promise<OlderSide> {
  const full = path.resolve(io.cwd, file);
  const text = baselineText(problems);
  await mkdir(path.dirname(full), { recursive: true });
  const tmp = `${full}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, full);
  const known = parseBaseline(text, file);
  io.err(`wrote ${file}: ${known.length} problem(s); \`standup check --baseline ${file}\` now fails only on problems not in it\n`);
  return { known, report: { mode: 'baseline', file } };
}

/** The current problems split by the older side: the new ones to show and fail on, and the report. */
export function applyGate(problems: Problem[], older: OlderSide): { problems: Problem[]; report: GateReport } {
  const m = matchProblems(problems, older.known);
  const fixed = m.fixed.map((k) => {
    const e = k as KnownProblem & Partial<FixedProblem>;
    return { fingerprint: e.fingerprint, code: e.code ?? '?', cluster: e.cluster ?? null, object: e.object ?? null, message: e.message };
  });
  return {
    problems: m.added,
    report: { ...older.report, preExisting: m.existing.length, preExistingErrors: m.existing.filter((p) => p.severity === 'error').length, fixed },
  };
}
