// The baseline file of `check --baseline-write FILE` / `--baseline FILE`: the problems a team accepts for now, by
// fingerprint, so check fails only on new ones. JSON sorted by fingerprint, one entry per problem, so a change to it
// reads well in a pull request. Pure: the CLI reads and writes the file.
import { ConfigError } from '../model/errors.js';
import type { Problem } from '../model/problem.js';
import { FINGERPRINT_VERSION, fingerprintOf, type KnownProblem } from './fingerprint.js';

export const BASELINE_VERSION = 1;

/** One accepted problem; everything but the fingerprint is for the reader (and the "fixed" report). */
export interface BaselineEntry extends KnownProblem {
  code: string;
  severity: string;
  cluster: string | null;
  object: string | null;
  file: string | null;
}

/** The file's text: every problem check keeps (notes too, so that --baseline and --base count alike). */
export function baselineText(problems: readonly Problem[]): string {
  const entries: BaselineEntry[] = problems
    .map((p) => ({ fingerprint: fingerprintOf(p), code: p.code, severity: p.severity, cluster: p.cluster, object: p.object, file: p.file, message: p.message }))
    .sort((a, b) => a.fingerprint.localeCompare(b.fingerprint) || a.message.localeCompare(b.message));
  return JSON.stringify({ standupBaseline: BASELINE_VERSION, fingerprints: FINGERPRINT_VERSION, problems: entries }, null, 2) + '\n';
}

const REWRITE = 'Write it again with `standup check --baseline-write FILE`.';

/** The entries of a baseline file's text; a ConfigError (exit 2) naming the file when it is not one. */
export function parseBaseline(text: string, file: string): BaselineEntry[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ConfigError('BASELINE_INVALID', `${file} is not JSON: ${(e as Error).message}`, REWRITE);
  }
  const d = doc as { standupBaseline?: unknown; fingerprints?: unknown; problems?: unknown };
  if (typeof d !== 'object' || d === null || d.standupBaseline === undefined || !Array.isArray(d.problems)) {
    throw new ConfigError('BASELINE_INVALID', `${file} is not a standup baseline (no "standupBaseline" and "problems")`, REWRITE);
  }
  if (d.standupBaseline !== BASELINE_VERSION || d.fingerprints !== FINGERPRINT_VERSION) {
    throw new ConfigError('BASELINE_INVALID', `${file} was written by another standup (baseline format ${String(d.standupBaseline)}, fingerprints ${String(d.fingerprints)}; this one reads ${BASELINE_VERSION} and ${FINGERPRINT_VERSION})`, REWRITE);
  }
  const bad = d.problems.findIndex((e) => typeof e !== 'object' || e === null || typeof e.fingerprint !== 'string' || !/^[0-9a-f]{16}$/.test(e.fingerprint));
  if (bad >= 0) throw new ConfigError('BASELINE_INVALID', `${file}: problems[${bad}] has no valid "fingerprint"`, REWRITE);
  return (d.problems as Partial<BaselineEntry>[]).map((e) => ({
    fingerprint: e.fingerprint!,
    message: typeof e.message === 'string' ? e.message : '',
    code: typeof e.code === 'string' ? e.code : '?',
    severity: typeof e.severity === 'string' ? e.severity : '?',
    cluster: typeof e.cluster === 'string' ? e.cluster : null,
    object: typeof e.object === 'string' ? e.object : null,
    file: typeof e.file === 'string' ? e.file : null,
  }));
}
