// What check compared with under --base or --baseline, in words: the counts of pre-existing problems (shown neither
// as findings nor failing) and what the change fixed, so a gate that shows little never hides how much it left out.
import { plainStyle, type Style } from './style.js';

/** What check compared with; cli's GateReport adds the fixed problems' fingerprints. */
export interface GateSummary {
  mode: 'base' | 'baseline';
  /** `--base`: the ref compared with and the merge-base commit. */
  ref?: string;
  commit?: string;
  /** `--baseline`: the file, as given. */
  file?: string;
  /** Problems present on the older side too: not shown, never failing. */
  preExisting: number;
  /** Errors among them. */
  preExistingErrors: number;
  fixed: { code: string; cluster: string | null; object: string | null; message: string }[];
}

const against = (g: GateSummary) =>
  g.mode === 'base' ? `the merge-base of ${g.ref} and HEAD (${g.commit?.slice(0, 12)})` : `the baseline ${g.file}`;

/** One headline, then one line per fixed problem. */
export function gateLines(g: GateSummary, style: Style = plainStyle): string[] {
  const pre = g.preExisting === 0 ? 'no pre-existing problems'
    : `${g.preExisting} pre-existing problem(s) not shown${g.preExistingErrors ? ` (${g.preExistingErrors} error(s))` : ''}`;
  const fixedWord = g.mode === 'base' ? 'fixed by this change' : 'baseline entries that no longer match (fixed; write the baseline again to drop them)';
  const out = [style.dim(`only what is new since ${against(g)}: ${pre}${g.fixed.length ? `; ${g.fixed.length} ${fixedWord}` : ''}`)];
  for (const f of g.fixed) out.push(style.green(`  fixed  ${f.code}  ${[f.object, f.cluster && `cluster ${f.cluster}`].filter(Boolean).join('  ')}`));
  return out;
}

export function gateMarkdown(g: GateSummary): string {
  const pre = g.preExisting === 0 ? 'no pre-existing problems'
    : `${g.preExisting} pre-existing problem(s) not shown${g.preExistingErrors ? ` (${g.preExistingErrors} error(s))` : ''}`;
  const out = [`Only what is new since ${against(g).replace(/\((\w+)\)/, '(`$1`)')}: ${pre}.`];
  if (g.fixed.length) {
    out.push('', `Fixed (${g.fixed.length}):`, '');
    for (const f of g.fixed) out.push(`- \`${f.code}\` ${[f.object, f.cluster && `cluster ${f.cluster}`].filter(Boolean).join(', ')}`);
  }
  return out.join('\n') + '\n\n';
}
