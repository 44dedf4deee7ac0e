// Suppressions, each with its reason: tiers.yaml `ignore:` entries, and a `standup.io/ignore: "CODE[,CODE]: reason"`
// annotation on the object a problem is about (or on its tier's Kustomization). A suppression that matches nothing
// is itself a warning, so stale ones do not pile up; a malformed annotation is one too. Pure.
import type { StandupConfig } from '../model/config.js';
import type { ClusterModel } from '../model/flux.js';
import { PROBLEM_CODES, type Problem, type ProblemCode } from '../model/problem.js';
import { refKey } from '../model/ref.js';

export const IGNORE_ANNOTATION = 'standup.io/ignore';

export interface Suppressed extends Problem {
  /** `tiers.yaml:LINE` or `annotation on Kind/ns/name`. */
  suppressedBy: string;
  reason: string;
}

export interface SuppressionResult {
  kept: Problem[];
  suppressed: Suppressed[];
}

interface Annotation {
  codes: Set<ProblemCode>;
  reason: string;
  where: string;
  used: boolean;
  file: string;
  line: number | null;
  object: string;
  cluster: string;
}

/**
 * `ignoreLines[i]` is the tiers.yaml line of `config.ignore[i]` (for the unmatched warning), when known.
 */
export function applySuppressions(problems: Problem[], config: StandupConfig, clusters: readonly ClusterModel[], ignoreLines: (number | null)[] = []): SuppressionResult {
  const { annotations, invalid } = readAnnotations(clusters);
  const used = config.ignore.map(() => false);
  const kept: Problem[] = [...invalid];
  const suppressed: Suppressed[] = [];
  for (const p of problems) {
    const i = config.ignore.findIndex((e) =>
      e.code === p.code &&
      (e.object === undefined || e.object === p.object) &&
      (e.tier === undefined || e.tier === p.tier || p.object === `Kustomization/${e.tier}`) &&
      (e.group === undefined || e.group === (p.crdGroup ?? p.externalCrd)) &&
      (e.cluster === undefined || e.cluster === p.cluster));
    if (i >= 0) {
      used[i] = true;
      suppressed.push({ ...p, suppressedBy: `tiers.yaml${ignoreLines[i] ? `:${ignoreLines[i]}` : ''}`, reason: config.ignore[i]!.reason });
      continue;
    }
    const keys = [p.object, p.tier ? `Kustomization/${p.tier}` : null].filter((k): k is string => !!k);
    const a = keys.map((k) => annotations.get(`${p.cluster}\0${k}`)).find((x) => x?.codes.has(p.code));
    if (a) {
      a.used = true;
      suppressed.push({ ...p, suppressedBy: a.where, reason: a.reason });
      continue;
    }
    kept.push(p);
  }
  config.ignore.forEach((e, i) => {
    if (used[i]) return;
    const what = [e.object && `object ${e.object}`, e.tier && `tier ${e.tier}`, e.group && `group ${e.group}`, e.cluster && `cluster ${e.cluster}`].filter(Boolean).join(', ');
    kept.push({
      code: 'ignore-unmatched',
      severity: 'warning',
      message: `tiers.yaml ignore[${i}] (${e.code}${what ? `, ${what}` : ''}) matches no problem: remove it, or fix what it names.`,
      file: 'tiers.yaml',
      line: ignoreLines[i] ?? null,
      object: null,
      cluster: null,
    });
  });
  // One warning per annotation, not per cluster that renders it.
  const seen = new Set<string>();
  for (const a of annotations.values()) {
    const k = `${a.file}:${a.line}:${a.object}`;
    if (a.used) seen.add(k);
  }
  for (const a of annotations.values()) {
    const k = `${a.file}:${a.line}:${a.object}`;
    if (a.used || seen.has(k)) continue;
    seen.add(k);
    kept.push({
      code: 'ignore-unmatched',
      severity: 'warning',
      message: `${a.object} has ${IGNORE_ANNOTATION}: "${[...a.codes].join(',')}: ${a.reason}", but no such problem is found on it: remove the annotation.`,
      file: a.file,
      line: a.line,
      object: a.object,
      cluster: a.cluster,
    });
  }
  return { kept, suppressed };
}

function readAnnotations(clusters: readonly ClusterModel[]): { annotations: Map<string, Annotation>; invalid: Problem[] } {
  const annotations = new Map<string, Annotation>();
  const invalid: Problem[] = [];
  const seenInvalid = new Set<string>();
  for (const c of clusters) {
    const all = [
      // An object whose YAML does not mention the annotation is not parsed to look for it.
      ...c.objects.filter((o) => o.mentions?.(IGNORE_ANNOTATION) !== false).map((o) => ({ id: refKey(o), raw: o.raw, file: o.origin.file, line: o.origin.line })),
      ...c.kustomizations.map((k) => ({ id: `Kustomization/${k.key}`, raw: k.raw, file: k.origin.file, line: k.origin.line })),
    ];
    for (const o of all) {
      const value = ((o.raw.metadata as { annotations?: Record<string, unknown> } | undefined)?.annotations ?? {})[IGNORE_ANNOTATION];
      if (value === undefined) continue;
      const parsed = typeof value === 'string' ? parseIgnore(value) : null;
      if (!parsed) {
        const k = `${o.file}:${o.line}:${o.id}`;
        if (!seenInvalid.has(k)) {
          seenInvalid.add(k);
          invalid.push({
            code: 'ignore-invalid',
            severity: 'warning',
            message: `${o.id}: ${IGNORE_ANNOTATION} must read "CODE[,CODE]: reason" with known codes and a reason (got ${JSON.stringify(value)}); it suppresses nothing.`,
            file: o.file,
            line: o.line,
            object: o.id,
            cluster: c.name,
          });
        }
        continue;
      }
      annotations.set(`${c.name}\0${o.id}`, { ...parsed, where: `annotation on ${o.id}`, used: false, file: o.file, line: o.line, object: o.id, cluster: c.name });
    }
  }
  return { annotations, invalid };
}

/** `runtime-crd: installed by the NAS operator` -> codes and reason; null when malformed or a code is unknown. */
export function parseIgnore(value: string): { codes: Set<ProblemCode>; reason: string } | null {
  const m = /^\s*([a-z0-9-]+(?:\s*,\s*[a-z0-9-]+)*)\s*:\s*(\S.*)$/s.exec(value);
  if (!m) return null;
  const codes = m[1]!.split(',').map((s) => s.trim());
  if (!codes.every((c) => (PROBLEM_CODES as readonly string[]).includes(c))) return null;
  return { codes: new Set(codes as ProblemCode[]), reason: m[2]!.trim() };
}
