/**
 * Test helpers for the GSD importer and bench (imported by *.test.ts only): a synthetic GSD tree
 * with every oddity the importer must survive, copies of the real fixtures, and file hashing to
 * prove a tree was not modified.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/**
 * The real GSD trees (read-only): HEIMDALL_GSD_FIXTURES, or ../shared/fixtures/gsd relative to the
 * repository. A missing folder fails the suites that need it with a message saying so.
 */
export const FIXTURES = path.resolve(REPO, process.env.HEIMDALL_GSD_FIXTURES ?? '../shared/fixtures/gsd');
export const FIXTURE_NAMES = ['001TMF__HYDRA', 'BarristanSelmy__hybrid-attendance-tracker', 'FabienStarseed__wind-turbines-reports'] as const;

/** Throw a plain message when the real trees are not where HEIMDALL_GSD_FIXTURES (or the default) says. */
export function requireFixtures(): string {
  for (const name of FIXTURE_NAMES) {
    if (!fs.existsSync(path.join(FIXTURES, name, '.planning'))) {
      throw new Error(
        `the real GSD fixtures are missing: ${path.join(FIXTURES, name, '.planning')} does not exist. Set HEIMDALL_GSD_FIXTURES to the folder holding ${FIXTURE_NAMES.join(', ')} (default ../shared/fixtures/gsd relative to the repository).`,
      );
    }
  }
  return FIXTURES;
}

/** Small GSD trees kept in the repository for the odd cases (server/core/gsd/testdata). */
export const TESTDATA = path.join(path.dirname(fileURLToPath(import.meta.url)), 'testdata');

/** A writable copy of a testdata tree; returns the project folder (holding .planning). */
export function copyTestdata(name = 'odd'): string {
  const dest = path.join(tmp(), name);
  copyDir(path.join(TESTDATA, name), dest);
  return dest;
}

function copyDir(s: string, d: string): void {
  fs.mkdirSync(d, { recursive: true });
  for (const e of fs.readdirSync(s, { withFileTypes: true })) {
    if (e.isDirectory()) copyDir(path.join(s, e.name), path.join(d, e.name));
    else fs.writeFileSync(path.join(d, e.name), fs.readFileSync(path.join(s, e.name)));
  }
}

export function tmp(prefix = 'heimdall-gsd-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Every file under `dir` with the sha256 of its content (and its mode), sorted. */
export function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = fs.statSync(p);
        out[path.relative(dir, p)] = `${createHash('sha256').update(fs.readFileSync(p)).digest('hex')} ${st.mode.toString(8)} ${st.mtimeMs}`;
      }
    }
  };
  walk(dir);
  return out;
}

/** A writable copy of a real fixture's project folder; returns the project folder. */
export function copyFixture(name: string): string {
  requireFixtures();
  const dest = path.join(tmp(), name);
  copyDir(path.join(FIXTURES, name), dest);
  return dest;
}

function write(root: string, rel: string, text: string): void {
  const f = path.join(root, rel);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, text);
}

const crlf = (s: string) => s.replace(/\n/g, '\r\n');

/**
 * A small GSD project with odd files: CRLF, a BOM, flow/block/scalar depends_on, quoted numbers,
 * a plan without frontmatter, one with broken YAML, one without <context>, a TDD <feature> plan,
 * a decimal phase, a dependency cycle, a dependency on a plan that does not exist, a context file
 * that does not exist, references outside .planning, a summary without a plan, a summary without
 * frontmatter, and a non-plan file named *PLAN.md. Returns the project folder.
 */
export function syntheticProject(): string {
  const root = path.join(tmp(), 'odd-project');
  const P = (rel: string, text: string) => write(root, `.planning/${rel}`, text);
  P('PROJECT.md', '# Odd project\n\nConstraints: never store passwords in clear. Use F1 keys for help.\n');
  P('ROADMAP.md', '# Roadmap\n\n| REQ-9 | Phase 2 | Hotfix the parser for odd inputs |\n');
  P('REQUIREMENTS.md', '# Requirements\n\n- [ ] **AUTH-01**: Users can log in with a password\n### DATA-2: Store events append-only\n');
  P('STATE.md', '# State\n\nPhase 1 in progress.\n');
  P('phases/01-core/01-RESEARCH.md', '# Research\n\nUse argon2id for hashing. '.repeat(40));
  // 1. CRLF + BOM, block-list depends, requirements as a flow list, full must_haves, context with
  //    a missing file, a reference outside .planning, and a decorator inside fenced code.
  P(
    'phases/01-core/01-01-PLAN.md',
    `\uFEFF${crlf(`---
phase: 01-core
plan: 01
type: execute
wave: 1
depends_on: []
files_modified:
  - src/auth/login.ts
  - tests/login.test.ts
autonomous: true
requirements: [AUTH-01]
must_haves:
  truths:
    - "Login rejects a wrong password"
    - "Passwords are hashed with argon2id"
  artifacts:
    - path: "src/auth/login.ts"
      provides: "login()"
      exports: ["login"]
  key_links:
    - from: "src/auth/login.ts"
      to: "argon2"
      via: "argon2.verify"
---

<objective>
Build login against src/auth/login.ts.
</objective>

<execution_context>
@/home/me/.claude/get-shit-done/workflows/execute-plan.md
</execution_context>

<context>
@.planning/PROJECT.md
@.planning/STATE.md
@.planning/phases/01-core/01-RESEARCH.md
@.planning/phases/01-core/01-MISSING.md
@src/app.ts

\`\`\`python
@app.get("/login")
def login(): ...
\`\`\`
</context>

<tasks>
<task type="auto">
  <name>Task 1: login()</name>
  <files>src/auth/login.ts, tests/login.test.ts</files>
  <action>Write \`src/auth/login.ts\` and its test tests/login.test.ts. Passwords are hashed with argon2id.</action>
  <verify><automated>npx vitest run tests/login.test.ts</automated></verify>
  <done>Login rejects a wrong password</done>
</task>
</tasks>

<verification>
- Login rejects a wrong password
</verification>

<success_criteria>
- tests/login.test.ts passes
</success_criteria>
`)}`,
  );
  P(
    'phases/01-core/01-01-SUMMARY.md',
    crlf(`---
phase: 01-core
plan: 01
requires: []
provides: ["login()"]
affects: [01-02]
key-files:
  created: [src/auth/login.ts, tests/login.test.ts]
  modified: []
key-decisions:
  - "argon2id over bcrypt"
---

# Phase 1 Plan 01: Login Summary

**login() with argon2id hashing and a wrong-password test**

## Deviations from Plan

None - plan executed exactly as written.

## Issues Encountered

- The argon2 package needs node-gyp on Alpine
`),
  );
  // 2. Flow-list depends, quoted plan number, a TDD <feature>, underscore summary keys.
  P(
    'phases/01-core/01-02-PLAN.md',
    `---
phase: "01-core"
plan: "02"
type: tdd
wave: 2
depends_on: ["01-01"]
files_modified: [src/auth/session.ts, src/auth/login.ts]
requirements:
  - DATA-2
must_haves:
  truths: ["Sessions expire after 30 minutes"]
---

<objective>
Sessions for logged-in users.
</objective>

<context>
@.planning/phases/01-core/01-01-SUMMARY.md
</context>

<feature>
  <name>Session expiry</name>
  <files>src/auth/session.ts</files>
  <behavior>expire after 30 minutes; touch src/auth/login.ts only to call createSession()</behavior>
</feature>

<success_criteria>
- Sessions expire after 30 minutes.
</success_criteria>
`,
  );
  P(
    'phases/01-core/01-02-SUMMARY.md',
    `---
phase: 01-core
plan: 02
dependency_graph:
  requires: [01-01]
  provides: [createSession]
  affects: []
key_files:
  created:
    - src/auth/session.ts
  modified:
    - src/auth/login.ts
decisions:
  - decision: "Sliding expiry"
    rationale: "users stay logged in while active"
---

# Phase 1 Plan 2: Sessions Summary

Sliding 30-minute sessions.
`,
  );
  // 3. No frontmatter, no <context>: Markdown headings only.
  P(
    'phases/01-core/01-03-PLAN.md',
    `# Plan 01-03 — Logout

## Goal

Add logout to \`src/auth/session.ts\`.

## Tasks

- Remove the session in src/auth/session.ts
- Clear the cookie

## Verification

- [ ] logout clears the cookie
`,
  );
  // 4. Broken YAML: read line by line.
  P(
    'phases/01-core/01-04-PLAN.md',
    `---
wave: 3
depends_on: [01-02, 01-03
files_modified:
  - src/auth/reset.ts
bad: : :
---

<objective>Password reset.</objective>
<context>
@.planning/PROJECT.md
</context>
<tasks><task><name>reset</name><files>src/auth/reset.ts</files><action>reset</action></task></tasks>
`,
  );
  // 5. Scalar depends ("1-2" unpadded), a dependency that does not exist, no wave.
  P(
    'phases/01-core/01-05-PLAN.md',
    `---
depends_on: "1-2, 09-09"
---
<objective>Audit log.</objective>
<context>
@.planning/ROADMAP.md
@.planning/phases/01-core/*-SUMMARY.md
</context>
<tasks><task><name>audit</name><action>log every login</action></task></tasks>
`,
  );
  // 6. A cycle: 01-06 -> 01-07 -> 01-06.
  P('phases/01-core/01-06-PLAN.md', '---\nwave: 1\ndepends_on:\n  - 01-07\n---\n<objective>six</objective>\n<context>\n@.planning/PROJECT.md\n</context>\n<tasks><task><name>six</name></task></tasks>\n');
  P('phases/01-core/01-07-PLAN.md', '---\nwave: 1\ndepends_on: [01-06]\n---\n<objective>seven</objective>\n<context>\n@.planning/PROJECT.md\n</context>\n<tasks><task><name>seven</name></task></tasks>\n');
  P('phases/01-core/NOTES-PLAN.md', '# not a plan\n');
  P('phases/01-core/01-09-SUMMARY.md', '# 01-09 Summary\n\nA hotfix done outside any plan.\n');
  // 7. A decimal phase depending across phases.
  P(
    'phases/02.1-hotfix/02.1-01-PLAN.md',
    `---
phase: 02.1-hotfix
plan: 1
wave: 1
depends_on:
  - "01-02"
requirements: REQ-9
files_modified:
  - src/auth/session.ts
---
<objective>Hotfix sessions.</objective>
<context>
- @.planning/PROJECT.md (invariants)
- @.planning/phases/01-core/01-02-SUMMARY.md
</context>
<tasks><task><name>fix</name><files>src/auth/session.ts</files><action>fix the expiry in src/auth/session.ts</action></task></tasks>
`,
  );
  return root;
}
