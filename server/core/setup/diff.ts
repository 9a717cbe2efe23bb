/**
 * A unified diff (as `diff -u` / `git diff` print it) of two versions of a text file, for
 * `heimdall setup --dry-run`. Setup's edits are small splices, so the common head and tail are
 * trimmed first and the longest common subsequence is computed on the (small) middle only.
 */

/** Beyond this many cells the middle is shown as removed-then-added instead of aligned line by line. */
const MAX_LCS_CELLS = 4_000_000;

type Op = { kind: ' ' | '-' | '+'; line: string };

function splitLines(text: string): { lines: string[]; finalNewline: boolean } {
  if (text === '') return { lines: [], finalNewline: true };
  const finalNewline = text.endsWith('\n');
  const lines = (finalNewline ? text.slice(0, -1) : text).split('\n');
  return { lines, finalNewline };
}

function middleOps(a: string[], b: string[]): Op[] {
  if (a.length * b.length > MAX_LCS_CELLS) return [...a.map((line) => ({ kind: '-' as const, line })), ...b.map((line) => ({ kind: '+' as const, line }))];
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const w = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? (lcs[(i + 1) * w + j + 1] as number) + 1 : Math.max(lcs[(i + 1) * w + j] as number, lcs[i * w + j + 1] as number);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i] as string });
      i++;
      j++;
    } else if ((lcs[(i + 1) * w + j] as number) >= (lcs[i * w + j + 1] as number)) ops.push({ kind: '-', line: a[i++] as string });
    else ops.push({ kind: '+', line: b[j++] as string });
  }
  while (i < a.length) ops.push({ kind: '-', line: a[i++] as string });
  while (j < b.length) ops.push({ kind: '+', line: b[j++] as string });
  return ops;
}

/**
 * The unified diff from `before` (null: the file does not exist yet) to `after`, with `context`
 * lines around each change; '' when they are equal.
 */
export function unifiedDiff(name: string, before: string | null, after: string, context = 3): string {
  if (before === after) return '';
  const A = splitLines(before ?? '');
  const B = splitLines(after);
  // Compare lines with their "no newline at end" status, so adding a final newline shows up.
  const a = A.lines.map((l, i) => (i === A.lines.length - 1 && !A.finalNewline ? `${l}\u0000` : l));
  const b = B.lines.map((l, i) => (i === B.lines.length - 1 && !B.finalNewline ? `${l}\u0000` : l));
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const ops: Op[] = [
    ...a.slice(0, head).map((line) => ({ kind: ' ' as const, line })),
    ...middleOps(a.slice(head, a.length - tail), b.slice(head, b.length - tail)),
    ...a.slice(a.length - tail).map((line) => ({ kind: ' ' as const, line })),
  ];
  const out = [`--- ${before === null ? '/dev/null' : `a/${name}`}`, `+++ b/${name}`];
  let k = 0;
  while (k < ops.length) {
    while (k < ops.length && (ops[k] as Op).kind === ' ') k++;
    if (k >= ops.length) break;
    // A hunk: from `context` lines before this change to `context` lines after the last change
    // that is no more than 2*context unchanged lines away.
    const start = Math.max(0, k - context);
    let end = k;
    let lastChange = k;
    while (end < ops.length) {
      if ((ops[end] as Op).kind !== ' ') lastChange = end;
      else if (end - lastChange > 2 * context) break;
      end++;
    }
    end = Math.min(ops.length, lastChange + context + 1);
    let aLine = 1;
    let bLine = 1;
    for (let x = 0; x < start; x++) {
      if ((ops[x] as Op).kind !== '+') aLine++;
      if ((ops[x] as Op).kind !== '-') bLine++;
    }
    const hunk = ops.slice(start, end);
    const aCount = hunk.filter((o) => o.kind !== '+').length;
    const bCount = hunk.filter((o) => o.kind !== '-').length;
    out.push(`@@ -${aCount === 0 ? aLine - 1 : aLine},${aCount} +${bCount === 0 ? bLine - 1 : bLine},${bCount} @@`);
    for (const o of hunk) {
      const noEol = o.line.endsWith('\u0000');
      out.push(`${o.kind}${noEol ? o.line.slice(0, -1) : o.line}`);
      if (noEol) out.push('\\ No newline at end of file');
    }
    k = end;
  }
  return `${out.join('\n')}\n`;
}
