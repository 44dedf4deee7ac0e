// Folds problems that say the same thing into one block: the runtime-crd findings of one CRD group and installer
// (31 tiers that apply ServiceMonitors without depending on kube-prometheus-stack), and a finding from a base that
// several clusters share (one block, "clusters dev, prod").
import type { Problem, Severity } from '../model/problem.js';

export interface Fold {
  code: Problem['code'];
  severity: Severity;
  /** The problems folded, in their sorted order; the first is the one shown in full. */
  items: Problem[];
  /** runtime-crd: "kopiur.home-operations.com, installed by HelmRelease/storage/kopiur ... in tier storage/kopiur". */
  title: string | null;
}

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

export function foldProblems(problems: readonly Problem[]): Fold[] {
  const folds = new Map<string, Fold>();
  for (const p of problems) {
    const byInstaller = !!p.installer;
    const key = byInstaller
      ? `${p.code}\0${p.severity}\0${p.crdGroup ?? ''}\0${p.installer}`
      : `${p.code}\0${p.severity}\0${p.file}\0${p.line}\0${p.object}\0${p.message}`;
    const fold = folds.get(key);
    if (fold) fold.items.push(p);
    else folds.set(key, { code: p.code, severity: p.severity, items: [p], title: byInstaller ? titleOf(p) : null });
  }
  return [...folds.values()].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
}

function titleOf(p: Problem): string {
  const inst = p.installer!;
  if (!p.crdGroup) return inst;
  const installed = inst.startsWith('nothing') ? `installed by ${inst}` : inst.startsWith('perhaps') ? `installed ${inst}` : `installed by ${inst}`;
  return `${p.crdGroup}, ${installed}`;
}

/** Distinct values in order of first appearance. */
export const distinct = <T>(xs: readonly T[]): T[] => [...new Set(xs)];

/** "a, b, c and 4 more": at most `max` names unless `all`. */
export function listSome(xs: readonly string[], max: number, all: boolean): string {
  if (all || xs.length <= max) return xs.join(', ');
  return `${xs.slice(0, max).join(', ')} and ${xs.length - max} more (--verbose lists all)`;
}
