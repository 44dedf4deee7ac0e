// GitHub Actions workflow commands: `::error file=F,line=L,title=T::message` per problem, so a pull request shows each
// finding on its line. GitHub keeps only 10 error, 10 warning and 10 notice annotations per step (and 50 per job), and
// drops the rest without a word: so errors come first, each kind is cut to its limit, and a last notice says what was
// left out and where to read it. https://docs.github.com/actions/reference/workflow-commands-for-github-actions
import type { Problem } from '../model/problem.js';

const data = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const prop = (s: string) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** Annotations GitHub shows per step, by command. */
export const GITHUB_STEP_LIMITS = { error: 10, warning: 10, notice: 10 } as const;

type Command = keyof typeof GITHUB_STEP_LIMITS;
const COMMAND: Record<Problem['severity'], Command> = { error: 'error', warning: 'warning', info: 'notice' };

export interface GithubOptions {
  /** Only these files (as the problems name them) get file and line: the files a pull request touches (--base). */
  changedFiles?: readonly string[];
  limits?: Record<Command, number>;
}

/** One finding reported in several clusters at one place: one annotation naming them all. */
interface Annotation {
  p: Problem;
  clusters: string[];
}

export function renderProblemsGithub(problems: readonly Problem[], o: GithubOptions = {}): string {
  const limits = o.limits ?? GITHUB_STEP_LIMITS;
  const changed = o.changedFiles ? new Set(o.changedFiles) : null;
  const merged = new Map<string, Annotation>();
  for (const p of problems) {
    const k = JSON.stringify([p.code, p.severity, p.file, p.line, p.object, p.message]);
    const a = merged.get(k);
    if (a) {
      if (p.cluster && !a.clusters.includes(p.cluster)) a.clusters.push(p.cluster);
    } else merged.set(k, { p, clusters: p.cluster ? [p.cluster] : [] });
  }
  const all = [...merged.values()].sort((a, b) => (a.p.file ?? '').localeCompare(b.p.file ?? '') || (a.p.line ?? 0) - (b.p.line ?? 0));
  const byCommand = (cmd: Command) => all.filter((a) => COMMAND[a.p.severity] === cmd);
  // The notice that closes the list takes one of the notice slots when anything at all is left out.
  const anyLeft = (['error', 'warning', 'notice'] as const).some((cmd) => byCommand(cmd).length > limits[cmd]);
  const out: string[] = [];
  const left: Partial<Record<Command, number>> = {};
  for (const cmd of ['error', 'warning', 'notice'] as const) {
    const mine = byCommand(cmd);
    const room = cmd === 'notice' && anyLeft ? limits.notice - 1 : limits[cmd];
    for (const a of mine.slice(0, room)) out.push(line(cmd, a, changed));
    if (mine.length > room) left[cmd] = mine.length - room;
  }
  const words = { error: 'error', warning: 'warning', notice: 'note' } as const;
  const leftOut = (Object.entries(left) as [Command, number][]).map(([c, n]) => `${n} ${words[c]}${n === 1 ? '' : 's'}`);
  if (leftOut.length) {
    out.push(`::notice title=${prop('standup: more problems than GitHub annotates')}::${data(
      `${leftOut.join(', ')} not annotated: GitHub shows ${limits.error} errors, ${limits.warning} warnings and ${limits.notice} notices per step. ` +
        'Every problem is in the job summary (the standup action writes it; else `standup check -o markdown >> "$GITHUB_STEP_SUMMARY"`) and in `standup check`\'s output.',
    )}\n`);
  }
  return out.join('');
}

function line(cmd: Command, { p, clusters }: Annotation, changed: Set<string> | null): string {
  // Outside the files a change touches a finding is still listed, on the run instead of on a file it did not edit.
  const onFile = p.file && (!changed || changed.has(p.file));
  const where = clusters.length ? ` (${clusters.join(', ')})` : '';
  const props = [onFile ? `file=${prop(p.file!)}` : null, onFile && p.line ? `line=${p.line}` : null, `title=${prop(`standup ${p.code}${p.object ? ` ${p.object}` : ''}${where}`)}`];
  const at = !onFile && p.file ? `${p.file}${p.line ? `:${p.line}` : ''}: ` : '';
  return `::${cmd} ${props.filter(Boolean).join(',')}::${data(at + p.message)}\n`;
}
