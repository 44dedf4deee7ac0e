// A unified diff of two texts (`diff -u`, 3 lines of context), for fix's dry run. Line-based longest common
// subsequence: the files fix edits are small, and a plain dynamic programme keeps the output what diff(1) prints.

/** The diff of one file as `git diff` shows it; '' when the texts are equal. `null`: the file does not exist. */
export function unifiedDiff(file: string, before: string | null, after: string | null, context = 3): string {
  if (before === after) return '';
  const a = before === null ? [] : splitLines(before);
  const b = after === null ? [] : splitLines(after);
  const ops = diffLines(a, b);
  const header = `--- ${before === null ? '/dev/null' : `a/${file}`}\n+++ ${after === null ? '/dev/null' : `b/${file}`}\n`;
  const hunks: string[] = [];
  let i = 0;
  while (i < ops.length) {
    if (ops[i]!.op === ' ') {
      i++;
      continue;
    }
    let start = Math.max(0, i - context);
    let end = i;
    // Extend while the next change is within 2*context unchanged lines.
    for (;;) {
      while (end < ops.length && ops[end]!.op !== ' ') end++;
      let gap = end;
      while (gap < ops.length && ops[gap]!.op === ' ') gap++;
      if (gap < ops.length && gap - end <= 2 * context) end = gap;
      else break;
    }
    end = Math.min(ops.length, end + context);
    while (start > 0 && ops[start - 1]!.op === ' ' && i - start < context) start--;
    const slice = ops.slice(start, end);
    const aStart = ops.slice(0, start).filter((o) => o.op !== '+').length;
    const bStart = ops.slice(0, start).filter((o) => o.op !== '-').length;
    const aLen = slice.filter((o) => o.op !== '+').length;
    const bLen = slice.filter((o) => o.op !== '-').length;
    hunks.push(`@@ -${aLen === 0 ? aStart : aStart + 1},${aLen} +${bLen === 0 ? bStart : bStart + 1},${bLen} @@\n` + slice.map((o) => `${o.op}${o.line}\n`).join(''));
    i = end;
  }
  return header + hunks.join('');
}

function splitLines(t: string): string[] {
  const lines = t.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function diffLines(a: string[], b: string[]): { op: ' ' | '-' | '+'; line: string }[] {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: { op: ' ' | '-' | '+'; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: ' ', line: a[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push({ op: '-', line: a[i++]! });
    else out.push({ op: '+', line: b[j++]! });
  }
  while (i < n) out.push({ op: '-', line: a[i++]! });
  while (j < m) out.push({ op: '+', line: b[j++]! });
  return out;
}
