#!/usr/bin/env node
/**
 * An independent count of what each GSD plan cites, checked against the briefs the bench emitted.
 *
 *   node scripts/gsd-oracle.mjs BENCH.json OUT [--json]
 *
 * BENCH.json is `heimdall bench gsd DIR --json --emit-briefs OUT`'s output. For every plan it lists,
 * this script reads the PLAN file itself and, with its own rules (it imports nothing from the
 * product, so a mistake in the product's parser is not repeated here):
 *  - ids: every label the plan writes (`D-07`, `AUTH-01`, `FR-3`) that some context document of
 *    the tree defines (a heading or table row starting with it, or a list item or line starting with
 *    it set off by `:`, `.`, `)`, a dash, brackets (`[REQ-040]`) or the line's end). The plan's own phase
 *    CONTEXT.md wins, then REQUIREMENTS files, then any document; a REQUIREMENTS entry is wanted
 *    even when the phase CONTEXT also defines the label. One definition line of each must be in the
 *    plan's resolved v2 brief (`OUT/<tree>/<id>.v2.resolved.txt`);
 *  - context reads: every `.planning` file an `@` line of `<context>` names, however its path begins
 *    (`@G:/AI/app/.planning/ROADMAP.md`), must be named in the brief (read, resolved or listed missing);
 *  - reads: every `.planning` file named in a `<read_first>` block must be named in the brief and
 *    either read whole (`READ .planning/<path>`) or have at least one of its lines in the brief, and
 *    every heading a `§Name` beside it begins must be in the brief (`§3`: the heading numbered 3,
 *    `### 3. Atomic Write Pattern`), every heading a label beside it begins (`(Pattern 1: I2S
 *    Audio)`), and every non-blank line of the line numbers it names (`lines 320–430`); an item
 *    that names line numbers cites those lines, and the sections beside them describe them;
 *  - numbered sections named in prose beside a planning document (`RESEARCH.md Pattern 3`, `per
 *    RESEARCH.md pitfall 5`, `Open Question 2 from RESEARCH.md`): the heading that starts with that
 *    name must be in the brief, or, when no heading does (a numbered list), one heading holding the
 *    word (`## Open Questions`), unless the document is read whole;
 *  - line numbers written in prose right after a planning document's name (`06-RESEARCH.md line
 *    421`), or after a section of it named with a section sign (`RESEARCH § Code Examples lines
 *    442-464`): every non-blank line of them, unless the document is read whole;
 *  - task lines: every non-empty line of `<action>`, `<verify>`, `<done>` and
 *    `<acceptance_criteria>` must be in the resolved brief.
 * Exit code 1 when any citation is missing; the report lists each one.
 */
import fs from 'node:fs';
import path from 'node:path';

const LABEL = /(?<![A-Za-z0-9_-])([A-Z][A-Z0-9]{0,11}(?:[-_][A-Z0-9]{1,12})*-\d{1,4}[a-z]?)(?![A-Za-z0-9_-])/g;

function norm(s) {
  return s.replace(/\r\n?/g, '\n');
}

/** Markdown noise stripped from a line, whitespace collapsed: what "present" compares. */
function flat(line) {
  return line.replace(/\s+/g, ' ').trim();
}

function walk(dir, out = []) {
  let ents;
  try {
    ents = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of ents) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile() && e.name.toLowerCase().endsWith('.md')) out.push(p);
  }
  return out;
}

/** Lines of the blocks named `tag` (`<action>...</action>`), outside nothing: GSD writes them flat. */
function blockLines(text, tag) {
  const out = [];
  const re = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, 'gi');
  for (const m of text.matchAll(re)) for (const l of m[1].split('\n')) if (l.trim()) out.push(l);
  return out;
}

function withoutBlock(text, tag) {
  return text.replace(new RegExp(`<${tag}(?:\\s[^>]*)?>[\\s\\S]*?</${tag}>`, 'gi'), '');
}

/** A heading's text (marks dropped, lower case) that begins with the label `word n` (`pitfall 5`, `pitfall #05`). */
function labelStart(word, n) {
  return new RegExp(`^${word}\\s*#?0*${Number(n)}(?![0-9])`);
}

/** Where each label is defined in a tree: label -> [{ file (relative to .planning), line }]. */
function definitions(planning) {
  const defs = new Map();
  for (const abs of walk(planning)) {
    const rel = path.relative(planning, abs).split(path.sep).join('/');
    if (/PLAN\.md$/i.test(rel) || /SUMMARY\.md$/i.test(rel)) continue;
    let fence = false;
    for (const line of norm(fs.readFileSync(abs, 'utf8')).split('\n')) {
      if (/^\s*(```|~~~)/.test(line)) fence = !fence;
      if (fence) continue;
      const m = /^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\[[ xX]\]\s+)?(#{1,6}\s+|\|\s*)?(?:\*\*|__|`)*(\[)?([A-Z][A-Z0-9]{0,11}(?:[-_][A-Z0-9]{1,12})*-\d{1,4}[a-z]?)(?![A-Za-z0-9_-])(?:\*\*|__|`)*(.*)$/.exec(line);
      if (!m) continue;
      // A heading or a table row starting with a label defines it; a list item or a line must set the
      // label off (`D-01:`, `**FR-3.**`, `AUTH-01 - ...`), else it is prose that begins with a name
      // (`- ISO-8601 timestamp precision`). Brackets set it off too (`- [REQ-040] System ...`).
      // A qualifier in parentheses may sit between the label and what sets it off (`**D-06 (CODE-02):**`).
      const rest = m[4].replace(/^\s*\([^()]{1,40}\)(?:\*\*|__|`)*/, '');
      // A dash right before a digit joins a range (`GLOBAL-01–03, SCHED-01–05`), it sets nothing off.
      if (!m[1] && !(m[2] && m[4].startsWith(']')) && !/^\s*(?:[:.)|]|[—–](?!\d)|-\s|$)/.test(rest)) continue;
      const key = m[3].replace(/-0+(\d)/, '-$1');
      const list = defs.get(key) ?? [];
      list.push({ file: rel, line });
      defs.set(key, list);
    }
  }
  return defs;
}

function check(bench, out) {
  const misses = [];
  const counts = { plans: 0, ids: 0, context_reads: 0, reads: 0, sections: 0, line_ranges: 0, task_lines: 0 };
  const defsByTree = new Map();
  for (const tree of bench.trees) {
    const planning = path.join(tree.dir, '.planning');
    defsByTree.set(tree.tree, { planning, defs: definitions(planning) });
  }
  for (const plan of bench.plans) {
    const t = defsByTree.get(plan.tree);
    if (!t) continue;
    counts.plans++;
    const planFile = path.join(bench.trees.find((x) => x.tree === plan.tree).dir, plan.path);
    const raw = norm(fs.readFileSync(planFile, 'utf8'));
    const text = withoutBlock(raw, 'execution_context');
    // One tree: OUT/<plan>.*; several: OUT/<tree>/<plan>.*.
    const briefPath = path.join(bench.trees.length > 1 ? path.join(out, plan.tree) : out, `${plan.id}.v2.resolved.txt`);
    if (!fs.existsSync(briefPath)) {
      misses.push({ tree: plan.tree, plan: plan.id, kind: 'brief', what: `no brief file ${briefPath}` });
      continue;
    }
    const brief = norm(fs.readFileSync(briefPath, 'utf8'));
    const briefFlat = new Set(brief.split('\n').map(flat));
    const has = (line) => briefFlat.has(flat(line)) || brief.includes(line.trim());
    const miss = (kind, what) => misses.push({ tree: plan.tree, plan: plan.id, kind, what });
    const planRel = path.relative(t.planning, planFile).split(path.sep).join('/');
    const planDir = path.posix.dirname(planRel);
    const phaseNum = /^(\d+(?:\.\d+)*)/.exec(path.posix.basename(planDir))?.[1];

    /** A document as the plan writes it, relative to .planning: `.planning/x`, or a bare name beside the plan. */
    // A planning file however its path begins (`.planning/x`, `/Users/me/app/.planning/x`), or a
    // bare name beside the plan.
    const relOf = (written) => {
      const at = written.lastIndexOf('.planning/');
      if (at === 0 || (at > 0 && written[at - 1] === '/')) return written.slice(at + '.planning/'.length);
      return !written.includes('/') && fs.existsSync(path.join(t.planning, planDir, written)) ? `${planDir}/${written}` : written;
    };
    /** The file of a part the plan cites (`rel`), when it is in the tree and the brief does not read it whole. */
    const partOf = (rel) => {
      const abs = rel && path.join(t.planning, rel);
      return abs && abs.startsWith(t.planning) && fs.existsSync(abs) && !brief.includes(`READ .planning/${rel}\n`) ? abs : undefined;
    };
    const rangesSeen = new Set();
    /** Every non-blank line of the line numbers `where` names in `abs` must be in the brief. */
    const checkLines = (abs, written, where) => {
      const all = norm(fs.readFileSync(abs, 'utf8')).replace(/\n$/, '').split('\n');
      for (const lm of where.matchAll(/(?<![A-Za-z0-9])lines?\s+(\d+)(?:\s*(?:-|–|—|to)\s*(\d+))?/gi)) {
        const from = Number(lm[1]);
        const to = Math.min(lm[2] ? Number(lm[2]) : from, all.length);
        if (from < 1 || from > all.length || to < from || rangesSeen.has(`${abs}:${from}:${to}`)) continue;
        rangesSeen.add(`${abs}:${from}:${to}`);
        counts.line_ranges++;
        const lost = all.slice(from - 1, to).filter((l) => l.trim() && !has(l));
        if (lost.length) miss('lines', `${written} lines ${from}-${to}: ${lost.length} of them, first ${JSON.stringify(flat(lost[0]).slice(0, 60))}`);
      }
    };

    // Ids.
    const seen = new Set();
    for (const m of text.matchAll(LABEL)) {
      const key = m[1].replace(/-0+(\d)/, '-$1');
      if (seen.has(key)) continue;
      seen.add(key);
      const all = (t.defs.get(key) ?? []).filter((d) => d.file !== planRel);
      if (all.length === 0) continue;
      // Decisions live in the plan's own phase CONTEXT.md, requirements in a REQUIREMENTS file; else anywhere.
      const ownPhase = (d) => path.posix.dirname(d.file) === planDir || (phaseNum && new RegExp(`^phases/0*${phaseNum.replace('.', '\\.')}-`).test(d.file));
      const ctx = all.filter((d) => ownPhase(d) && /CONTEXT\.md$/i.test(d.file));
      const req = all.filter((d) => /REQUIREMENTS[^/]*\.md$/i.test(d.file));
      // A requirement the phase CONTEXT discusses still has its REQUIREMENTS entry: both must be there.
      const wants = ctx.length ? [ctx, ...(req.length ? [req] : [])] : [req.length ? req : all];
      counts.ids++;
      for (const want of wants) if (!want.some((d) => has(d.line))) miss('id', `${m[1]} (defined in ${[...new Set(want.map((d) => d.file))].join(', ')})`);
    }

    // <context> reads: every planning file an `@` line names (however the path begins: `@.planning/x`,
    // `@G:/AI/app/.planning/x`, `@/home/me/app/.planning/x`) must be named in the brief, resolved or
    // listed as missing; a read is never dropped.
    for (const line of blockLines(text, 'context')) {
      const cm = /^\s*(?:[-*]\s+)?@(\S+)/.exec(line);
      if (!cm) continue;
      const at = cm[1].replace(/\\/g, '/').replace(/[`'".:;,)]+$/, '');
      const i = at.indexOf('.planning/');
      if (i === -1 || /[*?]/.test(at)) continue;
      const rel = at.slice(i + '.planning/'.length).replace(/\/+$/, '');
      if (!rel) continue;
      counts.context_reads++;
      if (!brief.includes(rel)) miss('context', `${cm[1]} (<context>)`);
    }

    // read_first.
    // A path may be written with backslashes and begin at a Windows drive (`d:\\GAFF\\.planning\\...`).
    for (const line of blockLines(text, 'read_first').map((l) => l.replace(/\\/g, '/'))) {
      for (const m of line.matchAll(/(?:^|[\s`'"(@])((?:[A-Za-z]:(?=\/))?(?:\.\/)?(?:\.planning\/)?[A-Za-z0-9_./-]+\.md)\b/g)) {
        const written = m[1].replace(/^\.\//, '');
        // What the item says of this document: from its name to the next file named on the line
        // (`VISION.MD (lines 70-77), .planning/ROADMAP.md Phase 1` names no lines of ROADMAP.md).
        const rest = line.slice(m.index + m[0].length);
        const next = /(?:^|[\s`'"(@,])(?:\.{0,2}\/)?[\w-]+(?:\/[\w.-]+)*\.[A-Za-z][A-Za-z0-9]{1,4}\b/.exec(rest);
        const item = next ? rest.slice(0, next.index) : rest;
        const rel = relOf(written);
        const abs = path.join(t.planning, rel);
        if (!fs.existsSync(abs) || !abs.startsWith(t.planning)) continue;
        counts.reads++;
        const whole = brief.includes(`READ .planning/${rel}\n`);
        const fileLines = norm(fs.readFileSync(abs, 'utf8'))
          .split('\n')
          .filter((l) => l.trim().length > 20);
        if (!whole && !(brief.includes(rel) && fileLines.some((l) => has(l)))) miss('read', `${written} (read_first)`);
        // Sections the item names with a section sign (`02-RESEARCH.md §Pattern 2 (...)`): each heading they begin must be in the brief.
        if (whole) continue;
        const headings = norm(fs.readFileSync(abs, 'utf8'))
          .split('\n')
          .filter((l) => /^#{1,6}\s/.test(l));
        const simple = (x) => x.toLowerCase().replace(/[*_`]/g, '').replace(/\s+/g, ' ').trim();
        /** A heading line's title, simplified. */
        const titleOf = (h) => simple(h.replace(/^#{1,6}\s+/, ''));
        // The heading numbered N (`### 3. Atomic Write Pattern`), not 30 nor 3.1.
        const numbered = (n) => new RegExp(`^${n.replace(/\./g, '\\.')}[.):]?\\s`);
        // An item that names line numbers cites those lines (checked below); the sections it names
        // beside them say what the lines are (`lines 427-430 (Pitfall 7 — ...)`).
        const names = /(?<![A-Za-z0-9])lines?\s+\d/i.test(item) ? '' : item;
        for (const sm of names.matchAll(/§\s*([^,(—–;§]+)/g)) {
          const name = simple(sm[1].replace(/\s+(?:and|through|to)\s*$/i, ''));
          // A number alone (`§3`) names the heading numbered so (`### 3. Atomic Write Pattern`).
          const num = /^(\d+(?:\.\d+)*)$/.exec(name);
          if (!num && (name.length < 3 || /^[a-z][a-z0-9]*-\d+$/.test(name))) continue;
          const begins = (h) => (num ? numbered(num[1]).test(h) : h.startsWith(name));
          let hit = headings.filter((h) => begins(titleOf(h)));
          if (hit.length === 0) continue;
          // `§Architecture Patterns — Recommended Project Structure tree`: what follows the dash begins
          // the title of a heading inside the named one, so that heading is what the item names.
          const after = simple(names.slice(sm.index + sm[0].length).replace(/^[\s—–>:-]+/, ''));
          const under = hit.flatMap((h) => {
            const level = /^#+/.exec(h)[0].length;
            const rest = headings.slice(headings.indexOf(h) + 1);
            const end = rest.findIndex((x) => /^#+/.exec(x)[0].length <= level);
            return (end === -1 ? rest : rest.slice(0, end)).filter((x) => {
              const title = titleOf(x);
              return title.length >= 3 && after.startsWith(title);
            });
          });
          if (under.length) hit = under;
          counts.sections++;
          if (!hit.some((h) => has(h))) miss('section', `${written} §${sm[1].trim()}${under.length ? ` — ${titleOf(under[0])}` : ''}`);
        }
        // The word before a number (`(Section 1, Section 4)`, `Sections 3 and 5`) names the headings numbered so.
        for (const wm of names.matchAll(/\bsections?\s+(\d+(?:\.\d+)*(?:\s*(?:,|&|and)\s*\d+(?:\.\d+)*)*)/gi)) {
          for (const n of wm[1].match(/\d+(?:\.\d+)*/g)) {
            const hit = headings.filter((h) => numbered(n).test(titleOf(h)));
            if (hit.length === 0) continue;
            counts.sections++;
            if (!hit.some((h) => has(h))) miss('section', `${written} Section ${n}`);
          }
        }
        // A label the item names (`(Pattern 1: I2S Audio + RTTTL Speaker)`, `pitfall #3`): the heading
        // it begins must be in the brief. A label no heading begins (`Task 3 output`) asks for nothing.
        const labelSeen = new Set();
        for (const lm of names.matchAll(/\b([A-Za-z]{4,20})\s*#?\s*(\d{1,3})(?![\d.])/g)) {
          const word = lm[1].toLowerCase();
          if (/^(?:lines?|sections?)$/.test(word) || labelSeen.has(`${word} ${Number(lm[2])}`)) continue;
          labelSeen.add(`${word} ${Number(lm[2])}`);
          // A document's title (`# Phase 1: Foundation - Context`) is not a section a label names.
          const hit = headings.filter((h) => !/^#\s/.test(h) && labelStart(word, lm[2]).test(titleOf(h)));
          if (hit.length === 0) continue;
          counts.sections++;
          if (!hit.some((h) => has(h))) miss('section', `${written} ${lm[1]} ${lm[2]}`);
        }
        // Line numbers the item names (`02-RESEARCH.md lines 320–430`): every non-blank line of them.
        checkLines(abs, written, item);
      }
    }
    // Line numbers written in prose right after a planning document's name (`06-RESEARCH.md line 421`).
    for (const pm of withoutBlock(text, 'read_first').matchAll(/(?<![\w./-])((?:[\w.-]+\/)*[\w.-]+\.md)`?\)?\s*(?:[,:(]\s*)?(?:at\s+)?(lines?\s+\d+(?:\s*(?:-|–|—|to)\s*\d+)?)/gi)) {
      const written = pm[1].replace(/^\.\//, '');
      const abs = partOf(relOf(written));
      if (abs) checkLines(abs, written, pm[2]);
    }

    // Numbered sections named in prose beside a document (`RESEARCH.md Pattern 3`, `per RESEARCH.md
    // pitfall 5`, `Open Question 2 from RESEARCH.md`): the heading starting with that name must be in
    // the brief; with no such heading (the items are a numbered list), a heading holding the word.
    const docFile = (written) => {
      const w = written.replace(/^\.\//, '');
      if (w.includes('/')) return relOf(w);
      const here = (() => {
        try {
          return fs.readdirSync(path.join(t.planning, planDir));
        } catch {
          return [];
        }
      })().filter((f) => f === w || f.toLowerCase().endsWith(`-${w.toLowerCase()}`));
      if (here.length === 1) return `${planDir}/${here[0]}`;
      return fs.existsSync(path.join(t.planning, w)) ? w : undefined;
    };
    const named = [];
    const prose = withoutBlock(text, 'read_first');
    for (const m of prose.matchAll(/(?<![\w./-])((?:[\w.-]+\/)*[\w.-]+\.md)`?\)?:?\*{0,2}\s+(?:[A-Za-z]{3,20}\s+){0,2}?([A-Za-z]{4,20})\s*#?(\d{1,3})\b/g)) named.push([m[1], m[2], m[3]]);
    for (const m of prose.matchAll(/\b([A-Za-z]{4,20})\s*#?(\d{1,3})\s+(?:from|in|of)\s+(?:the\s+)?`?((?:[\w.-]+\/)*[\w.-]+\.md)\b/g)) named.push([m[3], m[1], m[2]]);
    const sectionsSeen = new Set();
    for (const [written, word, n] of named) {
      if (/^lines?$/i.test(word)) continue;
      const rel = docFile(written);
      const abs = partOf(rel);
      if (!abs) continue;
      const key = `${rel}:${word.toLowerCase()}:${Number(n)}`;
      if (sectionsSeen.has(key)) continue;
      sectionsSeen.add(key);
      const heads = norm(fs.readFileSync(abs, 'utf8'))
        .split('\n')
        .filter((l) => /^#{1,6}\s/.test(l));
      const bare = (h) => h.replace(/^#{1,6}\s+/, '').replace(/[*_`]/g, '').trim().toLowerCase();
      const w = word.toLowerCase();
      let hit = heads.filter((h) => labelStart(w, n).test(bare(h)));
      if (hit.length === 0) hit = heads.filter((h) => bare(h).split(/[^a-z]+/).some((x) => x === w || x === `${w}s` || x === `${w}es`));
      if (hit.length === 0) continue;
      counts.sections++;
      if (!hit.some((h) => has(h))) miss('section', `${written} ${word} ${n}`);
    }

    // Line numbers written after a section of a document named with a section sign (`RESEARCH §
    // Code Examples lines 442-464`, `RESEARCH.md § Code Examples canonical version (lines 442-464)`).
    for (const pm of prose.matchAll(/(?<![\w./-])((?:[\w.-]+\/)*[\w.-]+\.md|[A-Z][A-Z0-9-]{3,})`?\s*§((?:(?![.;!?]\s)[^\n§]){1,80}?)\b(lines?\s+\d+(?:\s*(?:-|–|—|to)\s*\d+)?)/g)) {
      const written = /\.md$/i.test(pm[1]) ? pm[1] : `${pm[1]}.md`;
      const abs = partOf(docFile(written));
      if (abs) checkLines(abs, written, pm[3]);
    }

    // Task lines.
    for (const tag of ['action', 'verify', 'done', 'acceptance_criteria']) {
      for (const line of blockLines(text, tag)) {
        counts.task_lines++;
        if (!has(line)) miss('task_line', `<${tag}> ${flat(line).slice(0, 100)}`);
      }
    }
  }
  return { counts, misses };
}

function main(argv) {
  const [benchFile, out] = argv.filter((a) => !a.startsWith('--'));
  if (!benchFile || !out) {
    process.stderr.write('usage: node scripts/gsd-oracle.mjs BENCH.json OUT [--json]\n  BENCH.json: the output of `heimdall bench gsd DIR --json --emit-briefs OUT`\n');
    return 2;
  }
  let bench;
  try {
    bench = JSON.parse(fs.readFileSync(benchFile, 'utf8'));
  } catch (e) {
    process.stderr.write(`gsd-oracle: cannot read ${benchFile} as the JSON of \`heimdall bench gsd DIR --json --emit-briefs OUT\`: ${e.message}\n`);
    return 2;
  }
  if (!Array.isArray(bench?.trees) || !Array.isArray(bench?.plans)) {
    process.stderr.write(`gsd-oracle: ${benchFile} has no "trees" and "plans" arrays: expected the JSON of \`heimdall bench gsd DIR --json --emit-briefs OUT\`\n`);
    return 2;
  }
  if (!fs.existsSync(out)) {
    process.stderr.write(`gsd-oracle: no briefs folder ${out}: expected the OUT of --emit-briefs OUT\n`);
    return 2;
  }
  const r = check(bench, out);
  if (argv.includes('--json')) process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
  else {
    for (const m of r.misses) process.stdout.write(`MISSING ${m.tree}/${m.plan} ${m.kind}: ${m.what}\n`);
    process.stdout.write(`${r.counts.plans} plans: ${r.counts.ids} ids, ${r.counts.context_reads} <context> reads, ${r.counts.reads} read_first files, ${r.counts.sections} sections they name, ${r.counts.line_ranges} line ranges, ${r.counts.task_lines} task lines checked; ${r.misses.length} missing\n`);
  }
  return r.misses.length ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
