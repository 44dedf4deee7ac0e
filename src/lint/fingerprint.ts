// A problem's identity across revisions, for new-only gating (`check --base`, `--baseline`) and SARIF's
// partialFingerprints: what it is about (code, cluster, object, tier, CRD group, target), never where it is printed
// (line numbers move with every edit above them) nor its wording. Pure.
import { createHash } from 'node:crypto';
import type { Problem } from '../model/problem.js';

/** The fingerprint scheme's version: a baseline written with another one is rejected, not silently mismatched. */
export const FINGERPRINT_VERSION = 1;

/**
 * 16 hex digits of SHA-256 over the problem's identity. The file counts only for problems about no object (a YAML
 * file that does not parse, a bootstrap file): an object's problem stays the same when its file is renamed.
 */
export function fingerprintOf(p: Problem): string {
  const identity = [
    p.code,
    p.cluster ?? '',
    p.object ?? `file:${p.file ?? ''}`,
    p.tier ?? '',
    p.crdGroup ?? '',
    p.target ?? '',
  ];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 16);
}

/**
 * The message with what moves between runs taken out (line and column numbers, absolute paths such as a temp
 * checkout's): only to pair up problems that share a fingerprint, never part of it.
 */
export function comparableMessage(message: string): string {
  return message
    .replace(/(?:\/[^\s/:'"`]+)+\/(?=[^\s/])/g, '')
    .replace(/(:\d+)+\b/g, '')
    .replace(/\blines? \d+(-\d+)?/g, 'line');
}

/** A problem remembered from the older side: a baseline entry, or a problem at the merge-base. */
export interface KnownProblem {
  fingerprint: string;
  message: string;
}

export interface ProblemMatch<P extends Problem, K extends KnownProblem> {
  /** Not on the older side: what the change introduces. */
  added: P[];
  /** On both sides. */
  existing: P[];
  /** On the older side only: fixed by the change (or a baseline entry that no longer matches). */
  fixed: K[];
}

/**
 * Pairs the current problems with the known ones by fingerprint. When several share one, each known entry covers one
 * current problem (ESLint's suppression counts): those with the same comparable message first, then any; so a second
 * missing dependency on one Kustomization is new even though the first was known.
 */
export function matchProblems<P extends Problem, K extends KnownProblem>(current: readonly P[], known: readonly K[]): ProblemMatch<P, K> {
  const pool = new Map<string, K[]>();
  for (const k of known) pool.set(k.fingerprint, [...(pool.get(k.fingerprint) ?? []), k]);
  const withPrint = current.map((p) => ({ p, fp: fingerprintOf(p), msg: comparableMessage(p.message) }));
  const paired = new Set<P>();
  // Two passes: the exact pairings must not lose their known entry to a problem that matches only by fingerprint.
  for (const exact of [true, false]) {
    for (const { p, fp, msg } of withPrint) {
      if (paired.has(p)) continue;
      const candidates = pool.get(fp);
      if (!candidates?.length) continue;
      const i = exact ? candidates.findIndex((k) => comparableMessage(k.message) === msg) : 0;
      if (i < 0) continue;
      candidates.splice(i, 1);
      paired.add(p);
    }
  }
  return {
    added: current.filter((p) => !paired.has(p)),
    existing: current.filter((p) => paired.has(p)),
    fixed: [...pool.values()].flat(),
  };
}

/**
 * SARIF partialFingerprints: the fingerprint, with an ordinal when several problems of one run share it, so code
 * scanning keeps them apart.
 */
export function sarifFingerprints(problems: readonly Problem[]): string[] {
  const seen = new Map<string, number>();
  return problems.map((p) => {
    const fp = fingerprintOf(p);
    const n = seen.get(fp) ?? 0;
    seen.set(fp, n + 1);
    return `${fp}:${n + 1}`;
  });
}
