// `standup fix`'s output: the unified diff (stdout: a patch `git apply` takes), the summary of every change and why,
// what the move costs on a live cluster, what is left for a hand edit, and what the re-check on a copy found
// (stderr, for people); and the JSON document of `-o json`.
import type { FixPlan } from '../fix/fix-plan.js';
import { unifiedDiff } from '../fix/unified-diff.js';
import type { Problem } from '../model/problem.js';
import type { Style } from './style.js';

export interface FixVerification {
  ran: boolean;
  remaining: Problem[];
  introduced: Problem[];
  misplaced: string[];
}

export interface FixReport {
  plan: FixPlan;
  verification: FixVerification;
  /** --write was given and the files were written. */
  written: boolean;
  /** --write was given but nothing was written, because the re-check failed. */
  refused: boolean;
  /** With a cluster context: each tier resources leave, and whether it is Ready at the current revision there. */
  preconditions?: { cluster: string; context: string; tier: string; to: string; state: string; reason: string; revision: string | null; ok: boolean; message: string }[];
}

export const verified = (v: FixVerification): boolean => v.remaining.length === 0 && v.introduced.length === 0 && v.misplaced.length === 0;

/** Every changed file's diff, one after another. */
export function renderFixDiff(plan: FixPlan, style: Style): string {
  return plan.files.map((f) => colour(unifiedDiff(f.file, f.before, f.after), style)).join('');
}

function colour(diff: string, style: Style): string {
  return diff.split('\n').map((l) => {
    if (l.startsWith('+++') || l.startsWith('---')) return style.bold(l);
    if (l.startsWith('@@')) return style.cyan(l);
    if (l.startsWith('+')) return style.green(l);
    if (l.startsWith('-')) return style.red(l);
    return l;
  }).join('\n');
}

const loc = (file: string | null, line: number | null) => (file ? (line ? `${file}:${line}` : file) : '');

/** The summary for people: changes grouped by the finding they repair, costs, hand edits, the re-check, what next. */
export function renderFixSummary(r: FixReport, style: Style): string {
  const { plan, verification: v } = r;
  const out: string[] = [];
  const files = plan.files.length;
  if (plan.changes.length === 0 && plan.manual.length === 0) {
    out.push(`${style.green('✓')} nothing to repair: check reports no finding that standup fix repairs`);
    return out.join('\n') + '\n';
  }
  if (plan.changes.length > 0) {
    const mode = r.written ? 'written' : r.refused ? 'NOT written' : 'dry run: nothing written; --write applies it';
    out.push(style.bold(`${plan.changes.length} change${plan.changes.length === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}, repairing ${plan.repaired.length} finding${plan.repaired.length === 1 ? '' : 's'} (${mode})`));
    const groups = new Map<string, FixPlan['changes']>();
    for (const c of plan.changes) {
      const k = `${c.code}\u0000${c.cluster}\u0000${c.object ?? ''}`;
      groups.set(k, [...(groups.get(k) ?? []), c]);
    }
    for (const cs of groups.values()) {
      const c0 = cs[0]!;
      out.push(`  ${style.bold(c0.code)}  ${c0.object ?? ''}${c0.cluster ? style.dim(` (cluster ${c0.cluster})`) : ''}`);
      for (const c of cs) out.push(`    ${c.file}: ${c.what}\n      ${style.dim(`why: ${c.why}`)}`);
    }
  }
  for (const n of plan.notes) out.push(`${style.dim('note:')} ${n}`);
  for (const c of plan.costs) out.push(`${style.yellow('!')} before merging (cluster ${c.cluster}): ${c.message}`);
  for (const p of r.preconditions ?? []) {
    out.push(`${p.ok ? style.green('✓') : style.red('✗')} merge precondition on cluster ${p.cluster} (context ${p.context}): ${p.message}`);
  }
  const manual = plan.manual;
  if (manual.length > 0) {
    out.push(style.bold(`${manual.length} finding${manual.length === 1 ? '' : 's'} left for a hand edit:`));
    for (const m of manual) {
      const sev = m.severity === 'error' ? style.red('error') : style.yellow(m.severity);
      out.push(`  ${loc(m.file, m.line)}  ${sev} ${m.code}  ${m.object ?? ''}\n    ${m.message}`);
    }
  }
  if (v.ran) {
    if (verified(v)) {
      out.push(`${style.green('✓')} re-checked on a copy of the repository (rendered with kustomize): the repaired findings are gone, no new error, every moved resource renders in its new tier`);
    } else {
      out.push(style.red(`✗ the re-check on a copy of the repository does not confirm the edits${r.refused ? ', so nothing was written' : ''}:`));
      for (const p of v.remaining) out.push(`  still reported: ${loc(p.file, p.line)} ${p.code} ${p.object ?? ''}: ${p.message}`);
      for (const p of v.introduced) out.push(`  new error: ${loc(p.file, p.line)} ${p.code} ${p.object ?? ''}: ${p.message}`);
      for (const m of v.misplaced) out.push(`  ${m}`);
      out.push('  Make the repair by hand (the diff above shows what standup would write), and please report this.');
    }
  }
  return out.join('\n') + '\n';
}

const status = (f: FixPlan['files'][number]) => (f.before === null ? 'created' : f.after === null ? 'deleted' : 'changed');

/** `-o json`: the edits (each file with its status and diff), the changes and why, costs, hand edits, the re-check. */
export function fixJson(r: FixReport) {
  const { plan, verification: v } = r;
  const brief = (p: Problem) => ({ code: p.code, severity: p.severity, cluster: p.cluster, object: p.object, file: p.file, line: p.line, message: p.message });
  return {
    written: r.written,
    files: plan.files.map((f) => ({ file: f.file, status: status(f), diff: unifiedDiff(f.file, f.before, f.after) })),
    changes: plan.changes,
    repaired: plan.repaired.map(brief),
    costs: plan.costs,
    notes: plan.notes,
    manual: plan.manual,
    verification: { ran: v.ran, ok: verified(v), remaining: v.remaining.map(brief), introduced: v.introduced.map(brief), misplaced: v.misplaced },
    preconditions: r.preconditions ?? [],
  };
}
