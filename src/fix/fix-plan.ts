// What `standup fix` changes and why, as data: the files' new texts, one change per repaired finding, the findings it
// leaves for a hand edit, and what the repair costs on a live cluster. Pure: the files come through RepoFiles.
import type { Problem, ProblemCode } from '../model/problem.js';

/** One change fix makes, for the summary and `-o json`. */
export interface FixChange {
  code: ProblemCode;
  cluster: string;
  /** The finding's object (`Kind/namespace/name`) or tier it repairs. */
  object: string | null;
  file: string;
  /** What changes, in a few words. */
  what: string;
  /** Why, in terms of the finding. */
  why: string;
}

/** A finding fix cannot repair safely, with what to do by hand. */
export interface ManualStep {
  code: ProblemCode;
  severity: Problem['severity'];
  cluster: string;
  object: string | null;
  file: string | null;
  line: number | null;
  message: string;
}

/** What moving resources out of a `prune: true` tier costs on a live cluster (the prune transient). */
export interface MoveCost {
  cluster: string;
  /** The tier the resources leave, and the new one. */
  from: string;
  to: string;
  objects: string[];
  /** Tiers that now wait for the new tier for these resources. */
  dependents: string[];
  message: string;
}

export interface FixPlan {
  files: { file: string; before: string | null; after: string | null }[];
  changes: FixChange[];
  manual: ManualStep[];
  costs: MoveCost[];
  /** The findings the edits repair: check must not report them after the edits. */
  repaired: Problem[];
  /** What the repair relies on that needs no edit (a wait: true already set), said so it is kept. */
  notes: string[];
  /** Resources moved to a new tier, which must render there as they did in the old one. */
  moves: { cluster: string; from: string; to: string; objects: string[] }[];
}

export const emptyPlan = (): Omit<FixPlan, 'files'> => ({ changes: [], manual: [], costs: [], repaired: [], moves: [], notes: [] });
