/**
 * "Did you mean ...?" for every name a user types from a known list: CLI mechanisms, subcommands and
 * flags, client names of `heimdall setup`. One implementation, so every program suggests alike.
 */

/**
 * Edit distance counting an insertion, a deletion, a substitution or a swap of two neighbouring
 * characters as one edit (optimal string alignment, the restricted Damerau-Levenshtein distance):
 * `reslove` is one edit from `resolve`, as a typist would count it.
 */
export function editDistance(a: string, b: string): number {
  // Three rows: the swap looks two rows back.
  let before = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] as number) + 1);
      cur[j] = d;
    }
    [before, prev, cur] = [prev, cur, before];
  }
  return prev[b.length] as number;
}

/**
 * The known name `input` most likely meant, or undefined when none is close: the only name that
 * starts with it (three characters at least), else the nearest within two edits (a third of the
 * name's length for long names). Case does not count (`Resolve` means `resolve`); a known name means
 * itself (undefined). Ties go to the name listed first.
 */
export function closest(input: string, names: readonly string[]): string | undefined {
  const n = input.trim().toLowerCase();
  if (n === '' || names.includes(input)) return undefined;
  // A word the user began is a stronger sign than a near spelling: `stu` is studio, not setup.
  if (n.length >= 3) {
    const starts = names.filter((name) => name.toLowerCase().startsWith(n));
    if (starts.length === 1) return starts[0];
  }
  let best: { name: string; d: number } | undefined;
  for (const name of names) {
    const d = editDistance(n, name.toLowerCase());
    if (!best || d < best.d) best = { name, d };
  }
  if (best && best.d <= Math.max(2, Math.floor(best.name.length / 3)) && best.d < Math.max(n.length, 2)) return best.name;
  return undefined;
}

/** ` (did you mean X?)` for the closest known name, or the empty string. */
export function didYouMean(input: string, names: readonly string[], show: (name: string) => string = (s) => s): string {
  const c = closest(input, names);
  return c === undefined ? '' : ` (did you mean ${show(c)}?)`;
}
