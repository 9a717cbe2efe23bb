import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { thrown, tmpDir } from '../../testing/fixtures.js';
import { unifiedDiff } from './diff.js';
import { SECTION_END, upsertSection } from './section.js';

const BODY = '## Heimdall\n\nClaim before you edit.';

describe('upsertSection', () => {
  it('appends the section after the user\'s text, separated by a blank line, and replaces it in place on the next run', () => {
    const user = '# My project\n\nBuild with make.\n';
    const once = upsertSection(user, 'AGENTS.md', BODY);
    expect(once.startsWith(`${user}\n<!-- heimdall:begin`)).toBe(true);
    expect(once.endsWith(`Claim before you edit.\n${SECTION_END}\n`)).toBe(true);
    expect(upsertSection(once, 'AGENTS.md', BODY)).toBe(once);
    const edited = `${once}\n## Notes the user added after\n`;
    const changed = upsertSection(edited, 'AGENTS.md', `${BODY}\nRelease when done.`);
    expect(changed).toBe(edited.replace('Claim before you edit.\n', 'Claim before you edit.\nRelease when done.\n'));
  });

  it('writes just the section into an empty file and keeps CRLF line ends', () => {
    expect(upsertSection('', 'CLAUDE.md', BODY).split('\n')[1]).toBe('## Heimdall');
    const crlf = upsertSection('# P\r\n', 'AGENTS.md', BODY);
    expect(crlf).toMatch(/^# P\r\n\r\n<!-- heimdall:begin[^\n]*\r\n## Heimdall\r\n\r\nClaim before you edit\.\r\n<!-- heimdall:end -->\r\n$/);
    expect(upsertSection(crlf, 'AGENTS.md', BODY)).toBe(crlf);
  });

  it('replaces a section whose end marker is the last line without a line break', () => {
    const text = `x\n<!-- heimdall:begin old -->\nold body\n${SECTION_END}`;
    expect(upsertSection(text, 'A', BODY)).toBe(`x\n<!-- heimdall:begin (written by \`heimdall setup\`; running it again replaces this section) -->\n${BODY}\n${SECTION_END}`);
  });

  it('refuses unbalanced or repeated markers, naming their lines', () => {
    expect(thrown(() => upsertSection('a\n<!-- heimdall:begin -->\nb\n', 'AGENTS.md', BODY)).message).toMatch(/^AGENTS\.md: expected one .* found begin marker at line 2\. The file was left untouched/);
    expect(thrown(() => upsertSection(`${SECTION_END}\n<!-- heimdall:begin -->\n`, 'A', BODY)).message).toMatch(/begin marker at line 2, end marker at line 1/);
    expect(thrown(() => upsertSection(`<!-- heimdall:begin -->\n${SECTION_END}\n<!-- heimdall:begin -->\n${SECTION_END}\n`, 'A', BODY)).message).toMatch(/begin marker at line 1, begin marker at line 3/);
  });
});

describe('unifiedDiff', () => {
  /** Apply a diff with git apply, the way a person would check it. */
  function applies(name: string, before: string | null, after: string): string {
    const dir = tmpDir('heimdall-diff-');
    if (before !== null) fs.writeFileSync(path.join(dir, name), before);
    fs.writeFileSync(path.join(dir, 'p.diff'), unifiedDiff(name, before, after));
    const r = spawnSync('git', ['apply', 'p.diff'], { cwd: dir, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    return fs.readFileSync(path.join(dir, name), 'utf8');
  }

  it('is empty for equal texts and applies cleanly with git apply for insertions, replacements, new files and distant changes', () => {
    expect(unifiedDiff('a', 'x\n', 'x\n')).toBe('');
    const long = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n');
    const cases: [string | null, string][] = [
      ['a\nb\nc\n', 'a\nb\nX\nc\n'],
      ['a\nb\nc\n', 'a\nB\nc\n'],
      [null, '{\n  "x": 1\n}\n'],
      [`${long}\n`, `${long.replace('line 2\n', 'line 2\nnew\n').replace('line 35', 'LINE 35')}\n`],
      ['no final newline', 'no final newline\nmore\n'],
      ['', 'first\n'],
    ];
    for (const [before, after] of cases) expect(applies('f.txt', before, after)).toBe(after);
  });

  it('splits distant changes into separate hunks with 3 lines of context', () => {
    const before = `${Array.from({ length: 30 }, (_, i) => `l${i}`).join('\n')}\n`;
    const after = before.replace('l1\n', 'l1\nA\n').replace('l25\n', 'l25\nB\n');
    const d = unifiedDiff('f', before, after);
    expect(d.split('\n').filter((l) => l.startsWith('@@'))).toEqual(['@@ -1,5 +1,6 @@', '@@ -24,6 +25,7 @@']);
    expect(d.startsWith('--- a/f\n+++ b/f\n')).toBe(true);
  });
});
